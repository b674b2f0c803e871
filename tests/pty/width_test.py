#!/usr/bin/env python3
"""In real terminals: wiredcap's human output fits the terminal it is given.

Each case runs wiredcap on a pseudo-terminal of a set width (TIOCSWINSZ, as a terminal window
sets it), without COLUMNS unless the case says so, and reads every line the terminal received.
  width_test.py CASE WIREDCAP WIREDCAP_SIM WORKDIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ramp_test  # noqa: E402
from pty_driver import PtySession  # noqa: E402
from ramp_test import check  # noqa: E402

T = None
# status and a ramp plan: the two outputs with the longest lines (sources, paths, the plan).
COMMANDS = [("status",), ("ramp", "--to", "112GiB", "--step", "16GiB", "--dry-run")]
# A row of status that is 82 columns long: wrapped at 80, whole at 120.
BAND_ROW = "permitted band                 65536 MiB to 180224 MiB (176.00 GiB, 188.97 GB) [5]"


def run_in_terminal(args, columns, env_columns=None):
    """The lines wiredcap wrote to a terminal `columns` wide (COLUMNS=env_columns if given)."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if env_columns is not None:
        env["COLUMNS"] = str(env_columns)
    s = PtySession(T.argv(*args), env=env, size=(40, columns))
    T.sessions.append((f"{' '.join(args)} at {columns} columns", s))
    code = s.wait(15)
    check(code == 0, f"wiredcap {' '.join(args)} exited {code} in a terminal {columns} wide")
    return s.output.replace("\r\n", "\n").split("\n")


def check_fits(lines, width, what):
    wide = [line for line in lines if len(line) > width and " " in line.strip()]
    check(not wide, f"{what}: {len(wide)} lines wider than {width} columns: {wide}")


def case_fits_80():
    for args in COMMANDS:
        lines = run_in_terminal(args, 80)
        check_fits(lines, 80, f"wiredcap {' '.join(args)} in an 80-column terminal")
    check(BAND_ROW not in lines, "the status row of 82 columns was not wrapped at 80")


def case_uses_120():
    for args in COMMANDS:
        lines = run_in_terminal(args, 120)
        check_fits(lines, 120, f"wiredcap {' '.join(args)} in a 120-column terminal")
    status = run_in_terminal(("status",), 120)
    check(BAND_ROW in status, f"a 120-column terminal still gets 80-column rows: {status}")


def case_columns_overrides_the_terminal():
    lines = run_in_terminal(("status",), 120, env_columns=80)
    check_fits(lines, 80, "status with COLUMNS=80 in a 120-column terminal")
    check(BAND_ROW not in lines, "COLUMNS=80 was ignored: the 82-column row is whole")


if __name__ == "__main__":
    sys.exit(ramp_test.run_script(globals(), sys.argv))
