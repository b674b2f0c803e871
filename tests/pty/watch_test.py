#!/usr/bin/env python3
"""`wiredcap watch` and the picture of memory in real terminals, against the simulator.

Wired memory rises on the simulated Mac (`wiredcap-sim wired SIZE`, as a model loading wires
it) while watch runs; the warning line appears when it nears the cap; `q`, Ctrl-C, SIGTERM and
a closed terminal end it, the terminal's settings (`stty -a`) as they were.
  watch_test.py CASE WIREDCAP WIREDCAP_SIM WORKDIR
"""
import fcntl
import os
import re
import signal
import struct
import subprocess
import sys
import termios

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ramp_test  # noqa: E402
from pty_driver import PtySession  # noqa: E402
from ramp_test import check, settings_restored  # noqa: E402

T = None
WARNING = r"WARNING: wired memory is within 10% of the cap: 4096 MiB \(4\.00 GiB, 4\.29 GB\)\s+left"


def env_for(term):
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LC_ALL", "LC_CTYPE")}
    env.update(TERM=term, LANG="C.UTF-8")
    return env


def stty_a(s):
    """`stty -a` of the session's terminal, as a person would compare it."""
    return subprocess.run(["stty", "-a"], stdin=s.slave, capture_output=True, text=True, check=True).stdout


def stty_a_fresh(rows, cols):
    """`stty -a` of a fresh terminal of that size: what the session's was before watch ran
    (its settings are read only once the program is running)."""
    master, slave = os.openpty()
    try:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        return subprocess.run(["stty", "-a"], stdin=slave, capture_output=True, text=True, check=True).stdout
    finally:
        os.close(master)
        os.close(slave)


def start_watch(term="xterm-256color", *extra):
    """watch every second on an 80-column terminal, the cap raised to 80 GiB, 6 GiB wired."""
    T.wc("set", "80GiB", "--yes")
    T.sim("wired", "6GiB")
    s = PtySession(T.argv("watch", "--interval", "1s", *extra), env=env_for(term), size=(40, 80))
    T.sessions.append((f"watch TERM={term}", s))
    s.read_until(r"wiredcap watch \(SIMULATED Mac\): every 1s; q or Ctrl-C ends")
    check(stty_a(s) != stty_a_fresh(40, 80) and "-icanon" in stty_a(s), "watch did not take keys one by one")
    return s, stty_a_fresh(40, 80)


def case_rising_wired_warns_and_q_ends():
    s, stty_before = start_watch()
    s.read_until(r"wired \|[^|]*\| 8% of cap")
    check("\u2588" in s.output, f"no block characters on a UTF-8 terminal: {s.output!r}")
    check("WARNING" not in s.output, "a warning with 6 GiB of 80 GiB wired")
    T.sim("wired", "60GiB")
    s.read_until(r"wired \|[^|]*\| 75% of cap\r\n  peak since start 61440 MiB")
    check("WARNING" not in s.output[s.pos:], "a warning at 75% of the cap")
    T.sim("wired", "76GiB")
    s.read_until(WARNING)
    s.read_until(r"wired, sample by sample: \S*\u2588")
    # Redrawn in place: the cursor moved up over the last frame, not a new screen per sample.
    check("\x1b[" in s.output and "A\r\x1b[J" in s.output, "watch did not redraw in place")
    T.sim("wired", "20GiB")
    s.read_until(r"wired \|[^|]*\| 25% of cap\r\n  peak since start 77824 MiB")
    s.send("q")
    code = s.wait(5)
    check(code == 0, f"q: watch exited {code}")
    settings_restored(s, "after q")
    check(stty_a(s) == stty_before, "stty -a differs after watch")


def ended_by(action, label):
    s, stty_before = start_watch()
    s.read_until(r"wired \|[^|]*\| 8% of cap")
    action(s)
    code = s.wait(5)
    check(code == 0, f"{label}: watch exited {code}")
    settings_restored(s, f"after {label}")
    check(stty_a(s) == stty_before, f"stty -a differs after {label}")


def frame_after(s, cols):
    """The terminal is resized to `cols` columns (TIOCSWINSZ on it: the kernel tells the program
    with SIGWINCH); returns the rows of the first whole frame drawn after that, escape codes
    taken out, as they are shown."""
    fcntl.ioctl(s.slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, cols, 0, 0))
    s.read_until(r"memory\s+picture\s+\(physical\s+memory\s+in\s+" + str(cols - 4) + r"\s+columns", 10)
    start = s.output.rfind("memory picture", 0, s.pos)
    s.read_until(r"wired, sample by sample: [^\r]*\r\n", 10)
    text = re.sub(r"\x1b\[[0-9;?]*[@-~]", "", s.output[start:s.pos])
    return [row for row in text.replace("\r", "").split("\n") if row]


def case_resize_follows_the_terminal():
    """A person narrows and widens the window while watch runs: the next frame is drawn for the
    new width, every row within it, the bar as wide as the terminal."""
    s, stty_before = start_watch()
    s.read_until(r"wired \|[^|]*\| 8% of cap")
    for cols in (60, 100, 40):
        rows = frame_after(s, cols)
        wide = [row for row in rows if len(row) > cols]
        check(not wide, f"at {cols} columns, rows wider than the terminal: {wide}")
        bar = [row for row in rows if row.startswith("  [") and row.endswith("]")]
        check(len(bar) == 1 and len(bar[0]) == cols, f"at {cols} columns, the bar: {bar}")
        gauge = [row for row in rows if re.fullmatch(r"  wired \|[^|]*\| 8% of cap", row)]
        check(len(gauge) == 1 and len(gauge[0]) == cols, f"at {cols} columns, the gauge: {rows}")
        print(f"after a resize to {cols} columns: a frame of {len(rows)} rows, none wider")
    s.send("q")
    check(s.wait(5) == 0, "q did not end watch after the resizes")
    settings_restored(s, "after the resizes and q")
    check(stty_a(s) == stty_a_fresh(40, 40), "stty -a differs after watch (at the terminal's new size)")


def case_ctrl_c_ends_it():
    ended_by(lambda s: s.send("\x03"), "Ctrl-C")


def case_sigterm_ends_it():
    ended_by(lambda s: s.signal(signal.SIGTERM), "SIGTERM")


def case_closing_the_terminal_ends_it():
    s, _ = start_watch()
    s.read_until(r"wired \|[^|]*\| 8% of cap")
    s.hangup()
    code = s.wait(5)
    check(code is not None and code >= 0, f"watch was killed by signal {-code} when its terminal closed")


def case_dumb_terminal_gets_lines():
    s, _ = start_watch("dumb")
    s.read_until(r"\+0s wired 6144 MiB of the cap 81920 MiB \(8%\), peak 6144 MiB")
    T.sim("wired", "76GiB")
    s.read_until(r"\+\d+s " + WARNING)
    s.send("q")
    check(s.wait(5) == 0, "q did not end watch on a dumb terminal")
    check("\x1b" not in s.output, f"escape codes on TERM=dumb: {s.output!r}")
    check(all(ord(c) < 0x80 for c in s.output), f"not ASCII on TERM=dumb: {s.output!r}")


def case_piped_count_for_scripts():
    T.wc("set", "80GiB", "--yes")
    T.sim("wired", "76GiB")
    p = T.wc("watch", "--interval", "1s", "--count", "3")
    check(p.returncode == 0, f"watch --count 3 exited {p.returncode}: {p.stderr}")
    lines = p.stdout.splitlines()
    samples = [line for line in lines if " wired " in line and "WARNING" not in line]
    check(len(samples) == 3, f"--count 3 printed {len(samples)} samples: {lines}")
    check(all("WARNING: wired memory is within 10% of the cap" in line for line in lines if "WARNING" in line)
          and sum("WARNING" in line for line in lines) == 3, f"no warning line per sample near the cap: {lines}")
    check("\x1b" not in p.stdout and p.stdout.isascii(), f"escape codes or non-ASCII when piped: {p.stdout!r}")


def case_bad_values_are_usage_errors():
    # Each wrong value is exit 2 with its reason, and nothing is sampled (no sample line). "-1"
    # was taken as 2^64 - 1 samples: a watch that never ended.
    for args, why in [(["--count", "-1"], "not a number of samples"), (["--count", "0"], "not a number of samples"),
                      (["--count", "1.5"], "not a number of samples"), (["--count", "x"], "not a number of samples"),
                      (["--interval", "0s"], "at least 1s"), (["--interval", "500ms"], "never guessed"),
                      (["--interval", "2"], "unit"), (["--json", "--count", "1"], "status --json")]:
        p = T.wc("watch", *args)
        check(p.returncode == 2, f"watch {args} exited {p.returncode}, expected 2: {p.stderr}")
        check(why in " ".join(p.stderr.split()), f"watch {args} does not say why ({why!r}): {p.stderr!r}")
        check(" wired " not in p.stdout, f"watch {args} sampled anyway: {p.stdout!r}")


def case_status_picture_on_terminals():
    T.wc("set", "80GiB", "--yes")
    shown = {}
    for term, blocks, no_color in (("xterm-256color", True, False), ("xterm-256color", True, True),
                                   ("dumb", False, False)):
        env = env_for(term)
        if no_color:
            env["NO_COLOR"] = "1"  # no-color.org: wiredcap prints no colour, so nothing changes
        else:
            env.pop("NO_COLOR", None)
        s = PtySession(T.argv("status"), env=env, size=(60, 80))
        T.sessions.append((f"status TERM={term}" + (" NO_COLOR=1" if no_color else ""), s))
        check(s.wait(15) == 0, f"status exited non-zero on TERM={term}")
        shown[(term, no_color)] = s.output
        bar = [line for line in s.output.split("\r\n") if line.startswith("  [") and line.endswith("]") and len(line) > 40]
        check(len(bar) == 1 and len(bar[0]) == 80, f"TERM={term}: no bar of 80 columns: {bar}")
        check(("\u2588" in bar[0]) == blocks and ("#" in bar[0]) != blocks, f"TERM={term}: the bar's glyphs: {bar}")
        check("\x1b" not in s.output, f"TERM={term}: escape codes in status: {s.output!r}")
    check(shown[("xterm-256color", True)] == shown[("xterm-256color", False)],
          "NO_COLOR=1 changed status on a terminal, which has no colour to take out")


if __name__ == "__main__":
    sys.exit(ramp_test.run_script(globals(), sys.argv))
