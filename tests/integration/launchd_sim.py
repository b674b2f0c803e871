#!/usr/bin/env python3
"""A small model of launchd for the simulated Mac: it runs the boot LaunchDaemon's job.

It reads the REAL property list (packaging/macos/org.wiredcap.boot.plist) with plistlib and runs
its ProgramArguments as launchd would run a daemon: as root, with stdin from /dev/null, the
working directory /, and an environment with nothing but a PATH (a sanitizer's *SAN_OPTIONS pass
through, so a sanitized build stays checked). The one thing it changes: the installed program path
(ProgramArguments[0], root's wiredcap-system) becomes the build's, with the development options
that point it at the test's tree inserted before the command word:

    /usr/local/libexec/wiredcap/wiredcap-system boot-action
 -> BUILD/wiredcap-system --policy P --journal J --sim-state S boot-action

Commands (each job run prints the helper's one JSON line on stdout, its messages on stderr):

  boot            the Mac starts: `wiredcap-sim reboot`, then launchd loads the job and, since
                  RunAtLoad is true, runs it once. The job REPLACES this process (exec), as a
                  launchd job is its own process: a test may kill the PID it started.
  tick            StartInterval elapsed once: runs the job once (exec, as for boot). The uptime
                  does not move (use wait for that).
  wait DURATION   the Mac stays up DURATION (digits and s or m, as wiredcap-sim takes it): for
                  each whole StartInterval in it, `wiredcap-sim advance StartInterval`, then one
                  run of the job, as launchd runs it every StartInterval seconds while the uptime
                  grows; then the remainder is advanced without a run. So `wait 11m` with
                  StartInterval 60 is 11 runs, the last at 660 s more uptime; a DURATION shorter
                  than StartInterval runs the job zero times.
  check           only the checks below, and the command line the job would run.

The job is refused (exit 65, nothing run, the simulator untouched) unless the plist is a dict
with a Label, RunAtLoad the boolean true, StartInterval a positive integer, ProgramArguments a
list of strings whose first is the installed wiredcap-system and whose second is "boot-action", no
Program key that would override it, no Disabled true, and no UserName but root: a broken plist
fails the scenario that runs it, not only the plist's own lint test.

Exit status: boot/tick: the job's own. wait: 0 when every run exited 0, else the first
nonzero status. 2 usage, 65 plist refused, 70 wiredcap-sim failed.

  launchd_sim.py --plist PLIST --system SYSTEM --sim SIM --policy P --journal J --sim-state S COMMAND [DURATION]
"""
import argparse
import os
import plistlib
import re
import subprocess
import sys

INSTALLED_SYSTEM = "/usr/local/libexec/wiredcap/wiredcap-system"
EX_PLIST = 65
EX_SIM = 70


def die(code, message):
    print("launchd_sim: " + message, file=sys.stderr)
    sys.exit(code)


def load_job(path):
    """The validated plist as a dict, or exit EX_PLIST saying what is wrong."""
    try:
        with open(path, "rb") as f:
            job = plistlib.load(f)
    except (OSError, plistlib.InvalidFileException, ValueError) as e:
        die(EX_PLIST, f"{path}: not a property list: {e}")
    problems = []
    if not isinstance(job, dict):
        die(EX_PLIST, f"{path}: the top level is a {type(job).__name__}, not a dict")
    if not isinstance(job.get("Label"), str) or not job["Label"]:
        problems.append("no Label")
    if job.get("RunAtLoad") is not True:
        problems.append(f"RunAtLoad is {job.get('RunAtLoad')!r}, not true: the job would not run at boot")
    interval = job.get("StartInterval")
    if not isinstance(interval, int) or isinstance(interval, bool) or interval <= 0:
        problems.append(f"StartInterval is {interval!r}, not a positive integer: the job would never run again "
                        "in a boot to mark the value healthy")
    args = job.get("ProgramArguments")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args) or len(args) < 2:
        problems.append(f"ProgramArguments is {args!r}, not a list of at least two strings")
    else:
        if args[0] != INSTALLED_SYSTEM:
            problems.append(f"ProgramArguments[0] is {args[0]!r}, not the installed {INSTALLED_SYSTEM}")
        if args[1] != "boot-action":
            problems.append(f"ProgramArguments[1] is {args[1]!r}, not 'boot-action'")
    if "Program" in job and job["Program"] != INSTALLED_SYSTEM:
        problems.append(f"Program {job['Program']!r} would be run instead of ProgramArguments[0]")
    if job.get("Disabled") is True:
        problems.append("Disabled is true: launchd would not load the job")
    if job.get("UserName", "root") != "root":
        problems.append(f"UserName is {job['UserName']!r}: the boot action is root-only")
    if problems:
        die(EX_PLIST, f"{path}: refusing to run the job: " + "; ".join(problems))
    return job


def parse_duration(text):
    m = re.fullmatch(r"([0-9]+)([sm])", text)
    if not m or (len(m.group(1)) > 1 and m.group(1)[0] == "0"):
        die(2, f"bad DURATION {text!r}: digits and s or m, e.g. 90s or 11m")
    return int(m.group(1)) * (60 if m.group(2) == "m" else 1)


def main():
    p = argparse.ArgumentParser(prog="launchd_sim.py", description="a model of launchd for the simulated Mac")
    for opt in ("--plist", "--system", "--sim", "--policy", "--journal", "--sim-state"):
        p.add_argument(opt, required=True)
    p.add_argument("command", choices=("boot", "tick", "wait", "check"))
    p.add_argument("duration", nargs="?")
    a = p.parse_args()
    if (a.command == "wait") != (a.duration is not None):
        die(2, "wait takes a DURATION; the other commands take none")

    job = load_job(a.plist)
    if os.geteuid() != 0:
        die(EX_PLIST, "a LaunchDaemon runs as root; run this model as root")
    argv = [a.system, "--policy", a.policy, "--journal", a.journal, "--sim-state", a.sim_state]
    argv += job["ProgramArguments"][1:]
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin"}
    env.update({k: v for k, v in os.environ.items() if re.fullmatch(r"[A-Z]+SAN_OPTIONS", k)})

    def sim(*words):
        r = subprocess.run([a.sim, "--state", a.sim_state, *words], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL)
        if r.returncode != 0:
            die(EX_SIM, f"wiredcap-sim {' '.join(words)} failed (exit {r.returncode})")

    def run_job():
        sys.stdout.flush()
        rc = subprocess.run(argv, stdin=subprocess.DEVNULL, cwd="/", env=env).returncode
        return 128 - rc if rc < 0 else rc  # killed by a signal: as a shell reports it

    def exec_job():
        sys.stdout.flush()
        sys.stderr.flush()
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.chdir("/")
        os.execve(argv[0], argv, env)

    if a.command == "check":
        print(" ".join(argv))
        return 0
    if a.command == "boot":
        sim("reboot")
        exec_job()
    if a.command == "tick":
        exec_job()
    # wait
    interval = job["StartInterval"]
    total = parse_duration(a.duration)
    status = 0
    for _ in range(total // interval):
        sim("advance", f"{interval}s")
        rc = run_job()
        if rc != 0:
            print(f"launchd_sim: the job exited {rc}", file=sys.stderr)
            status = status or rc
    if total % interval:
        sim("advance", f"{total % interval}s")
    return status


if __name__ == "__main__":
    sys.exit(main())
