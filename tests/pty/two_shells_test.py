"""A ramp step that awaits confirmation in one terminal, other commands in another (tmux).

    python3 two_shells_test.py CASE WIREDCAP WIREDCAP_SIM WORKDIR

Two interactive shells on one tmux server of the case's own (-L, a socket per case): in the
first, `wiredcap ramp --to 96GiB --step 16GiB`, answered yes at step 1 (80 GiB confirmed); while
step 2 (96 GiB) awaits its answer, the second shell acts. The tree (policy 64..176 GiB,
m2ultra-192 with the OS default at 64 GiB, journal) is ramp_test.py's. Asserted from the
simulator's write history and the journal; the screen only for what a person is told.

  other_writers_are_refused    set (with --yes, and on the terminal without), persist and a
                               second ramp: exit 10 each, naming the run and `wiredcap reset`,
                               before any question; nothing written, the journal byte for byte
                               as before; status leads with the open step. Then `no` reverts.
  root_reset_settles_the_step  root's reset goes (the knob is 0 at once); the ramp, left to its
                               deadline, ends cleanly: exit 9, no REVERT FAILED, nothing written
                               after the reset, the run's end `reverted`; status has nothing open
  yes_after_a_reset            the person's yes after root's reset: one sentence naming uid 0's
                               `wiredcap reset` and the knob's 0; nothing undone
  yes_after_a_write_outside    the person's yes after a write outside wiredcap (root's sysctl,
                               104 GiB, no journal record): one sentence saying so; the 104 GiB
                               stays, past the guard's grace too; the run ends `aborted`
  guard_undoes_nothing_after_a_write_outside   the same write, then wiredcap killed (SIGKILL):
                               its guard writes nothing either, and ends the run `aborted`
"""

import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ramp_test  # noqa: E402
from ramp_test import STEP1, STEP2, check, wait_until  # noqa: E402

TIMEOUT_S = 20        # the ramp's --timeout: room for the other shell's commands
SILENT_TIMEOUT_S = 6  # root_reset_settles_the_step lets the deadline pass
GUARD_GRACE_S = 3     # ramp/include/wiredcap/ramp/guard.hpp kGuardGrace
UNRESOLVED = 10
OUTSIDE = 106496      # 104 GiB, written by `wiredcap-sim sysctl` (no journal record)
STEP_Q = r"Step {} at {} MiB\. Keep it\?"


class Tmux:
    """One tmux server of the case's own; each window an interactive bash, as a terminal is."""

    def __init__(self, work):
        self.socket = f"wiredcap-2sh-{os.getpid()}"
        self.work = work
        self.screens = {}  # window -> what it showed last

    def tmux(self, *args, check_rc=True):
        p = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30)
        if check_rc:
            check(p.returncode == 0, f"tmux {' '.join(args)}: {p.stderr.strip()}")
        return p.stdout

    def open(self, name):
        shell = "env -i PATH=/usr/bin:/bin TERM=xterm HOME=/ PS1='$ ' bash --norc --noprofile -i"
        if not self.screens:
            self.tmux("new-session", "-d", "-s", "t", "-n", name, "-x", "250", "-y", "50", shell)
        else:
            self.tmux("new-window", "-d", "-t", "t", "-n", name, shell)
        self.screens[name] = ""

    def type(self, name, line):
        self.tmux("send-keys", "-t", f"t:{name}", "-l", line)
        self.tmux("send-keys", "-t", f"t:{name}", "Enter")

    def screen(self, name):
        text = self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", f"t:{name}", check_rc=False)
        self.screens[name] = text
        return text

    def wait_for(self, name, pattern, seconds=20):
        regex = re.compile(pattern)
        found = wait_until(lambda: regex.search(self.screen(name)), seconds, 0.2)
        check(found is not None, f"no {pattern!r} in {name} within {seconds} s:\n{self.screens[name]}")
        return regex.search(self.screens[name])

    def close(self):
        self.tmux("kill-server", check_rc=False)

    def report(self):
        return "\n".join(f"---- tmux window {n} ----\n{s.rstrip()}" for n, s in self.screens.items())


class Shells:
    """The ramp in one window, the other shell in the other; commands numbered so each answer
    is told apart."""

    def __init__(self):
        self.t = Tmux(T.work)
        self.n = 0

    def command_line(self, *args):
        return " ".join(T.argv(*args))

    def start_ramp(self, timeout_s):
        self.t.open("ramp")
        self.t.open("other")
        self.t.type("ramp", self.command_line("ramp", "--to", "96GiB", "--step", "16GiB", "--timeout", f"{timeout_s}s")
                    + "; echo RAMP-EXIT=$?")
        self.t.wait_for("ramp", STEP_Q.format("1/2", STEP1))
        self.t.type("ramp", "yes")
        self.t.wait_for("ramp", STEP_Q.format("2/2", STEP2))
        check(T.knob() == STEP2, f"at step 2's question the knob is {T.knob()}, expected {STEP2}")
        m = re.search(r"Ramp plan, run (r-\d{8}-\d{6}-[0-9a-f]{4})", self.t.screens["ramp"])
        check(m, "the plan names no run id")
        return m.group(1)

    def other(self, line):
        """Runs `line` in the other shell; returns (exit code, what it printed)."""
        self.n += 1
        self.t.type("other", f"echo BEGIN-{self.n}; {line}; echo END-{self.n} EXIT=$?")
        m = self.t.wait_for("other", rf"(?s)\nBEGIN-{self.n}\n(.*?)END-{self.n} EXIT=(\d+)")
        return int(m.group(2)), m.group(1)

    def wc(self, *args):
        return self.other(self.command_line(*args))

    def ramp_exit(self, seconds):
        return int(self.t.wait_for("ramp", r"RAMP-EXIT=(\d+)", seconds).group(1))


def journal_bytes():
    if not os.path.exists(T.journal_path):
        return b""
    with open(T.journal_path, "rb") as f:
        return f.read()


def run_records(run):
    return [r for r in T.journal() if r.get("run") == run]


def check_end(run, outcome):
    ends = [r for r in run_records(run) if r["event"] == "end"]
    check(len(ends) == 1, f"run {run} has {len(ends)} end records, expected 1: {ends}")
    check(run_records(run)[-1]["event"] == "end", f"run {run}'s last record is not its end: {run_records(run)[-1]}")
    check(ends[0].get("reason") == outcome, f"run {run} ended {ends[0].get('reason')!r}, expected {outcome!r}")


def status_json():
    p = T.wc("status", "--json")
    check(p.returncode == 0, f"status --json exited {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


def check_refused(sh, run, label, code, out):
    flat = re.sub(r"\s+", " ", out)
    check(code == UNRESOLVED, f"{label}: exited {code}, expected {UNRESOLVED}:\n{out}")
    check(run in flat, f"{label}: the refusal does not name run {run}:\n{out}")
    check("wiredcap reset" in flat, f"{label}: the refusal does not name what settles it (wiredcap reset):\n{out}")
    check("Type yes" not in out and "Keep it?" not in out, f"{label}: asked a question before refusing:\n{out}")


def with_shells(body):
    sh = Shells()
    try:
        body(sh)
    except BaseException:
        print(sh.t.report().replace(T.work, "<WORK>"), file=sys.stderr)
        raise
    finally:
        sh.t.close()


def case_other_writers_are_refused():
    def body(sh):
        run = sh.start_ramp(TIMEOUT_S)
        written, journal = T.history(), journal_bytes()
        for label, args in [("set --yes", ("set", "72GiB", "--yes")), ("set on a terminal", ("set", "104GiB")),
                            ("persist", ("persist",)), ("persist SIZE", ("persist", "80GiB")),
                            ("a second ramp", ("ramp", "--to", "112GiB", "--step", "16GiB"))]:
            code, out = sh.wc(*args)
            check_refused(sh, run, label, code, out)
            check(T.history() == written, f"{label}: values written {T.history()[len(written):]}")
            check(journal_bytes() == journal, f"{label}: the journal changed: {journal_bytes()[len(journal):]!r}")
        # status leads with it: the first line of text, and needs_attention in JSON.
        code, out = sh.wc("status")
        first = out.lstrip("\n").split("\n")[0]
        check(first.startswith("STEP AWAITING CONFIRMATION: run " + run), f"status's first line: {first!r}")
        items = status_json()["needs_attention"]
        check([i["kind"] for i in items] == ["open_step"], f"needs_attention: {items}")
        check(items[0]["command"] == "wiredcap reset" and items[0]["value_mib"] == STEP2, f"needs_attention: {items}")
        check(journal_bytes() == journal, "status changed the journal")
        sh.t.type("ramp", "no")
        check(sh.ramp_exit(10) == 9, "the ramp answered no did not exit 9")
        check(T.knob() == STEP1, f"knob {T.knob()} after no, expected {STEP1}")
        check(T.history() == [STEP1, STEP2, STEP1], f"values written: {T.history()}")
        check_end(run, "reverted")
        check(status_json()["needs_attention"] == [], "needs_attention is not empty once the step is settled")
    with_shells(body)


def reset_from_the_other_shell(sh):
    started = time.monotonic()
    code, out = sh.wc("reset")
    check(code == 0, f"root's reset exited {code}, expected 0:\n{out}")
    check(T.knob() == 0, f"knob {T.knob()} after root's reset, expected 0")
    check(time.monotonic() - started < 5, "root's reset took more than 5 s (a tmux round trip included)")
    check(T.history() == [STEP1, STEP2, 0], f"values written: {T.history()}")
    return len(T.journal())


def check_nothing_after_the_reset(sh, run, records_then):
    screen = sh.t.screens["ramp"]
    check("REVERT FAILED" not in screen, f"the ramp printed REVERT FAILED:\n{screen}")
    check(T.history() == [STEP1, STEP2, 0], f"written after the reset: {T.history()[3:]}")
    check(T.knob() == 0, f"knob {T.knob()}, expected root's 0")
    later = [r for r in T.journal()[records_then:] if r.get("run") == run]
    writes = [r for r in later if r["command"] in ("apply", "reset")]
    check(not writes, f"the run wrote after the reset: {writes}")
    check_end(run, "reverted")
    p = T.wc("recover")
    check(p.returncode == 0, f"recover after the settled run exited {p.returncode}: {p.stdout}{p.stderr}")
    check(status_json()["needs_attention"] == [], "needs_attention is not empty after the reset settled the step")


def case_root_reset_settles_the_step():
    def body(sh):
        run = sh.start_ramp(SILENT_TIMEOUT_S)
        records_then = reset_from_the_other_shell(sh)
        # The person says nothing: the deadline comes, and the ramp undoes nothing of root's.
        check(sh.ramp_exit(SILENT_TIMEOUT_S + GUARD_GRACE_S + 5) == 9, "the ramp did not exit 9")
        time.sleep(GUARD_GRACE_S + 1)  # the guard's grace too
        check_nothing_after_the_reset(sh, run, records_then)
    with_shells(body)


def one_sentence(screen, needle):
    flat = re.sub(r"\s+", " ", screen)
    m = re.search(r"Step 2 was not kept: [^\n]*?nothing was undone\.", flat)
    check(m, f"no 'Step 2 was not kept: ... nothing was undone.' sentence:\n{screen}")
    check(needle in m.group(0), f"the sentence does not say {needle!r}: {m.group(0)!r}")
    check("could not record the confirmation" not in flat, f"the helper's refusal was shown besides:\n{screen}")
    return m.group(0)


def case_yes_after_a_reset():
    def body(sh):
        run = sh.start_ramp(TIMEOUT_S)
        records_then = reset_from_the_other_shell(sh)
        sh.t.type("ramp", "yes")
        check(sh.ramp_exit(10) == 9, "the ramp did not exit 9")
        one_sentence(sh.t.screens["ramp"], "uid 0 ran wiredcap reset")
        one_sentence(sh.t.screens["ramp"], "reads 0 (OS default policy) now")
        time.sleep(GUARD_GRACE_S + 1)
        check_nothing_after_the_reset(sh, run, records_then)
    with_shells(body)


def case_yes_after_a_write_outside():
    def body(sh):
        run = sh.start_ramp(TIMEOUT_S)
        code, out = sh.other(f"{T.sim_bin} --state {T.state} sysctl 104GiB")
        check(code == 0, f"wiredcap-sim sysctl exited {code}: {out}")
        records_then = len(T.journal())
        sh.t.type("ramp", "yes")
        check(sh.ramp_exit(10) == 9, "the ramp did not exit 9")
        one_sentence(sh.t.screens["ramp"], f"reads {OUTSIDE} MiB")
        one_sentence(sh.t.screens["ramp"], "no journal record says who wrote it")
        time.sleep(GUARD_GRACE_S + 1)  # the guard must not undo it either
        check(T.knob() == OUTSIDE, f"knob {T.knob()}, expected the write outside's {OUTSIDE}: undone")
        check(T.history() == [STEP1, STEP2, OUTSIDE], f"written after the write outside: {T.history()[3:]}")
        later = [r for r in T.journal()[records_then:] if r.get("run") == run]
        check(not [r for r in later if r["event"].startswith("revert_")], f"a revert was journaled: {later}")
        check_end(run, "aborted")
    with_shells(body)


def wiredcap_pid(sh):
    """The ramp's wiredcap process: the ramp window's shell's child (not its guard, which is in
    a session of its own)."""
    shell = int(sh.t.tmux("display-message", "-p", "-t", "t:ramp", "#{pane_pid}").strip())
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == shell and stat[stat.index("(") + 1:stat.rindex(")")] == "wiredcap":
            return int(entry)
    raise AssertionError("no wiredcap process under the ramp window's shell")


def case_guard_undoes_nothing_after_a_write_outside():
    """wiredcap killed after a write outside wiredcap: its guard, left alone with the step,
    writes nothing either, and ends the run `aborted`."""
    def body(sh):
        run = sh.start_ramp(TIMEOUT_S)
        code, out = sh.other(f"{T.sim_bin} --state {T.state} sysctl 104GiB")
        check(code == 0, f"wiredcap-sim sysctl exited {code}: {out}")
        os.kill(wiredcap_pid(sh), 9)
        check(sh.ramp_exit(10) == 137, "wiredcap was not killed")
        ended = wait_until(lambda: any(r["event"] == "end" for r in run_records(run)), GUARD_GRACE_S + 10)
        check(ended is not None, "the guard recorded no end")
        time.sleep(1)
        check(T.knob() == OUTSIDE, f"knob {T.knob()}, expected the write outside's {OUTSIDE}: the guard undid it")
        check(T.history() == [STEP1, STEP2, OUTSIDE], f"written after the write outside: {T.history()[3:]}")
        check(not [r for r in run_records(run) if r["event"].startswith("revert_")], "the guard journaled a revert")
        check_end(run, "aborted")
    with_shells(body)


T = None  # the Tree of the running case, set by ramp_test.run_script

if __name__ == "__main__":
    sys.exit(ramp_test.run_script(globals(), sys.argv))
