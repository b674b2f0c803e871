"""`wiredcap ramp`, the supervised ramp, end to end on a pseudo-terminal and a simulated Mac.

    python3 ramp_test.py CASE WIREDCAP WIREDCAP_SIM WORKDIR

runs one case (CTest registers each as pty.ramp.CASE); `python3 ramp_test.py list` names them.
WORKDIR is wiped and rebuilt: a policy file (etc/, mode 0755/0644), the journal and the
simulator's state file all live there, passed with --policy/--journal/--sim-state, so nothing
outside it is touched. A failing case prints every transcript it made (what the terminal
showed, with countdown redraws collapsed), the other commands it ran, and the journal.

The simulated machine is an m2ultra-192 (192 GiB) whose OS default cap is set to 64 GiB, with the
band 64..176 GiB, max_step 16 GiB: from the OS default (0) a ramp counts from the effective cap,
64 GiB, so --step 16GiB gives 80 GiB, 96 GiB, 112 GiB.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import termios
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pty_driver import PtySession, render_screen  # noqa: E402

TIMEOUT_S = 3            # --timeout of every interactive ramp here
GUARD_GRACE_S = 3        # ramp/include/wiredcap/ramp/guard.hpp kGuardGrace
STEP1, STEP2, STEP3 = 81920, 98304, 114688   # 80, 96, 112 GiB in MiB
POLICY = ["min = 64GiB", "max = 176GiB", "reserve = 16GiB", "max_step = 16GiB"]

# The countdown's gauge of wired memory against the cap (watch's), when the line has room.
GAUGE = r"(?:wired [^\[\n]*)?"


def prompt(step, of, mib):
    """The question for one step, as drawn (any countdown value)."""
    return rf"Step {step}/{of} at {mib} MiB\. Keep it\? yes / stop / no {GAUGE}\[\d+ s left\] > "


class Failed(AssertionError):
    pass


def check(condition, message):
    if not condition:
        raise Failed(message)


# ---- the test tree ------------------------------------------------------------------------------

class Tree:
    """One case's world: binaries, work directory, and a record of everything run in it."""

    def __init__(self, wiredcap, sim, work):
        self.wiredcap = os.path.abspath(wiredcap)
        self.sim_bin = os.path.abspath(sim)
        self.work = os.path.abspath(work)
        self.policy = os.path.join(self.work, "etc", "wiredcap.conf")
        self.journal_path = os.path.join(self.work, "journal", "journal.jsonl")
        self.state = os.path.join(self.work, "sim-state")
        self.sessions = []   # (label, PtySession)
        self.commands = []   # (argv, exit code, stdout, stderr)

    def build(self):
        """A fresh tree: policy file, fresh m2ultra-192 simulator, no journal yet."""
        if os.path.exists(self.work):
            shutil.rmtree(self.work)
        # Every directory made here gets 0755 whatever the umask: the helper refuses a policy
        # file under a directory others may write to.
        path = self.work
        missing = []
        while not os.path.isdir(path):
            missing.append(path)
            path = os.path.dirname(path)
        for d in [*reversed(missing), os.path.join(self.work, "etc")]:
            os.mkdir(d)
            os.chmod(d, 0o755)
        with open(self.policy, "w") as f:
            f.write("\n".join(POLICY) + "\n")
        os.chmod(self.policy, 0o644)
        self.sim("init", "--profile", "m2ultra-192")
        # These cases are about the prompt and the guard, written for a plan of 80, 96, 112 GiB:
        # a Mac whose OS default is the band's floor (64 GiB), so the plan starts there.
        self.sim("default-cap", "64GiB")

    def slow_helper(self, seconds, only=None):
        """A wiredcap-helper that takes `seconds` longer for every call, or only for calls of
        the command `only` (a shell script that sleeps, then runs the real one); pass it with
        --helper. Widens the moments when wiredcap waits for the helper (as a slow disk flush
        of the journal would), so a test can act in them."""
        path = os.path.join(self.work, "slow-helper")
        real = os.path.join(os.path.dirname(self.wiredcap), "wiredcap-helper")
        wait = f"/bin/sleep {seconds}" if only is None else \
            f'for a in "$@"; do if [ "$a" = {only} ]; then /bin/sleep {seconds}; fi; done'
        with open(path, "w") as f:
            f.write(f'#!/bin/sh\n{wait}\nexec "{real}" "$@"\n')
        os.chmod(path, 0o755)
        return path

    def dev_options(self):
        return ["--policy", self.policy, "--journal", self.journal_path, "--sim-state", self.state]

    def argv(self, *args):
        return [self.wiredcap, *args, *self.dev_options()]

    def _run(self, argv, quiet=False):
        """Runs a command without a terminal. `quiet`: a look at the state, left out of the
        failure report unless it failed."""
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=30)
        if not quiet or p.returncode != 0:
            self.commands.append((argv, p.returncode, p.stdout, p.stderr))
        return p

    def wc(self, *args):
        """Runs wiredcap without a terminal; returns the CompletedProcess."""
        return self._run(self.argv(*args))

    def sim(self, *args):
        p = self._run([self.sim_bin, "--state", self.state, *args], quiet=args[0] in ("show", "history"))
        check(p.returncode == 0, f"wiredcap-sim {' '.join(args)} exited {p.returncode}: {p.stderr.strip()}")
        return p.stdout

    def knob(self):
        """iogpu.wired_limit_mb of the simulated Mac, read from its state (not through wiredcap)."""
        return json.loads(self.sim("show", "--json"))["knob_mib"]

    def history(self):
        """Every value written to the knob since init, oldest first, in MiB."""
        values = []
        for line in self.sim("history").splitlines():
            m = re.fullmatch(r"(\d+) MiB", line.strip())
            check(m, f"unexpected line in wiredcap-sim history: {line!r}")
            values.append(int(m.group(1)))
        return values

    def journal(self):
        """The journal's records (a torn last line, which readers ignore, is skipped)."""
        if not os.path.exists(self.journal_path):
            return []
        with open(self.journal_path) as f:
            lines = f.read().splitlines()
        records = []
        for i, line in enumerate(lines):
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                check(i == len(lines) - 1, f"journal line {i + 1} is not JSON: {line!r}")
        return records

    def ramp(self, label, *args, shell=None, size=None):
        """Starts `wiredcap ramp ARGS` on a new pseudo-terminal. `shell`: a /bin/sh command
        around it, where "$@" is the wiredcap command line (for pipes and redirections)."""
        argv = self.argv("ramp", *args)
        if shell is not None:
            argv = ["/bin/sh", "-c", shell, "sh", *argv]
        s = PtySession(argv, size=size)
        self.sessions.append((label, s))
        return s

    def report(self):
        """Everything a person needs to see why a case failed."""
        out = []
        for label, s in self.sessions:
            out.append(f"---- pty transcript: {label} (exit {s.exit_code}) ----")
            out.append(render_screen(s.output))
            out.append(f"---- raw tail: {s.output[-400:]!r}")
        for argv, rc, so, se in self.commands:
            out.append(f"---- $ {os.path.basename(argv[0])} {' '.join(argv[1:])}  [exit {rc}]")
            out.extend(f"out| {line}" for line in so.splitlines())
            out.extend(f"err| {line}" for line in se.splitlines())
        out.append("---- journal ----")
        if os.path.exists(self.journal_path):
            with open(self.journal_path) as f:
                out.append(f.read().rstrip())
        return "\n".join(out).replace(self.work, "<WORK>")


T = None  # the Tree of the running case


# ---- reading what happened ----------------------------------------------------------------------

def run_id(session):
    m = re.search(r"Ramp plan, run (r-\d{8}-\d{6}-[0-9a-f]{4})", session.output)
    check(m, "the plan does not name its run id")
    return m.group(1)


def unwrap(text):
    """wiredcap's output with the rows a line was wrapped into (indented) joined back to it."""
    return re.sub(r"\n +", " ", text)


def plan_steps(text):
    """The plan's step table as [(step number, MiB)]."""
    return [(int(n), int(v)) for n, v in re.findall(r"(?m)^\s+(\d+)\s+(\d+) MiB \(", text)]


def events(run):
    """The journal records of one run as (event, step, record)."""
    return [(r["event"], r.get("step"), r) for r in T.journal() if r.get("run") == run]


def event_names(run):
    return [(e, st) for e, st, _ in events(run)]


def end_reason(run):
    ends = [r for e, _, r in events(run) if e == "end"]
    check(len(ends) == 1, f"run {run} has {len(ends)} end records, expected 1: {ends}")
    return ends[0].get("reason")


def revert_records(run, step):
    return [r for e, st, r in events(run) if st == step and e.startswith("revert_")]


def wait_until(predicate, seconds, interval=0.05):
    """Polls `predicate` until it holds or `seconds` pass; returns the time it took, or None."""
    start = time.monotonic()
    while True:
        if predicate():
            return time.monotonic() - start
        if time.monotonic() - start > seconds:
            return None
        time.sleep(interval)


# ---- common ramps -------------------------------------------------------------------------------

def start_two_step(label, *extra):
    """ramp --to 96GiB --step 16GiB: plan [80 GiB, 96 GiB]; returns the session at step 1's prompt."""
    s = T.ramp(label, "--to", "96GiB", "--step", "16GiB", "--timeout", f"{TIMEOUT_S}s", *extra)
    s.read_until(prompt(1, 2, STEP1), 10)
    return s


def at_step_two(label, *extra):
    """Step 1 confirmed with yes; returns the session at step 2's prompt (98304 MiB applied).
    s.yes_sent is when the yes went out: step 2's deadline cannot start before it."""
    s = start_two_step(label, *extra)
    s.yes_sent = time.monotonic()
    s.send("yes\r")
    s.read_until(prompt(2, 2, STEP2), 10)
    check(T.knob() == STEP2, f"at step 2's prompt the knob is {T.knob()}, expected {STEP2}")
    return s


def check_reverted_to_step_one(s, code, reason_on_screen=True, reason=None):
    """After step 2 was answered by anything but yes/stop: exit 9, back to step 1's value."""
    check(code == 9, f"wiredcap ramp exited {code}, expected 9 (ramp reverted)")
    if reason_on_screen:
        check(re.search(rf"reverted \({reason}\): iogpu\.wired_limit_mb = {STEP1} MiB", s.output),
              f"no 'reverted ({reason}): ... {STEP1} MiB' line on the terminal")
    check(T.knob() == STEP1, f"knob is {T.knob()} after the revert, expected {STEP1} (step 1, the last confirmed)")
    check(T.history() == [STEP1, STEP2, STEP1],
          f"values written: {T.history()}, expected {[STEP1, STEP2, STEP1]} (step 1, step 2, the revert)")
    run = run_id(s)
    names = event_names(run)
    check(("confirmed", 1) in names and ("confirmed", 2) not in names,
          f"journal: step 1 must be confirmed and step 2 not: {names}")
    reverts = revert_records(run, 2)
    check([r["event"] for r in reverts] == ["revert_intent", "revert_applied"],
          f"journal: step 2's revert records are {[r['event'] for r in reverts]}, "
          "expected revert_intent then revert_applied")
    check(all(r.get("to_mib") == STEP1 for r in reverts), f"journal: the revert does not go to {STEP1}: {reverts}")
    check(reverts[-1].get("readback_mib") == STEP1, f"journal: revert_applied reads back {reverts[-1]}")
    check(end_reason(run) == "reverted", f"journal: end reason {end_reason(run)!r}, expected 'reverted'")


# ---- 1. yes, yes ----------------------------------------------------------------------------

def case_yes_advances_through_the_plan():
    s = start_two_step("ramp --to 96GiB --step 16GiB; yes, yes")
    check(plan_steps(s.output) == [(1, STEP1), (2, STEP2)],
          f"plan steps {plan_steps(s.output)}, expected [(1, {STEP1}), (2, {STEP2})] (80 GiB, 96 GiB)")
    check(re.search(r"81920 MiB \(80\.00 GiB", s.output) and re.search(r"98304 MiB \(96\.00 GiB", s.output),
          "the plan does not show the steps in GiB")
    check(re.search(r"type yes within 3 s", s.output), "the plan does not state the 3 s timeout")
    check("wiredcap recover" in s.output, "the plan does not give the recovery command")
    check(T.knob() == STEP1, f"at step 1's prompt the knob is {T.knob()}, expected {STEP1}")
    s.send("yes\r")
    s.read_until(prompt(2, 2, STEP2), 10)
    s.send("yes\r")
    s.read_until(rf"ramp complete: {STEP2} MiB", 10)
    code = s.wait(10)
    check(code == 0, f"wiredcap ramp exited {code}, expected 0")
    check(T.history() == [STEP1, STEP2], f"values written: {T.history()}, expected exactly {[STEP1, STEP2]}")
    check(T.knob() == STEP2, f"knob {T.knob()}, expected {STEP2}")
    run = run_id(s)
    expected = [("intent", 1), ("applied", 1), ("confirmed", 1),
                ("intent", 2), ("applied", 2), ("confirmed", 2), ("end", None)]
    check(event_names(run) == expected, f"journal of run {run}: {event_names(run)}, expected {expected}")
    applied = [r for e, _, r in events(run) if e == "applied"]
    check([r.get("readback_mib") for r in applied] == [STEP1, STEP2], f"journal read-backs: {applied}")
    check(end_reason(run) == "completed", f"end reason {end_reason(run)!r}, expected 'completed'")


# ---- 2. the deadline ------------------------------------------------------------------------

def case_silence_reverts_within_timeout_plus_one_second():
    s = at_step_two("yes, then silence at step 2")
    shown = time.monotonic()
    s.read_until(r"reverted \(timeout\)", TIMEOUT_S + 5)
    took = time.monotonic() - shown
    check(took <= TIMEOUT_S + 1.0,
          f"the revert line came {took:.2f} s after step 2's prompt, expected at most {TIMEOUT_S + 1} s")
    # Not early: measured from the yes, which comes before the prompt for sure. (On a loaded
    # machine this process may see the prompt late, which made the same bound, measured from
    # when it saw the prompt, fail although the countdown on the screen was right.)
    since_yes = time.monotonic() - s.yes_sent
    check(since_yes >= TIMEOUT_S - 0.3,
          f"the revert came {since_yes:.2f} s after step 1's yes, before step 2's {TIMEOUT_S} s deadline")
    shown_counts = [int(n) for n in re.findall(rf"Step 2/2 at \d+ MiB\. Keep it\? yes / stop / no {GAUGE}\[(\d+) s left\]",
                                               s.output)]
    check(shown_counts and shown_counts[0] == TIMEOUT_S and 1 in shown_counts,
          f"step 2's countdown showed {shown_counts}, expected it to run from {TIMEOUT_S} down to 1")
    check_reverted_to_step_one(s, s.wait(10), reason="timeout")


# ---- 3. stop --------------------------------------------------------------------------------

def case_stop_keeps_the_value():
    s = at_step_two("yes, then stop")
    s.send("stop\r")
    code = s.wait(10)
    # Step 2 is the last: stop there keeps the target itself, so the ramp reached it (a
    # stop before the last step exits 8: scripting_test.py).
    check(code == 0, f"wiredcap ramp exited {code}, expected 0 (stopped at the target)")
    check(re.search(rf"stopped: keeping {STEP2} MiB", s.output), "no 'stopped: keeping ...' line")
    check(T.knob() == STEP2, f"knob {T.knob()} after stop, expected {STEP2} (kept)")
    check(T.history() == [STEP1, STEP2], f"values written: {T.history()}, expected {[STEP1, STEP2]}")
    run = run_id(s)
    check(("confirmed", 2) in event_names(run), f"journal: stop did not confirm step 2: {event_names(run)}")
    check(not any(e.startswith("revert_") for e, _ in event_names(run)), f"journal: a revert after stop: "
          f"{event_names(run)}")
    check(end_reason(run) == "stopped", f"end reason {end_reason(run)!r}, expected 'stopped'")


# ---- 4. no at step 1: back to the OS default ------------------------------------------------

def case_no_reverts():
    s = start_two_step("no at step 1")
    check(T.knob() == STEP1, f"at step 1's prompt the knob is {T.knob()}, expected {STEP1}")
    s.send("no\r")
    code = s.wait(10)
    check(code == 9, f"wiredcap ramp exited {code}, expected 9 (ramp reverted)")
    check(re.search(r"reverted \(no\): iogpu\.wired_limit_mb = 0 \(OS default policy\)", s.output),
          "no 'reverted (no): ... 0 (OS default policy)' line")
    check(T.knob() == 0, f"knob {T.knob()} after no at step 1, expected 0 (the OS default)")
    check(T.history() == [STEP1, 0], f"values written: {T.history()}, expected {[STEP1, 0]}")
    run = run_id(s)
    reverts = revert_records(run, 1)
    check([r["event"] for r in reverts] == ["revert_intent", "revert_applied"], f"journal: {event_names(run)}")
    check(all(r["command"] == "reset" and r.get("to_mib") == 0 for r in reverts),
          f"the revert to the OS default is not a reset to 0: {reverts}")
    check(not any(e == "confirmed" for e, _ in event_names(run)), f"journal: a confirmation: {event_names(run)}")
    check(end_reason(run) == "reverted", f"end reason {end_reason(run)!r}, expected 'reverted'")


# ---- 5. every other way of saying no --------------------------------------------------------

def case_eof_reverts():
    s = at_step_two("yes, then Ctrl-D at step 2")
    s.send("\x04")
    check_reverted_to_step_one(s, s.wait(10), reason="eof")


def case_ctrl_c_reverts():
    s = at_step_two("yes, then Ctrl-C at step 2")
    s.send("\x03")
    check_reverted_to_step_one(s, s.wait(10), reason="interrupt")


def case_sigterm_reverts():
    s = at_step_two("yes, then SIGTERM at step 2")
    s.signal(signal.SIGTERM)
    check_reverted_to_step_one(s, s.wait(10), reason="terminate")


def case_sighup_reverts():
    s = at_step_two("yes, then the terminal closes at step 2")
    s.hangup()  # closes the master side: the kernel hangs the terminal up (SIGHUP)
    # The terminal is gone, so nothing more can be read from it: the state says what happened.
    check_reverted_to_step_one(s, s.wait(10), reason_on_screen=False)


# The reason each way of ending a step is recorded with: the helper's --revert word.
REVERT_WAYS = ["no", "eof", "interrupt", "terminate", "hangup", "timeout", "guard"]


def case_revert_reason_in_journal():
    """The journal records why each step was reverted (docs/design.md section 6: records carry a
    reason; helper/include/wiredcap/helper/journal/journal.hpp: "reason: why (refusals, failures, reverts)")."""
    wrong = []
    for way in REVERT_WAYS:
        T.build()
        s = T.ramp(f"revert by {way}", "--to", "96GiB", "--step", "16GiB", "--timeout",
                   "1s" if way == "timeout" else f"{TIMEOUT_S}s")
        s.read_until(prompt(1, 2, STEP1), 10)
        if way == "no":
            s.send("no\r")
        elif way == "eof":
            s.send("\x04")
        elif way == "interrupt":
            s.send("\x03")
        elif way == "terminate":
            s.signal(signal.SIGTERM)
        elif way == "hangup":
            s.hangup()
        elif way == "guard":
            s.signal(signal.SIGKILL)
        code = s.wait(10)
        run = run_id(s)
        if way == "guard":
            check(wait_until(lambda: end_reason_or_none(run) == "reverted", GUARD_GRACE_S + 2) is not None,
                  "the guard did not revert after SIGKILL")
        else:
            check(code == 9, f"revert by {way}: exited {code}, expected 9")
        check(T.knob() == 0, f"revert by {way}: knob {T.knob()}, expected 0")
        reverts = revert_records(run, 1)
        check([r["event"] for r in reverts] == ["revert_intent", "revert_applied"],
              f"revert by {way}: journal {event_names(run)}")
        reasons = [r.get("reason") for r in reverts]
        if reasons != [way, way]:
            wrong.append(f"{way}: revert records carry reason {reasons}")
    check(not wrong, "the journal does not record why steps were reverted (--revert REASON is accepted and "
          "validated by the helper, then dropped):\n  " + "\n  ".join(wrong))


def end_reason_or_none(run):
    ends = [r for e, _, r in events(run) if e == "end"]
    return ends[-1].get("reason") if ends else None


# ---- 6. SIGKILL: the guard reverts ----------------------------------------------------------

def case_sigkill_still_reverts():
    s = at_step_two("yes, then SIGKILL at step 2")
    run = run_id(s)
    during = s.termios_now()
    s.signal(signal.SIGKILL)
    killed = time.monotonic()
    code = s.wait(5)
    check(code == -signal.SIGKILL, f"wiredcap ended with {code}, expected -9 (killed)")
    took = wait_until(lambda: T.knob() == STEP1 and end_reason_or_none(run) is not None, GUARD_GRACE_S + 2)
    check(took is not None, f"{GUARD_GRACE_S + 2} s after SIGKILL: knob {T.knob()}, journal end "
          f"{end_reason_or_none(run)!r}; expected {STEP1} and an end record (the guard's revert)")
    check(time.monotonic() - killed <= GUARD_GRACE_S + 2, "the guard took too long")
    check(T.history() == [STEP1, STEP2, STEP1], f"values written: {T.history()}, expected {[STEP1, STEP2, STEP1]}")
    reverts = revert_records(run, 2)
    check([r["event"] for r in reverts] == ["revert_intent", "revert_applied"],
          f"journal: step 2's revert records: {event_names(run)}")
    check(reverts[-1].get("to_mib") == STEP1 and reverts[-1].get("readback_mib") == STEP1,
          f"journal: the guard's revert_applied: {reverts[-1]}")
    check(("confirmed", 2) not in event_names(run), f"journal: step 2 confirmed: {event_names(run)}")
    check(end_reason(run) == "reverted", f"end reason {end_reason(run)!r}, expected 'reverted'")
    # The guard also put the terminal back (it was raw while the prompt waited).
    check(during != s.termios_before, "the prompt did not change the terminal's settings (nothing to restore)")
    restored = wait_until(lambda: s.termios_now() == s.termios_before, 2)
    check(restored is not None, f"terminal settings not restored after SIGKILL:\n  before {s.termios_before}\n"
          f"  after  {s.termios_now()}")


def case_sigstop_guard_reverts_at_its_deadline():
    """The prompting process is stopped, not killed (the pipe stays open): the guard's own
    deadline (the step's timeout plus kGuardGrace) reverts the step and restores the terminal."""
    s = at_step_two("yes, then SIGSTOP at step 2, SIGCONT after the guard's revert")
    run = run_id(s)
    shown = time.monotonic()
    s.signal(signal.SIGSTOP)
    try:
        limit = TIMEOUT_S + GUARD_GRACE_S + 1
        took = wait_until(lambda: T.knob() == STEP1, limit)
        check(took is not None, f"the knob is still {T.knob()} {limit} s after step 2's prompt with wiredcap "
              f"stopped; expected the guard to revert it to {STEP1} at the deadline plus {GUARD_GRACE_S} s")
        took = time.monotonic() - shown
        check(took >= TIMEOUT_S + GUARD_GRACE_S - 0.5,
              f"the guard reverted {took:.2f} s after the prompt, before the deadline plus its grace")
        check(wait_until(lambda: end_reason_or_none(run) == "reverted", 2) is not None,
              "the guard recorded no end for the run")
        restored = wait_until(lambda: s.termios_now() == s.termios_before, 2)
        check(restored is not None, "the guard did not restore the terminal's settings")
    finally:
        s.signal(signal.SIGCONT)
    code = s.wait(10)
    check(code == 9, f"after SIGCONT wiredcap exited {code}, expected 9 (ramp reverted)")
    check(T.knob() == STEP1, f"knob {T.knob()}, expected {STEP1}")
    check(T.history() == [STEP1, STEP2, STEP1],
          f"values written: {T.history()}, expected {[STEP1, STEP2, STEP1]} (one revert, not two)")
    ends = [r.get("reason") for e, _, r in events(run) if e == "end"]
    check(ends == ["reverted"], f"end records {ends}, expected exactly one, 'reverted' (the guard's): a "
          "wiredcap continued after the guard acted must not record a second end")
    check("the guard reverted step 2 itself" in s.output, "wiredcap does not say the guard reverted the step")
    check(events(run)[-1][0] == "end", f"wiredcap wrote after the guard's end: {event_names(run)}")


def case_guard_does_not_race_a_slow_confirmation():
    """yes typed within the deadline, but recording the confirmation takes long (the helper's
    `confirm` is slowed by 5 s, as a slow journal flush would): the guard's deadline (timeout
    plus kGuardGrace, counted from before the step's write) passes while the confirmation is in
    flight. The guard must not revert a step the person kept behind the ramp's back. Either the
    ramp goes on from the kept value, or, if it reverts, it says so and ends; and nothing is
    written after it has ended."""
    slow = T.slow_helper(5, only="confirm")
    s = start_two_step("yes late in the deadline, slow confirm (5 s)", "--helper", slow)
    asked = time.monotonic()
    s.read_for(TIMEOUT_S - 0.7)
    check(s.exit_code is None and "reverted" not in s.output, "the step ended before the answer")
    s.send("yes\r")
    answered = time.monotonic() - asked
    check(answered < TIMEOUT_S, f"answered {answered:.2f} s after the question, not within {TIMEOUT_S} s")
    run = run_id(s)
    went_on = True
    try:
        s.read_until(prompt(2, 2, STEP2), 15)
    except AssertionError:
        went_on = False
    if went_on:
        check(not revert_records(run, 1),
              f"step 1 was confirmed in time, the ramp went on to step 2, but step 1 was reverted behind its "
              f"back: {event_names(run)}")
        s.send("no\r")
        check_reverted_to_step_one(s, s.wait(10), reason="no")
    else:
        code = s.wait(10)
        check(code == 9 and re.search(r"reverted \(\w+\): iogpu\.wired_limit_mb = 0", s.output),
              f"the ramp neither went on to step 2 nor said it reverted step 1 (exit {code}, expected 9); "
              f"journal: {event_names(run)}")
    history = T.history()
    time.sleep(GUARD_GRACE_S + 1)
    check(T.history() == history, f"written after the ramp ended: {T.history()[len(history):]}")


def case_ctrl_c_during_probe_reverts_at_once():
    """Ctrl-C while step 2's --probe command still runs (it would run 30 s): the probe's whole
    process group is killed and the step reverted at once, not when the probe is done."""
    os.makedirs(os.path.join(T.work, "probe"), exist_ok=True)
    os.chmod(os.path.join(T.work, "probe"), 0o777)  # the probe runs as nobody under root
    d = os.path.join(T.work, "probe")
    probe = (f"n=$(cat {d}/count 2>/dev/null || echo 0); echo $((n + 1)) > {d}/count; "
             f"if [ $n -ge 1 ]; then echo $$ > {d}/pgid; /bin/sleep 30; fi; true")
    s = start_two_step("yes, then Ctrl-C during step 2's probe", "--probe", probe, "--probe-timeout", "30s")
    s.send("yes\r")
    pgid_file = os.path.join(d, "pgid")
    check(wait_until(lambda: os.path.exists(pgid_file) and open(pgid_file).read().strip(), 10) is not None,
          "step 2's probe never started")
    pgid = int(open(pgid_file).read())
    check(T.knob() == STEP2, f"step 2's probe runs but the knob is {T.knob()}")
    sent = time.monotonic()
    s.send("\x03")
    took = wait_until(lambda: T.knob() == STEP1, 5)
    check(took is not None and time.monotonic() - sent <= 2.0,
          f"the knob is {T.knob()} after Ctrl-C during the probe; expected {STEP1} within 2 s")
    check(s.wait(10) == 9, f"wiredcap exited {s.exit_code}, expected 9 (ramp reverted)")

    def group_alive():
        try:
            os.killpg(pgid, 0)
            return True
        except ProcessLookupError:
            return False
    check(wait_until(lambda: not group_alive(), 2) is not None, f"the probe's process group {pgid} is still running")
    run = run_id(s)
    reverts = revert_records(run, 2)
    check([r["event"] for r in reverts] == ["revert_intent", "revert_applied"] and
          all(r.get("reason") == "interrupt" for r in reverts), f"journal: step 2's revert records {reverts}")
    check(end_reason(run) == "reverted", f"end reason {end_reason(run)!r}, expected 'reverted'")


# ---- 7. no person, no ramp ------------------------------------------------------------------

def refused(label, shell):
    s = T.ramp(label, "--to", "96GiB", "--step", "16GiB", "--timeout", f"{TIMEOUT_S}s", shell=shell)
    code = s.wait(10)
    check(code == 2, f"{label}: exited {code}, expected 2 (usage)")
    check("standard input is not a terminal" in s.output, f"{label}: no 'standard input is not a terminal'")
    check("--unattended --check" in s.output, f"{label}: the way forward (--unattended --check) is not named")
    check("Ramp plan" not in s.output and "Keep it?" not in s.output,
          f"{label}: planned or asked although nobody is there")
    check(T.knob() == 0, f"{label}: knob {T.knob()}, expected 0 (unchanged)")
    check(T.history() == [], f"{label}: values written: {T.history()}, expected none")
    check(T.journal() == [], f"{label}: the journal has records: {T.journal()}")


def case_piped_yes_refused():
    refused("yes | wiredcap ramp", 'yes | "$@"')


def case_devnull_refused():
    refused("wiredcap ramp < /dev/null", '"$@" < /dev/null')


# ---- 8. the terminal's settings -------------------------------------------------------------

def raw_while_asking(s):
    during = s.termios_now()
    check(during != s.termios_before, "the prompt did not change the terminal's settings")
    check(not during[3] & termios.ECHO, "the terminal echoes while the prompt waits")
    return during


def settings_restored(s, label):
    after = s.termios_now()
    check(after == s.termios_before,
          f"{label}: terminal settings differ after the run:\n  before {s.termios_before}\n  after  {after}")


def case_terminal_settings_restored():
    s = start_two_step("yes, yes")
    raw_while_asking(s)
    s.send("yes\r")
    s.read_until(prompt(2, 2, STEP2), 10)
    s.send("yes\r")
    check(s.wait(10) == 0, f"yes/yes exited {s.exit_code}")
    settings_restored(s, "after yes, yes")

    T.build()
    s = start_two_step("Ctrl-C at step 1")
    raw_while_asking(s)
    s.send("\x03")
    check(s.wait(10) == 9, f"Ctrl-C exited {s.exit_code}, expected 9")
    settings_restored(s, "after Ctrl-C")

    T.build()
    s = start_two_step("SIGKILL at step 1")
    raw_while_asking(s)
    s.signal(signal.SIGKILL)
    s.wait(5)
    took = wait_until(lambda: s.termios_now() == s.termios_before, GUARD_GRACE_S + 2)
    check(took is not None, f"after SIGKILL the guard did not restore the terminal:\n  before {s.termios_before}\n"
          f"  after  {s.termios_now()}")


def case_ctrl_c_before_the_plan_restores_terminal():
    """Ctrl-C while wiredcap is still reading the machine (before the plan is shown, after the
    terminal was switched to raw mode): nothing was changed, and the terminal must be left as
    it was found."""
    slow = T.slow_helper(1)
    s = T.ramp("Ctrl-C while planning (slow helper)", "--to", "96GiB", "--step", "16GiB", "--timeout",
               f"{TIMEOUT_S}s", "--helper", slow)
    # A sanitized build on a loaded machine takes seconds to start; the slow helper keeps the
    # window between raw mode and the plan open however long the start took.
    raw = wait_until(lambda: s.termios_now() != s.termios_before, 20, interval=0.01)
    check(raw is not None, "wiredcap never changed the terminal's settings in 20 s")
    check("Ramp plan" not in s.read_for(0.2), "the plan was shown before the Ctrl-C (the helper is not slow)")
    s.send("\x03")
    code = s.wait(10)
    check(T.knob() == 0 and T.history() == [], f"Ctrl-C before the plan changed the knob: {T.history()}")
    check(s.termios_now() == s.termios_before,
          f"Ctrl-C before the plan (wiredcap ended with {code}) left the terminal changed "
          f"(raw, no echo):\n  before {s.termios_before}\n  after  {s.termios_now()}")


def case_typed_ahead_yes_does_not_confirm_the_next_step():
    """A second "yes" typed while step 1's confirmation and step 2's write are in progress
    (the helper is slowed down to make that moment long) is not an answer to step 2, which
    nobody has seen yet: only what is typed after a question is shown counts."""
    slow = T.slow_helper(0.5)
    s = start_two_step("yes, yes typed ahead (slow helper)", "--helper", slow)
    s.send("yes\r")
    s.read_for(0.3)
    check("Step 2/2" not in s.output, "step 2 was asked too soon to test typing ahead")
    s.send("yes\r")
    s.read_until(prompt(2, 2, STEP2), 10)
    s.read_for(1.0)
    check("ramp complete" not in s.output and s.exit_code is None,
          "the yes typed before step 2's question confirmed step 2")
    run = run_id(s)
    check(("confirmed", 2) not in event_names(run), f"journal: step 2 confirmed by typing ahead: {event_names(run)}")
    s.send("no\r")
    check_reverted_to_step_one(s, s.wait(15), reason="no")


# ---- 9. a hang, the reboot, recover ---------------------------------------------------------

def recover_account(text):
    """The lines of recover's account that must not change between runs."""
    return [line for line in text.splitlines()
            if line.startswith(("Hang ceiling:", "Last confirmed value:", "Nothing was re-applied", "iogpu."))]


def case_hang_story():
    T.sim("hang-above", "90GiB")
    s = T.ramp("hang at step 2", "--to", "112GiB", "--step", "16GiB", "--timeout", f"{TIMEOUT_S}s")
    s.read_until(prompt(1, 3, STEP1), 10)
    check(plan_steps(s.output) == [(1, STEP1), (2, STEP2), (3, STEP3)], f"plan {plan_steps(s.output)}")
    s.send("yes\r")
    code = s.wait(15)
    run = run_id(s)
    # The write of 96 GiB went in and hung the machine: the read-back fails, so the ramp
    # reports it, tries to revert (which the hung machine refuses) and exits with 6.
    check(re.search(rf"step 2: wrote {STEP2} MiB but could not read it back", s.output),
          "the failed read-back of step 2 is not reported")
    check("REVERT FAILED" in s.output and "wiredcap reset" in s.output,
          "the failed revert is not reported with the way out (wiredcap reset)")
    check("Step 2/3" not in s.output, "step 2 was put to a person although its read-back failed")
    check(code == 6, f"wiredcap ramp exited {code}, expected 6 (read-back differs)")
    state = json.loads(T.sim("show", "--json"))
    check(state["hung"] and state["knob_mib"] == STEP2, f"the simulated Mac should be hung at {STEP2}: {state}")

    T.sim("reboot")
    check(T.knob() == 0, "the reboot did not reset the knob")
    history = T.history()
    first = T.wc("recover")
    check(first.returncode == 0, f"recover exited {first.returncode}, expected 0")
    hang = re.search(rf"Hang ceiling: run {run} step 2 \({STEP2} MiB \(96\.00 GiB.*\) hung\.", unwrap(first.stdout))
    check(hang, f"recover does not name run {run} step 2 ({STEP2} MiB) as the hang ceiling")
    check(re.search(rf"Last confirmed value: run {run} step 1 \({STEP1} MiB", unwrap(first.stdout)),
          f"recover does not name step 1 ({STEP1} MiB) as the last confirmed value")
    check(f"wiredcap set {STEP1}MiB" in first.stdout, "recover does not give the command to set the last good value")
    check(re.search(r"iogpu\.wired_limit_mb now reads 0 \(OS default policy\)", unwrap(first.stdout)),
          "recover does not show the knob's value now")
    check(T.knob() == 0 and T.history() == history, "recover changed the knob (nothing may be re-applied)")
    ends = [r.get("reason") for e, _, r in events(run) if e == "end"]
    check(ends == ["hung"], f"recover recorded {ends} for the run, expected ['hung']")

    journal_lines = len(T.journal())
    second = T.wc("recover")
    check(second.returncode == 0, f"a second recover exited {second.returncode}, expected 0")
    check(recover_account(second.stdout) == recover_account(first.stdout),
          f"a second recover tells another story:\n{second.stdout}\nthan the first:\n{first.stdout}")
    check(len(T.journal()) == journal_lines, "a second recover wrote to the journal again")
    check(T.knob() == 0 and T.history() == history, "the second recover changed the knob")

    status = T.wc("status")
    check(status.returncode == 0, f"status exited {status.returncode}")
    check(re.search(rf"(?m)^.*hang ceiling\s+{STEP2} MiB \(96\.00 GiB.*step 2", unwrap(status.stdout)),
          "status does not show the hang ceiling (98304 MiB, step 2)")

    # A target above the ceiling is refused whole, never cut short, naming the step
    # below the ceiling that a ramp may reach, which is a plan the tool accepts.
    dry = T.wc("ramp", "--to", "112GiB", "--step", "16GiB", "--dry-run")
    check(dry.returncode == 3, f"ramp --dry-run above the hang ceiling exited {dry.returncode}, expected 3")
    check(re.search(rf"at or above {STEP2} MiB .*hung in run {run} step 2.*wiredcap ramp --to 80GiB"
                    r".*--ignore-hang-ceiling", unwrap(dry.stderr)), "the refusal does not say why, nor what to run")
    below = T.wc("ramp", "--to", "80GiB", "--dry-run")
    check(below.returncode == 0 and [v for _, v in plan_steps(below.stdout)] == [STEP1],
          f"the suggested ramp --to 80GiB exited {below.returncode}: plan {plan_steps(below.stdout)}")
    over = T.wc("ramp", "--to", "112GiB", "--step", "16GiB", "--dry-run", "--ignore-hang-ceiling")
    check(over.returncode == 0, f"ramp --dry-run --ignore-hang-ceiling exited {over.returncode}")
    check([v for _, v in plan_steps(over.stdout)] == [STEP1, STEP2, STEP3],
          f"with --ignore-hang-ceiling the plan is {plan_steps(over.stdout)}, expected it to include {STEP2}")
    check(T.history() == history, "a dry run wrote to the knob")


# ---- 10. --json ----------------------------------------------------------------------------

def check_against_schema(summary):
    """The answer as docs/schema/ publishes it, checked by the same validator as the goldens."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"ramp-summary-{os.getpid()}.json")
    with open(path, "w") as f:
        f.write(json.dumps(summary, separators=(",", ":")))
    r = subprocess.run([sys.executable, os.path.join(here, "..", "schema", "validate_json.py"),
                        os.path.join(here, "..", "..", "docs", "schema"), path], capture_output=True, text=True)
    os.unlink(path)
    check(r.returncode == 0, f"the summary does not match its schema: {r.stdout}{r.stderr}")


def check_summary(summary, run):
    check_against_schema(summary)
    check(summary.get("schema") == "wiredcap.ramp/2", f"schema {summary.get('schema')!r}")
    check(summary.get("run") == run, f"run {summary.get('run')!r}, expected {run}")
    check(summary.get("outcome") == "completed" and summary.get("exit") == 0, f"outcome/exit: {summary}")
    check(summary.get("before", {}).get("value") == 0, f"before: {summary.get('before')}")
    steps = summary.get("steps", [])
    check([(st.get("step"), st.get("requested_mib"), st.get("readback", {}).get("value"), st.get("answer"))
           for st in steps] == [(1, STEP1, STEP1, "yes"), (2, STEP2, STEP2, "yes")],
          f"steps: {steps}")
    check(all(st["readback"].get("source") == "kernel read-back" for st in steps), f"read-back sources: {steps}")
    check(summary.get("final", {}).get("value") == STEP2, f"final: {summary.get('final')}")


def case_json_summary():
    s = start_two_step("yes, yes with --json", "--json")
    s.send("yes\r")
    s.read_until(prompt(2, 2, STEP2), 10)
    s.send("yes\r")
    code = s.wait(10)
    check(code == 0, f"exited {code}, expected 0")
    lines = [line for line in render_screen(s.output).splitlines() if line.startswith("{")]
    check(lines, "no JSON object on the terminal")
    try:
        summary = json.loads(lines[-1])
    except json.JSONDecodeError as e:
        raise Failed(f"the last JSON line does not parse ({e}): {lines[-1]!r}") from e
    check_summary(summary, run_id(s))
    check(render_screen(s.output).rstrip().splitlines()[-1].startswith("{"), "the JSON object is not the last line")


def case_json_summary_to_a_file():
    """`wiredcap ramp --json > summary.json` with a person at the terminal: the data goes to the
    file, the plan and prompts to the terminal (docs/json-schema.md: "The narration, the plan
    table and the prompts go to the terminal (stderr)")."""
    out = os.path.join(T.work, "summary.json")
    s = T.ramp("--json > summary.json; yes, yes", "--to", "96GiB", "--step", "16GiB", "--timeout",
               f"{TIMEOUT_S}s", "--json", shell=f'"$@" > {out}')
    s.read_until(prompt(1, 2, STEP1), 10)
    check("Ramp plan" in s.output, "the plan is not on the terminal")
    s.send("yes\r")
    s.read_until(prompt(2, 2, STEP2), 10)
    s.send("yes\r")
    code = s.wait(10)
    check(code == 0, f"exited {code}, expected 0")
    with open(out) as f:
        text = f.read()
    check(text.count("\n") == 1, f"summary.json is not one JSON line: {text!r}")
    check_summary(json.loads(text), run_id(s))




def run_main(argv, cases, install_tree):
    """Runs the case argv[1] of `cases` on a fresh Tree, which install_tree(tree) makes the
    module's T; shared by every pty test script. Returns the exit code."""
    if len(argv) == 2 and argv[1] == "list":
        print("\n".join(cases))
        return 0
    if len(argv) != 5 or argv[1] not in cases:
        print(f"usage: {argv[0]} CASE WIREDCAP WIREDCAP_SIM WORKDIR   (cases: {', '.join(cases)})", file=sys.stderr)
        return 2
    tree = Tree(argv[2], argv[3], argv[4])
    install_tree(tree)
    started = time.monotonic()
    try:
        tree.build()
        cases[argv[1]]()
    except Exception as e:  # noqa: BLE001 - Failed, PtyTimeout from the driver, or a crash here
        print(tree.report(), file=sys.stderr)
        if not isinstance(e, AssertionError):
            traceback.print_exc()
        print(f"FAIL {argv[1]} ({time.monotonic() - started:.1f} s): {e}", file=sys.stderr)
        return 1
    finally:
        for _, s in tree.sessions:
            s.kill()
            s.close()
    print(f"PASS {argv[1]} ({time.monotonic() - started:.1f} s)")
    return 0


def run_script(module_globals, argv):
    """The whole main of a pty test script: its case_* functions, run with its module's T set
    to the case's Tree."""
    cases = {name[len("case_"):]: f for name, f in sorted(module_globals.items()) if name.startswith("case_")}

    def install_tree(tree):
        module_globals["T"] = tree

    return run_main(argv, cases, install_tree)


if __name__ == "__main__":
    sys.exit(run_script(globals(), sys.argv))
