# shellcheck shell=bash
# Shared by the packaging tests. Source it; then use need, check, fail and finish.
#   need TOOL...   a tool this test cannot run without: skipped (exit 77) on a developer's
#                  machine, a failure in CI (CI=true), where tools/install-deps installs it
#   check DESC CMD...  runs CMD; counts and reports a failure without stopping
#   fail MSG       records a failure
#   finish         prints the summary and exits 1 if anything failed
set -uo pipefail

failures=0
checks=0

# The tests use GNU coreutils, sed and find (CI runs on Debian); elsewhere they skip.
if ! stat -c %a / >/dev/null 2>&1 || ! sed --version >/dev/null 2>&1; then
  echo "SKIP: these tests need GNU coreutils and sed (they run in CI on Debian)"
  exit 77
fi

need() {
  local t
  for t in "$@"; do
    if ! command -v "$t" >/dev/null 2>&1; then
      if [ "${CI:-}" = true ]; then
        echo "FAIL: $t is not installed (tools/install-deps installs it)" >&2
        exit 1
      fi
      echo "SKIP: $t is not installed (tools/install-deps installs it)"
      exit 77
    fi
  done
}

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

check() {
  local desc=$1
  shift
  checks=$((checks + 1))
  if "$@"; then
    echo "ok: $desc"
  else
    fail "$desc"
  fi
}

finish() {
  if [ "$failures" -gt 0 ]; then
    echo "$failures of $checks checks failed"
    exit 1
  fi
  echo "all $checks checks passed"
  exit 0
}

# quiet CMD...: CMD with its stdout discarded (its stderr still explains a failure)
quiet() { "$@" >/dev/null; }
