"""The person at the terminal is what counts, on a pseudo-terminal and a simulated Mac.

    python3 person_test.py CASE WIREDCAP WIREDCAP_SIM WORKDIR

- tee_works: `wiredcap ramp ... | tee ramp.log` asks the person on the terminal (the questions
  go to the terminal, not to stdout) and the log gets the plan.
- countdown_at_40_columns: a 10 s countdown in a 40-column terminal redraws in place: the
  lines it prints are counted (a handful, not one a second).
- dumb_terminal_gets_no_escape_codes: TERM=dumb: no escape sequence at all, the question and
  its deadline printed once; at 40 columns (dumb_terminal_at_40_columns) in lines that fit.
- countdown_gauge_follows_wired_memory: the countdown line carries watch's gauge of wired
  memory against the cap, sampled each second, within 40 and 120 columns.
- dry_run_needs_no_privileges: a plan changes nothing, so a caller who may not change the cap
  may still look at one (root only: runs wiredcap as nobody).

The tree (policy 64..176 GiB, m2ultra-192 whose OS default is 64 GiB) is ramp_test.py's.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ramp_test  # noqa: E402
from pty_driver import PtySession  # noqa: E402
from ramp_test import STEP1, STEP2, TIMEOUT_S, check, prompt  # noqa: E402

QUESTION1 = r"Step 1/2 at 81920 MiB\. Keep it\? yes / stop / no"
# A dumb terminal's deadline, printed once; it may be broken into rows at any of its spaces.
DEADLINE = r"\[answer\s+within\s+\d+\s+s,\s+by\s+\d\d:\d\d:\d\d\]\s+> "


def case_tee_works():
    log = os.path.join(T.work, "ramp.log")
    argv = T.argv("ramp", "--to", "96GiB", "--step", "16GiB", "--timeout", f"{TIMEOUT_S}s")
    s = PtySession(["/bin/bash", "-c", f'set -o pipefail; "$@" | tee {log}', "bash", *argv])
    T.sessions.append(("ramp | tee ramp.log; yes, yes", s))
    s.read_until(prompt(1, 2, STEP1), 10)
    s.send("yes\r")
    s.read_until(prompt(2, 2, STEP2), 10)
    s.send("yes\r")
    code = s.wait(10)
    check(code == 0, f"ramp | tee exited {code}, expected 0")
    check(T.knob() == STEP2 and T.history() == [STEP1, STEP2], f"knob {T.knob()}, writes {T.history()}")
    with open(log) as f:
        text = f.read()
    check("Ramp plan" in text and "ramp complete" in text, f"the log lacks the plan or the outcome: {text!r}")
    check("s left]" not in text, "the countdown went to stdout (the log), not to the terminal")


def rows_advanced(text, width):
    """How many rows the cursor of a `width`-column terminal moves down while showing `text`:
    the lines a person sees scroll by. Lines wrap at the right margin (as xterm does, once a
    character is written past it); CR returns to column 0; escape sequences take no room."""
    row = col = 0
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\x1b":
            m = re.match(r"\x1b\[[0-9;?]*[@-~]", text[i:])
            i += len(m.group(0)) if m else 1
            continue
        if c == "\r":
            col = 0
        elif c == "\n":
            row, col = row + 1, 0
        elif c >= " ":
            if col == width:
                row, col = row + 1, 0
            col += 1
        i += 1
    return row


def case_countdown_at_40_columns():
    s = T.ramp("10 s countdown at 40 columns, silence", "--to", "96GiB", "--step", "16GiB", "--timeout", "10s",
               size=(24, 40))
    s.read_until(r"\[10 s left\] > ", 10)
    start = s.output.rfind("Step 1/2")
    check(start >= 0, "the question was not shown")
    code = s.wait(30)
    check(code == 9, f"silence exited {code}, expected 9 (reverted)")
    end = s.output.find("reverted", start)
    check(end > start, "no revert after the silence")
    countdown = s.output[start:end]
    lines = rows_advanced(countdown, 40)
    print(f"a 10 s countdown at 40 columns moved down {lines} rows "
          f"({len(re.findall(r's left]', countdown))} redraws)")
    check(len(re.findall(r"s left\]", countdown)) >= 9, "the countdown was not redrawn each second")
    check(lines <= 4, f"the countdown printed {lines} lines at 40 columns, expected a handful: {countdown!r}")


def case_countdown_gauge_follows_wired_memory():
    """The countdown line carries watch's gauge, wired memory against the cap in force (the
    step's read-back, 81920 MiB): sampled each second, so a model loading during the countdown
    shows; at 40 columns its short form, at 120 the bar, every redrawn row within the width."""
    T.sim("wired", "6GiB")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LC_ALL", "LC_CTYPE", "LANG")}
    env["TERM"] = "xterm"
    for cols, first in ((40, r"wired 8% of cap \[\d+ s left\] > "),
                        (120, QUESTION1 + r" wired \|#+=+\| 8% of cap \[\d+ s left\] > ")):
        T.sim("wired", "6GiB")
        argv = T.argv("ramp", "--to", "96GiB", "--step", "16GiB", "--timeout", "20s")
        s = PtySession(argv, env=env, size=(24, cols))
        T.sessions.append((f"countdown gauge at {cols} columns; wired 6 GiB, then 76 GiB; no", s))
        s.read_until(first, 10)
        start = s.output.rfind("Step 1/2")
        T.sim("wired", "76GiB")  # 77824 MiB of 81920: 95%
        s.read_until(r"wired (\|#+\| )?95% of cap \[\d+ s left\] > ", 5)
        s.send("no\r")
        code = s.wait(15)
        check(code == 9, f"no exited {code}, expected 9 (reverted)")
        shown = s.output[start:s.output.find("reverted", start)]
        rows = rows_advanced(shown, cols)
        check(rows <= 4, f"the countdown with its gauge moved down {rows} rows at {cols} columns: {shown!r}")
        for redraw in shown.split("\r\x1b[K")[1:]:
            check(len(redraw.rstrip("\n")) < cols, f"a redraw of {len(redraw)} columns at {cols}: {redraw!r}")
        print(f"at {cols} columns the countdown's gauge: {re.findall(r'wired [^[]*', shown)[-1]!r}")
    check(T.history() == [STEP1, 0, STEP1, 0], f"writes {T.history()}, expected step 1 and its revert, twice")


def case_dumb_terminal_gets_no_escape_codes():
    env = dict(os.environ, TERM="dumb")
    argv = T.argv("ramp", "--to", "96GiB", "--step", "16GiB", "--timeout", f"{TIMEOUT_S}s")
    s = PtySession(argv, env=env)
    T.sessions.append(("TERM=dumb, silence", s))
    # The deadline may start a row of its own: a dumb terminal's rows are never redrawn.
    s.read_until(QUESTION1 + r"\s+" + DEADLINE, 10)
    code = s.wait(20)
    check(code == 9, f"silence exited {code}, expected 9 (reverted)")
    check("\x1b" not in s.output, f"escape codes on a dumb terminal: {s.output!r}")
    check(len(re.findall(QUESTION1, s.output)) == 1, "the question was printed more than once")


def case_dumb_terminal_at_40_columns():
    """TERM=dumb nothing is redrawn, so the question and its deadline are printed once as lines
    that fit the terminal: a dumb terminal wraps a longer one wherever the width falls (inside
    the deadline's time)."""
    env = dict(os.environ, TERM="dumb")
    argv = T.argv("ramp", "--to", "96GiB", "--step", "16GiB", "--timeout", f"{TIMEOUT_S}s")
    s = PtySession(argv, env=env, size=(24, 40))
    T.sessions.append(("TERM=dumb at 40 columns, silence", s))
    s.read_until(DEADLINE, 10)
    code = s.wait(20)
    check(code == 9, f"silence exited {code}, expected 9 (reverted)")
    start = s.output.find("Step 1/2")
    check(start >= 0, "the question was not shown")
    wide = [ln for ln in s.output[start:].replace("\r", "").split("\n") if len(ln) > 40]
    check(not wide, f"lines wider than the 40-column dumb terminal: {wide}")


def case_dry_run_needs_no_privileges():
    if os.geteuid() != 0:
        print("SKIP: runs wiredcap as nobody (setpriv), which needs root")
        sys.exit(77)
    # nobody runs the development helper, which trusts a policy file its caller owns; the
    # policy's group (root) is one nobody is not in, so nobody may not change the cap.
    with open(T.policy, "a") as f:
        f.write("group = root\n")
    for path in (os.path.dirname(T.policy), T.policy, T.state):
        os.chown(path, 65534, 65534)
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    for args, expected in ((["ramp", "--to", "96GiB", "--dry-run"], 0),
                           (["ramp", "--to", "96GiB", "--dry-run", "--json"], 0),
                           (["ramp", "--to", "96GiB", "--unattended", "--check", "true"], 4)):
        argv = nobody + T.argv(*args)
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
        T.commands.append((argv, p.returncode, p.stdout, p.stderr))
        check(p.returncode == expected, f"as nobody, {' '.join(args)} exited {p.returncode}, expected {expected}")
    check(T.history() == [], f"values written: {T.history()}")


T = None  # the Tree of the running case, set by ramp_test.run_script

if __name__ == "__main__":
    sys.exit(ramp_test.run_script(globals(), sys.argv))
