"""The ramp's revert promise under every way a session can end, on a loaded machine.

    python3 revert_stress.py WIREDCAP WIREDCAP_SIM WORKDIR [--runs N] [--jobs J] [--budget S]
                             [--ways a,b,...]

Each run: a fresh simulated Mac (m2ultra-192, band 64..176 GiB, steps of 16 GiB) and journal of
its own under WORKDIR/<way>-<n>, `wiredcap ramp --to 96GiB --step 16GiB --timeout 3s` on a real
terminal, `yes` at step 1 (80 GiB, confirmed), then, while step 2 (96 GiB) awaits its answer,
the session ends one way:

  tmux_kill        the terminal session killed (tmux kill-session; wiredcap runs as a job of an
                   interactive bash in the pane, so bash's SIGHUP to its job comes too)
  sighup_group     SIGHUP to the terminal's foreground process group
  close_master     the pty master closed (the kernel hangs the terminal up)
  sigkill          SIGKILL to wiredcap
  sigkill_mid_call SIGKILL to wiredcap and to the helper while it applies step 2 (the simulator
                   stalls after the write, so the value is in force and nobody read it back)
  sigterm          SIGTERM to wiredcap
  probe_running    SIGHUP to the foreground group while step 2's --probe command still runs

Every core is kept busy meanwhile (`yes > /dev/null` per core, stopped at the end). Asserted
from the simulator's state and write history and from the journal, never from what was printed:
the knob returns to the last confirmed value (80 GiB) within the timeout plus the guard's grace
of the moment the session ended; nothing but that value is written after step 2; the revert
that took is wiredcap's own when wiredcap outlived the session's end, the guard's when it was
killed; the run has
exactly one `end`, it is its last record, says `reverted`, and its read-back is what the kernel
holds; no process of the run is left (wiredcap, its guard, the helper, the probe's group).

Prints the counts per way of ending. Exit 0 only if every run passed within --budget seconds.
Standard library only; tmux for tmux_kill.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pty"))
from pty_driver import PtySession  # noqa: E402

TIMEOUT_S = 3                 # --timeout of every ramp here
GUARD_GRACE_S = 3             # ramp/include/wiredcap/ramp/guard.hpp kGuardGrace
PROMISE_S = TIMEOUT_S + GUARD_GRACE_S
STEP1, STEP2 = 81920, 98304   # 80 GiB (confirmed), 96 GiB (the step that must be undone)
POLICY = "min = 64GiB\nmax = 176GiB\nreserve = 16GiB\nmax_step = 16GiB\n"
WAYS = ["tmux_kill", "sighup_group", "close_master", "sigkill", "sigkill_mid_call", "sigterm", "probe_running"]
# The reason of the revert that must take: wiredcap's own (its answer's name) or the guard's.
WHO_REVERTS = {"tmux_kill": "hangup", "sighup_group": "hangup", "close_master": "hangup", "sigkill": "guard",
               "sigkill_mid_call": "guard", "sigterm": "terminate", "probe_running": "hangup"}
STALL_MS = 20000              # the stall that holds the helper mid-call (it is killed long before)
# One tmux server per run (-L, a socket of its own): with one server for all, a run's
# kill-session that ended the server's last session raced another run's new-session, which
# failed with "server exited unexpectedly" (1 run in 350, CI, 2026-12-02).
TMUX_SOCKET = f"wiredcap-stress-{os.getpid()}"
TMUX_SOCKETS_USED = set()


class Failed(AssertionError):
    pass


def check(cond, msg):
    if not cond:
        raise Failed(msg)


def wait_for(pred, seconds, interval=0.02):
    """Polls until pred() holds; returns the seconds it took, or None."""
    start = time.monotonic()
    while True:
        if pred():
            return time.monotonic() - start
        if time.monotonic() - start > seconds:
            return None
        time.sleep(interval)


# ---- one run's world -------------------------------------------------------------------------

class Run:
    def __init__(self, args, way, n):
        self.a = args
        self.way = way
        self.work = os.path.join(os.path.abspath(args.workdir), f"{way}-{n}")
        self.policy = os.path.join(self.work, "etc", "wiredcap.conf")
        self.journal = os.path.join(self.work, "journal", "journal.jsonl")
        self.state = os.path.join(self.work, "sim-state")
        self.tmux_name = f"s{n}-{way}"
        self.session = None

    def build(self):
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(os.path.join(self.work, "etc"))
        for d in (self.work, os.path.join(self.work, "etc")):
            os.chmod(d, 0o755)
        os.mkdir(os.path.join(self.work, "probe"))
        os.chmod(os.path.join(self.work, "probe"), 0o777)
        with open(self.policy, "w") as f:
            f.write(POLICY)
        # The helper through a wrapper that takes 0.4 s to start it for a revert: a setuid exec on
        # a loaded machine can be that slow, and it is the moment a hangup's SIGHUP (the kernel's,
        # then the shell's) must not reach it. The wait is Python's, not a shell's: a shell
        # waiting for a child unblocks every signal (sigsuspend), which would let in a SIGHUP the
        # spawn blocked; the helper itself never unblocks one.
        real = os.path.join(os.path.dirname(self.a.wiredcap), "wiredcap-helper")
        wait = ("import os, sys, time; time.sleep(0.4); "
                f"os.execv({real!r}, [{real!r}] + sys.argv[1:])")
        with open(self.slow_helper(), "w") as f:
            f.write('#!/bin/sh\nfor a in "$@"; do if [ "$a" = --revert ]; then\n'
                    f'  exec {sys.executable} -S -c "{wait}" "$@"; fi; done\n'
                    f'exec "{real}" "$@"\n')
        os.chmod(self.slow_helper(), 0o755)
        os.chmod(self.policy, 0o644)
        self.sim("init", "--profile", "m2ultra-192")
        # A Mac whose OS default is the band's floor, so the 80 and 96 GiB steps are raises
        # (a ramp only plans above the effective cap), as in tests/pty.
        self.sim("default-cap", "64GiB")

    def sim(self, *args):
        p = subprocess.run([self.a.sim, "--state", self.state, *args], capture_output=True, text=True, timeout=30)
        check(p.returncode == 0, f"wiredcap-sim {' '.join(args)}: {p.stderr.strip()}")
        return p.stdout

    def knob(self):
        """The knob as wiredcap-sim reports it (the final word in every assertion)."""
        return json.loads(self.sim("show", "--json"))["knob_mib"]

    def knob_now(self):
        """The knob from the state file itself, for polling without a process per look (the
        simulator replaces the file atomically, so a read sees one whole state)."""
        with open(self.state) as f:
            m = re.search(r"(?m)^knob_mib=(\d+)$", f.read())
        return int(m.group(1)) if m else None

    def history(self):
        return [int(m) for m in re.findall(r"(?m)^\s*(\d+) MiB\s*$", self.sim("history"))]

    def records(self):
        if not os.path.exists(self.journal):
            return []
        out = []
        with open(self.journal) as f:
            for line in f.read().splitlines():
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    pass  # a torn last line: readers ignore it too
        return out

    def slow_helper(self):
        return os.path.join(self.work, "slow-helper")

    def argv(self, extra=()):
        return [self.a.wiredcap, "ramp", "--to", "96GiB", "--step", "16GiB", "--timeout", f"{TIMEOUT_S}s", *extra,
                "--helper", self.slow_helper(),
                "--policy", self.policy, "--journal", self.journal, "--sim-state", self.state]

    def probe_args(self):
        if self.way != "probe_running":
            return []
        # The probe records its process group (it leads it) so the test can see it was killed.
        # It runs as nobody when wiredcap runs as root: its directory is open to it.
        # Step 1's probe passes at once; step 2's is still running when the session ends.
        d = os.path.dirname(self.probe_file())
        cmd = (f"n=$(cat {d}/count 2>/dev/null || echo 0); echo $((n + 1)) > {d}/count; "
               f"if [ $n -ge 1 ]; then echo $$ > {self.probe_file()}; /bin/sleep 30; fi; true")
        return ["--probe", cmd, "--probe-timeout", "30s"]

    # -- processes of this run: everything whose command line names its work directory, and
    #    the probe's process group

    def own_pids(self):
        pids = []
        probe_pg = self.probe_pgid()
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmd = f.read().decode(errors="replace")
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if fields[0] == "Z":
                continue
            # work + "/": run 1 must not match run 18's processes.
            if self.work + "/" in cmd or (probe_pg is not None and int(fields[2]) == probe_pg):
                pids.append(int(entry))
        return pids

    def probe_file(self):
        return os.path.join(self.work, "probe", "pgid")

    def probe_pgid(self):
        try:
            with open(self.probe_file()) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def helper_pid(self, parent):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            comm = stat[stat.index("(") + 1:stat.rindex(")")]
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            if ppid == parent and comm.startswith("wiredcap-helpe"):
                return int(entry)
        return None

    def cleanup(self):
        for pid in self.own_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if self.session is not None:
            self.session.kill()
            self.session.close()
        if self.way == "tmux_kill":
            tmux(self, "kill-session", "-t", self.tmux_name, check_rc=False)


def tmux_socket(r):
    return f"{TMUX_SOCKET}-{r.tmux_name}"


def remove_tmux_socket_file(socket):
    """A killed tmux server leaves its socket file behind (one per tmux_kill run otherwise)."""
    folder = os.path.join(os.environ.get("TMUX_TMPDIR", "/tmp"), f"tmux-{os.getuid()}")
    try:
        os.unlink(os.path.join(folder, socket))
    except FileNotFoundError:
        pass


def tmux(r, *args, check_rc=True):
    TMUX_SOCKETS_USED.add(tmux_socket(r))
    p = subprocess.run(["tmux", "-L", tmux_socket(r), *args], capture_output=True, text=True, timeout=30)
    if check_rc:
        check(p.returncode == 0, f"tmux {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout


# ---- driving a ramp to step 2's question -------------------------------------------------------

STEP1_Q = re.compile(r"Step 1/2 at 81920 MiB\. Keep it\?")
STEP2_Q = re.compile(r"Step 2/2 at 98304 MiB\. Keep it\?")


def to_step_two_pty(r):
    """On a pty of our own; returns when step 2's value is in force (and asked about, or, for
    probe_running, while its probe runs; for sigkill_mid_call, while the helper stalls)."""
    r.session = PtySession(r.argv(r.probe_args()))
    s = r.session
    s.read_until(STEP1_Q, 20)
    if r.way == "sigkill_mid_call":
        r.sim("fault", "stall-after-write", str(STALL_MS))
    s.send("yes\r")
    if r.way == "sigkill_mid_call":
        check(wait_for(lambda: r.knob_now() == STEP2, 20), "step 2's write never happened")
        return
    if r.way == "probe_running":
        check(wait_for(lambda: r.probe_pgid() is not None, 20), "step 2's probe never started")
        check(r.knob() == STEP2, f"step 2's probe runs but the knob is {r.knob()}")
        return
    s.read_until(STEP2_Q, 20)


def to_step_two_tmux(r):
    tmux(r, "new-session", "-d", "-s", r.tmux_name, "-x", "160", "-y", "50",
         "env -i PATH=/usr/bin:/bin TERM=xterm HOME=/ bash --norc --noprofile -i")
    cmd = " ".join(r.argv())
    tmux(r, "send-keys", "-t", r.tmux_name, cmd, "Enter")
    screen = lambda: tmux(r, "capture-pane", "-p", "-t", r.tmux_name, check_rc=False)  # noqa: E731
    # Each look is a tmux client process: a few a second is enough for a 3 s question.
    check(wait_for(lambda: STEP1_Q.search(screen()), 20, 0.2), f"no step 1 question in tmux:\n{screen()}")
    tmux(r, "send-keys", "-t", r.tmux_name, "yes", "Enter")
    check(wait_for(lambda: STEP2_Q.search(screen()), 20, 0.2), f"no step 2 question in tmux:\n{screen()}")


# ---- the ways a session ends ----------------------------------------------------------------

def end_session(r):
    s = r.session
    if r.way == "tmux_kill":
        tmux(r, "kill-session", "-t", r.tmux_name)
    elif r.way in ("sighup_group", "probe_running"):
        # The kernel's hangup, then a moment later the shell's to its job, while wiredcap's
        # revert is starting.
        group = os.tcgetpgrp(s.master)
        os.killpg(group, signal.SIGHUP)
        time.sleep(0.2)
        try:
            os.killpg(group, signal.SIGHUP)
        except ProcessLookupError:
            pass
    elif r.way == "close_master":
        s.hangup()
    elif r.way == "sigkill":
        s.signal(signal.SIGKILL)
    elif r.way == "sigterm":
        s.signal(signal.SIGTERM)
    elif r.way == "sigkill_mid_call":
        helper = r.helper_pid(s.pid)
        check(helper is not None, "no helper call in flight to kill")
        # Cleared first: the held helper already sleeps, and the guard's revert must not stall.
        r.sim("fault", "stall-after-write", "off")
        s.signal(signal.SIGKILL)
        os.kill(helper, signal.SIGKILL)


# ---- what must hold afterwards ----------------------------------------------------------------

def assert_promise(r, ended_at):
    took = wait_for(lambda: r.knob_now() == STEP1, PROMISE_S + 1)
    check(took is not None and time.monotonic() - ended_at <= PROMISE_S + 0.5,
          f"the knob is {r.knob()} MiB {PROMISE_S} s after the session ended, expected {STEP1}")
    # The end record first (a cheap file read), then the process table (a walk of /proc).
    check(wait_for(lambda: any(x["event"] == "end" for x in r.records()), PROMISE_S + 10, 0.05) is not None,
          "the run never recorded its end")
    check(wait_for(lambda: not r.own_pids(), PROMISE_S + 10, 0.25) is not None,
          f"processes of the run are left: {r.own_pids()}")
    check(r.knob() == STEP1, f"the knob moved again to {r.knob()} MiB after the revert")
    hist = r.history()
    check(hist[:2] == [STEP1, STEP2] and len(hist) >= 3 and set(hist[2:]) == {STEP1},
          f"write history {hist}: expected {STEP1}, {STEP2}, then only {STEP1}")
    recs = [x for x in r.records() if x.get("run")]
    runs = {x["run"] for x in recs}
    check(len(runs) == 1, f"journal runs {runs}")
    ends = [x for x in recs if x["event"] == "end"]
    check(len(ends) == 1, f"{len(ends)} end records: {ends}")
    last = recs[-1]
    check(last["event"] == "end", f"the run's last record is {last}, not its end")
    check(last.get("reason") == "reverted", f"the end says {last.get('reason')!r}, expected 'reverted'")
    check(last.get("readback_mib") == r.knob(),
          f"the end reads back {last.get('readback_mib')}, the kernel holds {r.knob()}")
    # Who reverted: wiredcap itself whenever it outlived the end of the session (its helper call
    # out of the hangup's reach), the guard when wiredcap was killed.
    reasons = [x.get("reason") for x in recs if x["event"] == "revert_applied" and x.get("step") == 2]
    check(reasons == [WHO_REVERTS[r.way]],
          f"step 2's completed reverts have reasons {reasons}, expected [{WHO_REVERTS[r.way]!r}]")
    check(any(x["event"] == "confirmed" and x.get("step") == 1 for x in recs), "step 1 was never confirmed")
    check(not any(x["event"] == "confirmed" and x.get("step") == 2 for x in recs), "step 2 was confirmed")
    return took


def one_run(args, way, n):
    r = Run(args, way, n)
    try:
        r.build()
        if way == "tmux_kill":
            to_step_two_tmux(r)
        else:
            to_step_two_pty(r)
        ended_at = time.monotonic()
        end_session(r)
        took = assert_promise(r, ended_at)
        if args.keep is False:
            shutil.rmtree(r.work, ignore_errors=True)
        return way, None, took
    except Exception as e:  # noqa: BLE001 - every failure is reported with its run
        journal = ""
        if os.path.exists(r.journal):
            with open(r.journal) as f:
                journal = f.read()
        screen = r.session.output[-600:] if r.session is not None else ""
        return way, f"{r.work}: {e}\n  journal:\n{journal}\n  screen tail: {screen!r}", None
    finally:
        r.cleanup()


# ---- load --------------------------------------------------------------------------------------

def busy_cores():
    return [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(os.cpu_count() or 1)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("wiredcap")
    p.add_argument("sim")
    p.add_argument("workdir")
    p.add_argument("--runs", type=int, default=2, help="runs per way of ending")
    p.add_argument("--jobs", type=int, default=4, help="runs at a time")
    p.add_argument("--budget", type=float, default=180, help="seconds the whole stress may take")
    p.add_argument("--ways", default=",".join(WAYS))
    p.add_argument("--keep", action="store_true", help="keep the work directories of passing runs")
    args = p.parse_args()
    ways = [w for w in args.ways.split(",") if w]
    unknown = set(ways) - set(WAYS)
    if unknown:
        sys.exit(f"unknown ways: {sorted(unknown)}; known: {WAYS}")
    args.wiredcap = os.path.abspath(args.wiredcap)
    args.sim = os.path.abspath(args.sim)

    jobs = [(w, n) for n in range(args.runs) for w in ways]
    counts = {w: [0, 0] for w in ways}  # passed, failed
    worst = {w: 0.0 for w in ways}
    failures = []
    lock = threading.Lock()
    load = busy_cores()
    start = time.monotonic()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for way, failure, took in pool.map(lambda j: one_run(args, *j), jobs):
                with lock:
                    counts[way][0 if failure is None else 1] += 1
                    if failure:
                        failures.append(failure)
                    elif took is not None:
                        worst[way] = max(worst[way], took)
    finally:
        for y in load:
            y.kill()
            y.wait()
        for socket in TMUX_SOCKETS_USED:
            subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)
            remove_tmux_socket_file(socket)
    elapsed = time.monotonic() - start

    print(f"revert promise stress: {len(jobs)} runs, {args.jobs} at a time, {len(load)} cores kept busy, "
          f"{elapsed:.1f} s (budget {args.budget:.0f} s)")
    print(f"  {'way of ending':<18}{'passed':>8}{'failed':>8}  slowest revert after the end (promise {PROMISE_S} s)")
    for w in ways:
        print(f"  {w:<18}{counts[w][0]:>8}{counts[w][1]:>8}  {worst[w]:.2f} s")
    for f in failures:
        print("FAIL " + f)
    over = elapsed > args.budget
    if over:
        print(f"FAIL: took {elapsed:.1f} s, over the budget of {args.budget:.0f} s")
    return 1 if failures or over else 0


if __name__ == "__main__":
    sys.exit(main())
