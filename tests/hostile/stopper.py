#!/usr/bin/env python3
"""Test tool: a group member's attempt to stop its own setuid helper while it holds a lock.

    stopper.py --report FILE [--tries N] [--hold S] -- HELPER ARGS...

Run as the member (setpriv). Starts HELPER ARGS as a child and watches /proc/locks (readable by
everyone) for a lock held by the child's pid: at that moment it sends SIGSTOP, then tries
SIGTERM, SIGKILL, SIGHUP and SIGCONT the same way. Each attempt is written to the report as
"SIGNAME ok", "SIGNAME EPERM" or "SIGNAME gone" (the helper had already exited); "STOP unlocked":
stopped, but holding no lock any more (it had finished and given root back before the signal). A stopped helper is kept stopped for --hold seconds, then
continued (the test ends it). A run that ends before any lock was seen is tried again, up to
--tries times. The report's first line is "locked PID" or "never-locked". Exit 0 always once
the report is written: the test reads the report, not the exit status.
"""
import argparse
import os
import signal
import subprocess
import sys
import time


def holds_a_lock(pid):
    with open("/proc/locks", encoding="ascii") as locks:
        for line in locks:
            fields = line.split()
            # "1: FLOCK  ADVISORY  WRITE 12345 08:01:1234 0 EOF"; blocked waiters ("->") skipped
            if len(fields) > 4 and fields[1] != "->" and fields[4] == str(pid):
                return True
    return False


def state(pid):
    """The process's state letter from /proc/PID/stat (T stopped, Z exited), or None."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def try_signal(pid, sig):
    try:
        os.kill(pid, sig)
    except PermissionError:
        return "EPERM"
    except ProcessLookupError:
        return "gone"
    # kill(2) succeeds on a child that has exited and is not yet reaped: that is no success.
    if sig == signal.SIGSTOP:
        time.sleep(0.05)
        if state(pid) != "T":
            return "gone"
    return "ok" if state(pid) not in (None, "Z") else "gone"


def one_try(helper_argv, report, hold):
    child = subprocess.Popen(helper_argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while child.poll() is None:
        if holds_a_lock(child.pid):
            stop = try_signal(child.pid, signal.SIGSTOP)
            # Stopped, but holding no lock any more: the helper had finished, released the lock
            # and given root back to its caller (as it must, to answer) before the signal came.
            if stop == "ok" and not holds_a_lock(child.pid):
                stop = "unlocked"
            lines = [f"locked {child.pid}", f"STOP {stop}"]
            stopped = stop in ("ok", "unlocked")
            if stopped:
                time.sleep(hold)
            for name in ("TERM", "HUP", "KILL"):
                # Only tried on a helper it could not stop: a stopped one must keep its lock.
                if not stopped:
                    lines.append(f"{name} {try_signal(child.pid, getattr(signal, 'SIG' + name))}")
            lines.append(f"CONT {try_signal(child.pid, signal.SIGCONT)}")
            with open(report, "w", encoding="ascii") as out:
                out.write("\n".join(lines) + "\n")
            child.wait()
            return True
    return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--report", required=True)
    parser.add_argument("--tries", type=int, default=20)
    parser.add_argument("--hold", type=float, default=3.0)
    parser.add_argument("helper", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    argv = args.helper[1:] if args.helper[:1] == ["--"] else args.helper
    if not argv:
        parser.error("no helper command given")
    for _ in range(args.tries):
        if one_try(argv, args.report, args.hold):
            return 0
    with open(args.report, "w", encoding="ascii") as out:
        out.write("never-locked\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
