"""Every command with its answer going to a full disk (>/dev/full), on a simulated Mac.

    python3 write_errors_test.py CASE WIREDCAP WIREDCAP_SIM WORKDIR

A failed write to standard output or error ends with a message on stderr and a non-zero exit
(19, output could not be written, when the command itself succeeded), after the change itself
is made and journaled: what was changed is read from the simulator's write history and the
journal, not from messages. The tree (policy 64..176 GiB, m2ultra-192 with a 64 GiB OS
default, journal) is ramp_test.py's.
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ramp_test  # noqa: E402
from ramp_test import check  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE_MODEL = os.path.join(HERE, "..", "golden", "make_model.py")
OUTPUT_FAILED = 19
STEP1 = 81920


def full(*args, stream="stdout"):
    """Runs wiredcap ARGS with `stream` going to /dev/full; returns the CompletedProcess (the
    other stream captured)."""
    argv = T.argv(*args)
    with open("/dev/full", "w") as dev_full:
        kw = {"stdout": dev_full, "stderr": subprocess.PIPE} if stream == "stdout" else \
            {"stdout": subprocess.PIPE, "stderr": dev_full}
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, text=True, timeout=60, **kw)
    T.commands.append((argv, p.returncode, p.stdout or "", p.stderr or ""))
    return p


def lost(*args, code=OUTPUT_FAILED):
    """stdout to /dev/full: exit `code`, and stderr says standard output was lost."""
    p = full(*args)
    check(p.returncode == code, f"wiredcap {' '.join(args)} >/dev/full exited {p.returncode}, expected {code}")
    check("standard output could not be written" in p.stderr, f"no message on stderr: {p.stderr!r}")
    return p


def events():
    return [r.get("event") for r in T.journal()]


def model():
    path = os.path.join(T.work, "model.gguf")
    subprocess.run([sys.executable, MAKE_MODEL, "gguf", path, "32", "4096", "32", "8", "4096"], check=True)
    return path


def case_status():
    lost("status")


def case_status_json():
    lost("status", "--json")


def case_metrics():
    lost("metrics")


def case_convert():
    lost("convert", "1GiB")
    lost("convert", "1GiB", "--json")


def case_fit():
    m = model()
    lost("fit", m)
    lost("fit", m, "--json")


def case_policy_check():
    lost("policy", "check", T.policy)


def case_help_and_version():
    lost("--help")
    lost("set", "--help")
    lost("--version")


def case_set_is_done_and_journaled():
    lost("set", "80GiB", "--yes")
    check(T.history() == [STEP1], f"written {T.history()}, expected [{STEP1}]")
    check(T.knob() == STEP1, f"knob {T.knob()}, expected {STEP1}")
    check("applied" in events(), f"the set is not journaled as applied: {events()}")
    lost("set", "80GiB", "--yes", "--json")  # already there: nothing written, the answer still lost
    check(T.history() == [STEP1], f"written {T.history()}")


def case_reset_is_done():
    check(T.wc("set", "80GiB", "--yes").returncode == 0, "set 80GiB --yes failed")
    lost("reset")
    check(T.history() == [STEP1, 0], f"written {T.history()}, expected [{STEP1}, 0]")


def case_ramp():
    lost("ramp", "--to", "80GiB", "--dry-run")
    check(T.history() == [], f"a dry run wrote {T.history()}")
    lost("ramp", "--to", "80GiB", "--unattended", "--check", "true")
    check(T.history() == [STEP1], f"written {T.history()}, expected [{STEP1}]")
    check(events().count("confirmed") == 1 and events()[-1] == "end", f"journal: {events()}")


def case_recover_and_persist():
    check(T.wc("ramp", "--to", "80GiB", "--unattended", "--check", "true").returncode == 0, "the ramp failed")
    lost("recover")
    lost("persist")
    check(T.wc("status", "--json").returncode == 0, "status after persist failed")
    lost("persist", "--off")


def case_watch_and_status_field():
    lost("watch", "--count", "1")
    lost("status", "--field", "memsize")
    lost("status", "--field", "memsize", "--field", "wired_limit")


def case_linux_front():
    """The same on a simulated Linux APU (--linux-root): status, metrics, recover and reset lose
    their answer with 19; set keeps its own code (18: one trial boot scheduled, not held yet),
    and the trial it scheduled is journaled all the same."""
    root = os.path.join(T.work, "linux")
    sim_linux = os.path.join(os.path.dirname(T.sim_bin), "wiredcap-sim-linux")
    subprocess.run([sim_linux, "init", "--root", root, "--profile", "strix-128"], check=True, capture_output=True)
    journal = os.path.join(root, "var", "lib", "wiredcap", "journal.jsonl")
    os.makedirs(os.path.dirname(journal), exist_ok=True)
    dev = ["--journal", journal, "--policy", os.path.join(root, "etc", "wiredcap.conf")]

    def linux(*args, code=OUTPUT_FAILED):
        argv = [T.wiredcap, *dev, args[0], "--linux-root", root, *args[1:]]
        with open("/dev/full", "w") as dev_full:
            p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=dev_full, stderr=subprocess.PIPE, text=True,
                               timeout=60)
        T.commands.append((argv, p.returncode, "", p.stderr))
        check(p.returncode == code, f"{' '.join(args)} --linux-root >/dev/full exited {p.returncode}, expected {code}")
        check("standard output could not be written" in p.stderr, f"no message on stderr: {p.stderr!r}")

    for args in (["status"], ["status", "--json"], ["metrics"], ["recover"], ["reset"]):
        linux(*args)
    linux("set", "40GiB", code=18)
    with open(journal) as f:
        scheduled = [line for line in f if '"event":"trial-scheduled"' in line and '"to_mib":40960' in line]
    check(len(scheduled) == 1, "the trial set scheduled is not journaled")


def case_stderr_full():
    """recover --json narrates on stderr: that stream lost is reported by the exit code."""
    check(T.wc("set", "80GiB", "--yes").returncode == 0, "set 80GiB --yes failed")
    T.sim("reboot")
    p = full("recover", "--json", "--hung", stream="stderr")
    check(p.returncode == OUTPUT_FAILED, f"recover --json 2>/dev/full exited {p.returncode}, expected {OUTPUT_FAILED}")
    check(p.stdout.strip().startswith("{"), f"the JSON answer on stdout is missing: {p.stdout!r}")


def case_a_failing_command_keeps_its_code():
    lost("set", "500GiB", "--yes", "--json", code=3)  # refused by policy, its JSON answer lost
    lost("convert", "12", "--json", code=2)  # a bare number, its JSON answer lost


T = None  # the Tree of the running case, set by ramp_test.run_script

if __name__ == "__main__":
    sys.exit(ramp_test.run_script(globals(), sys.argv))
