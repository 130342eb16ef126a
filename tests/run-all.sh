#!/usr/bin/env bash
# Install everything the test suite needs into fresh virtual environments and run it:
# lint, the suite on the newest pytest, the docs build (-W), the packaging smoke run, the
# suite on pytest 7.4, each pytest version again with pytest-randomly and pytest-asyncio
# installed (tests/test_hardening.py), then the suite on Python 3.13 (found on PATH, through
# pyenv, or given as PYTHON313=/path/to/python3.13).
# Usage (from anywhere): bash tests/run-all.sh        Exit status: non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
VENV="${VENV:-.venv-test}"
CONTRIB=()
for dir in contrib/*/; do
    [ -f "$dir/pyproject.toml" ] && CONTRIB+=(-e "$dir")
done

step() { printf '\n==> %s\n' "$*"; }

# pytest exits 5 when it collected nothing: for this suite that is a failure, not a pass.
run_pytest() {
    local status=0
    "$@" || status=$?
    if [ "$status" -eq 5 ]; then
        echo "ERROR: pytest collected no tests" >&2
        return 1
    fi
    return "$status"
}

# the core suite, then each contrib package's own suite (each has its own conftest)
run_suites() {
    local python="$1"
    run_pytest "$python" -m pytest tests -n 2 -p no:cacheprovider -q
    for dir in contrib/*/; do
        if [ -d "$dir/tests" ]; then
            (cd "$dir" && run_pytest "$OLDPWD/$python" -m pytest tests -p pytester -p no:cacheprovider -q)
        fi
    done
}

# The other plugins a bench suite meets (tests/test_hardening.py enables each explicitly);
# installed only after the main suite ran, because both load themselves into every session.
PLUGINS=('pytest-randomly>=3.15' 'pytest-asyncio>=0.23')

# run the coexistence tests with pytest-randomly and pytest-asyncio installed in venv $1
run_plugin_tests() {
    local venv="$1" pin="$2"
    "$venv/bin/python" -m pip install --quiet "${PLUGINS[@]}" "$pin"
    PROB_NEEDS_PLUGINS=1 run_pytest "$venv/bin/python" -m pytest tests/test_hardening.py \
        -p no:cacheprovider -p no:randomly -p no:asyncio -q
}

# Python 3.13 for the second interpreter leg: $PYTHON313, python3.13 on PATH, or pyenv's
find_python313() {
    local candidate
    for candidate in "${PYTHON313:-}" "$(command -v python3.13 2>/dev/null || true)" \
        "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13*/bin/python3.13 /usr/local/bin/python3.13; do
        if [ -n "$candidate" ] && [ -x "$candidate" ] &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13))' 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

# make_venv INTERPRETER DIR PYTEST_SPEC: a fresh virtualenv with the plugin (editable, test and
# docs extras), every contrib package and the pytest asked for, in ONE pip command (a contrib
# package alone would pull an unrelated pytest-probability release from the index)
make_venv() {
    "$1" -m venv "$2"
    "$2/bin/python" -m pip install --quiet --upgrade pip
    "$2/bin/python" -m pip install --quiet -e '.[test,docs]' "${CONTRIB[@]}" "$3"
}

step "installing into $VENV with $("$PYTHON" --version)"
make_venv "$PYTHON" "$VENV" 'pytest>=9'

step "ruff"
"$VENV/bin/ruff" check .
"$VENV/bin/ruff" format --check .

step "test suite on $("$VENV/bin/python" -m pytest --version 2>&1)"
run_suites "$VENV/bin/python"

step "alongside pytest-randomly and pytest-asyncio"
run_plugin_tests "$VENV" 'pytest>=9'

step "docs (sphinx-build -W)"
"$VENV/bin/python" -m pip install --quiet -r docs/requirements.txt
"$VENV/bin/sphinx-build" -W -q -b html docs docs/_build/html

step "packaging: the wheel and the sdist, each into a fresh virtualenv, with a smoke run"
"$VENV/bin/python" -m pip install --quiet build
rm -rf .dist-test && "$VENV/bin/python" -m build --quiet --outdir .dist-test . >/dev/null
SMOKE="$(mktemp -d)"
printf 'def bench_smoke():\n    pass\n' > "$SMOKE/bench_smoke.py"
for artifact in .dist-test/*.whl .dist-test/*.tar.gz; do
    rm -rf .venv-smoke && "$PYTHON" -m venv .venv-smoke
    .venv-smoke/bin/python -m pip install --quiet "$artifact"
    .venv-smoke/bin/python -m pytest_probability --version
    (cd "$SMOKE" && "$OLDPWD/.venv-smoke/bin/python" -m pytest -q -p no:cacheprovider \
        --prob-runs=3 --prob-json=smoke.json >/dev/null && test -s smoke.json)
    echo "smoke run ok: $(basename "$artifact")"
done
rm -rf "$SMOKE" .venv-smoke .dist-test

step "test suite on pytest 7.4"
make_venv "$VENV/bin/python" "$VENV-pytest74" 'pytest==7.4.4'
run_suites "$VENV-pytest74/bin/python"

step "alongside pytest-randomly and pytest-asyncio on pytest 7.4"
run_plugin_tests "$VENV-pytest74" 'pytest==7.4.4'

if ! PYTHON313="$(find_python313)"; then
    echo "ERROR: no Python 3.13 interpreter found (set PYTHON313=/path/to/python3.13)" >&2
    exit 1
fi
step "test suite on Python 3.13 ($("$PYTHON313" --version)) and the newest pytest"
make_venv "$PYTHON313" "$VENV-py313" 'pytest>=9'
run_suites "$VENV-py313/bin/python"

step "all checks passed"
