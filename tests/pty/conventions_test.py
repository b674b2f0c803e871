"""The conventions a script's and a person's hands expect, on a simulated Mac.

    python3 conventions_test.py CASE WIREDCAP WIREDCAP_SIM WORKDIR

-y/--yes on every verb that can ask (a no-op where nothing is asked), -q/--quiet, status
--field, usage on `wiredcap` alone and `wiredcap help [COMMAND]`, -V. What changed is read from
the simulator's write history. The tree is ramp_test.py's (policy 64..176 GiB, m2ultra-192 with
a 64 GiB OS default).
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ramp_test  # noqa: E402
from ramp_test import check  # noqa: E402

STEP1 = 81920


def wc(*args, code=0):
    p = T.wc(*args)
    check(p.returncode == code, f"wiredcap {' '.join(args)} exited {p.returncode}, expected {code}: {p.stderr}")
    return p


def bare(*args, code=0):
    """wiredcap ARGS without the development options (help, usage, version)."""
    p = subprocess.run([T.wiredcap, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    T.commands.append(([T.wiredcap, *args], p.returncode, p.stdout, p.stderr))
    check(p.returncode == code, f"wiredcap {' '.join(args)} exited {p.returncode}, expected {code}")
    return p


def case_yes_is_accepted_by_every_verb_that_can_ask():
    wc("set", "80GiB", "-y")
    check(T.history() == [STEP1], f"written {T.history()}")
    wc("reset", "--yes")
    wc("reset", "-y")  # already at the OS default: nothing to ask, nothing written
    check(T.history() == [STEP1, 0], f"written {T.history()}")
    wc("ramp", "--to", "80GiB", "--unattended", "--check", "true", "--yes")
    wc("persist", "--yes")
    wc("persist", "--off", "-y")
    wc("recover", "--yes")
    p = wc("ramp", "--to", "96GiB", "--yes", code=2)
    check("--unattended --check" in p.stderr, f"ramp --yes does not name the way: {p.stderr}")
    check(T.history() == [STEP1, 0, STEP1], f"written {T.history()}")


def case_quiet_narrates_nothing():
    p = wc("set", "80GiB", "--yes", "-q")
    check(p.stdout == "" and p.stderr == "", f"set -q said {p.stdout!r} {p.stderr!r}")
    check(T.history() == [STEP1], f"written {T.history()}")
    p = wc("--quiet", "reset")
    check(p.stdout == "", f"reset --quiet said {p.stdout!r}")
    p = wc("ramp", "--to", "80GiB", "--unattended", "--check", "true", "-q")
    check(p.stdout == "", f"ramp -q said {p.stdout!r}")
    p = wc("set", "500GiB", "--yes", "-q", code=3)
    check("outside the permitted band" in p.stderr, f"set -q hid its error: {p.stderr!r}")


def case_status_field():
    wc("set", "80GiB", "--yes")
    status = json.loads(wc("status", "--json").stdout)
    p = wc("status", "--field", "wired_limit", "--field", "policy.max_mib", "--field", "journal.hang_ceiling",
           "--field", "related.iogpu.wired_lwm_mb")
    expected = [str(status["wired_limit"]["value"]), str(status["policy"]["max_mib"]), "null",
                str(status["related"]["iogpu.wired_lwm_mb"]["value"])]
    check(p.stdout.splitlines() == expected, f"--field printed {p.stdout.splitlines()}, expected {expected}")
    check(expected[0] == str(STEP1), f"wired_limit {expected[0]}, expected {STEP1}")
    p = wc("status", "--field", "no_such_thing", code=2)
    check("wired_limit" in p.stderr, f"the names are not listed: {p.stderr}")
    wc("status", "--field", "wired_limit", "--json", code=2)
    # A list is one line of JSON, whatever the width: a script parses it (it was wrapped at 80).
    p = wc("status", "--field", "needs_attention", "--field", "policy")
    lines = p.stdout.splitlines()
    check(len(lines) == 2, f"--field printed {len(lines)} lines for two fields: {p.stdout!r}")
    check(json.loads(lines[0]) == status["needs_attention"] and json.loads(lines[1]) == status["policy"],
          f"--field's JSON values differ from status --json's: {p.stdout!r}")
    check(len(lines[1]) > 80, f"the test needs a value wider than 80 columns: {lines[1]!r}")


def case_usage_help_and_version():
    # A runtime fit does not know is a usage error that names the ones it does, before any reading.
    p = bare("fit", "--runtime", "vllm", os.path.join(T.work, "no-model.gguf"), code=2)
    check("llama-server" in p.stderr and "'vllm'" in p.stderr, f"fit --runtime vllm: {p.stderr!r}")
    p = bare(code=2)
    check("Usage:" in p.stderr and "Subcommands:" in p.stderr, f"wiredcap alone: {p.stderr!r}")
    p = bare("help")
    check("Usage:" in p.stdout and "Exit codes" in p.stdout, "wiredcap help prints no usage")
    p = bare("help", "set")
    check("--yes" in p.stdout and "Usage: set" in p.stdout.replace("wiredcap set", "set"), f"help set: {p.stdout!r}")
    bare("help", "frobnicate", code=2)
    p = bare("-V")
    check(p.stdout.startswith("wiredcap "), f"-V printed {p.stdout!r}")


def case_textfile_dir_missing_is_19():
    missing = os.path.join(T.work, "missing")
    p = wc("metrics", "--textfile-dir", missing, code=19)
    check(p.stderr.strip(), "no message on stderr")
    check(not os.path.exists(missing), "the directory was created")


T = None  # the Tree of the running case, set by ramp_test.run_script

if __name__ == "__main__":
    sys.exit(ramp_test.run_script(globals(), sys.argv))
