#!/usr/bin/env python3
"""README's command table lists each command's exit codes; a script (Ansible's failed_when, a
shell's case) trusts that list. Each scenario below drives one command into a documented
situation on a simulated Mac and checks that it exits with the code the situation has
(docs/scripting.md) and that README's row for the command lists that code.

    exit_codes_test.py WIREDCAP SIM MAKE_MODEL README WORK

Exit 0 when every scenario passed, 1 otherwise (each failure says which and why).
"""
import os
import re
import resource
import shutil
import signal
import subprocess
import sys

WIREDCAP, SIM, MAKE_MODEL, README, WORK = sys.argv[1:6]

# A row of README's table, by the start of its first cell.
RAMP_TO = "`wiredcap ramp --to SIZE [--step SIZE]"
RAMP_UNATTENDED = "`wiredcap ramp --to SIZE --unattended --check CMD`"
RAMP_FOR = "`wiredcap ramp --for MODEL"
SET = "`wiredcap set SIZE`"
RESET = "`wiredcap reset`"
PERSIST = "`wiredcap persist [SIZE]"
PERSIST_OFF = "`wiredcap persist --off`"
RECOVER = "`wiredcap recover`"
STATUS = "`wiredcap status`"


def row_codes(readme, start):
    """The exit codes in the last cell of the table row whose first cell starts with `start`."""
    rows = [l for l in readme.split("\n") if l.startswith("| " + start)]
    if len(rows) != 1:
        raise SystemExit(f"README.md: {len(rows)} rows start with {start!r}, expected one")
    last = [c.strip() for c in rows[0].strip().strip("|").split("|")][-1]
    codes = set()
    for part in last.split(","):
        low, _, high = part.strip().replace("–", "-").partition("-")
        codes.update(range(int(low), int(high or low) + 1))
    return codes


def sim(*args):
    subprocess.run([SIM, "--state", os.path.join(WORK, "sim-state"), *args], check=True,
                   stdout=subprocess.DEVNULL)


def fresh(profile="m2ultra-192", policy=True):
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(os.path.join(WORK, "etc"))
    os.makedirs(os.path.join(WORK, "journal"))
    os.chmod(WORK, 0o755)
    os.chmod(os.path.join(WORK, "etc"), 0o755)
    sim("init", "--profile", profile)
    sim("clock", "pinned")
    if policy:
        path = os.path.join(WORK, "etc", "wiredcap.conf")
        with open(path, "w") as f:
            f.write("min = 64GiB\nmax = 176GiB\nreserve = 16GiB\nmax_step = 16GiB\n")
        os.chmod(path, 0o644)


def no_room_for_a_record():
    """The file-size limit at 0 (SIGXFSZ ignored, so write(2) fails with EFBIG): the journal
    cannot take a record, as on a full disk. Inherited by the helper."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def wiredcap(*args, journal_full=False):
    dev = ["--policy", os.path.join(WORK, "etc", "wiredcap.conf"),
           "--journal", os.path.join(WORK, "journal", "journal.jsonl"),
           "--sim-state", os.path.join(WORK, "sim-state")]
    r = subprocess.run([WIREDCAP, *dev, *args], stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, preexec_fn=no_room_for_a_record if journal_full else None)
    return r.returncode, r.stderr


def model(mib):
    path = os.path.join(WORK, "model.gguf")
    subprocess.run([sys.executable, MAKE_MODEL, "gguf", path, "80", "8192", "64", "8", str(mib)], check=True)
    return path


def journal_full_ramp():
    fresh()
    return wiredcap("ramp", "--to", "166GiB", "--unattended", "--check", "true", journal_full=True)


def journal_full_ramp_for():
    fresh()
    path = model(162000)  # fits after a raise on the 192 GiB Mac (its OS default gives 158 GiB)
    # At 4,096 tokens: llama.cpp's own default context (the trained one) would not fit at all.
    return wiredcap("ramp", "--for", path, "--context", "4096", "--unattended", "--check", "true", journal_full=True)


def journal_full_set():
    fresh()
    return wiredcap("set", "166GiB", "--yes", journal_full=True)


def journal_full_persist():
    fresh()
    return wiredcap("persist", "166GiB", "--unconfirmed", journal_full=True)


def journal_full_persist_off():
    fresh()
    rc, err = wiredcap("persist", "166GiB", "--unconfirmed")
    if rc != 0:
        return rc, "setting up: " + err
    return wiredcap("persist", "--off", journal_full=True)


def write_refused_reset():
    fresh()
    rc, err = wiredcap("set", "150GiB", "--yes")
    if rc != 0:
        return rc, "setting up: " + err
    sim("fault", "write-refused", "on")
    return wiredcap("reset")


def suspect_unanswered_recover():
    fresh()
    rc, err = wiredcap("set", "166GiB", "--yes")
    if rc != 0:
        return rc, "setting up: " + err
    sim("reboot")
    return wiredcap("recover")


def no_key_status():
    fresh("ventura-64")
    return wiredcap("status")


def too_small_persist():
    fresh("m4-16", policy=False)
    return wiredcap("persist", "12GiB", "--unconfirmed")


def no_key_persist():
    fresh("ventura-64", policy=False)
    return wiredcap("persist", "40GiB", "--unconfirmed")


# (what, README row, the code the situation has, the scenario)
SCENARIOS = [
    ("an unattended ramp whose journal cannot be written", RAMP_UNATTENDED, 12, journal_full_ramp),
    ("the same, as the supervised ramp's row says", RAMP_TO, 12, journal_full_ramp),
    ("ramp --for whose journal cannot be written", RAMP_FOR, 12, journal_full_ramp_for),
    ("set whose journal cannot be written", SET, 12, journal_full_set),
    ("persist whose journal cannot be written", PERSIST, 12, journal_full_persist),
    ("persist --off whose journal cannot be written", PERSIST_OFF, 12, journal_full_persist_off),
    ("reset that the kernel refuses", RESET, 5, write_refused_reset),
    ("recover with a suspect left unanswered", RECOVER, 10, suspect_unanswered_recover),
    ("status on a Mac without the knob", STATUS, 7, no_key_status),
    ("persist on a Mac too small for the built-in band", PERSIST, 14, too_small_persist),
    ("persist --unconfirmed on a Mac without the knob", PERSIST, 7, no_key_persist),
]


def main():
    with open(README, encoding="utf-8") as f:
        readme = f.read()
    failures = 0
    for what, row, code, scenario in SCENARIOS:
        listed = row_codes(readme, row)
        rc, err = scenario()
        problems = []
        if rc != code:
            problems.append(f"exit {rc}, not {code}: {err.strip()}")
        if code not in listed:
            problems.append(f"README's row {row} lists {sorted(listed)}, not {code}")
        print(("FAIL " if problems else "ok   ") + f"{what}: exit {rc}")
        for p in problems:
            print("     " + p)
        failures += bool(problems)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
