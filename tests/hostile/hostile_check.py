#!/usr/bin/env python3
"""Checks for the hostile-caller suite (stdlib only).

  hostile_check.py journal FILE [--never-to MIB] [--allow-interrupted]
      Every line of the helper's journal is one complete JSON record (schema v1, ASCII, ends in
      a newline: no torn record); every intent is followed by its outcome (the same command, uid,
      run, step and to_mib), and every outcome follows its intent. With --allow-interrupted an
      intent may be the very last record (a run stopped between intent and outcome: `wiredcap
      recover` reports it). --never-to MIB: no intent or outcome ever names that value.

  hostile_check.py concurrent FILE CALLS BOUND
      The journal after many helpers ran at once, each call with its own run id. CALLS has one
      line per call: "RUN COMMAND EXIT FLAGS", FLAGS a comma-separated subset of unlocked (it
      went on without the helper's lock), applied-unrecorded (exit 12 after the write: the
      intent stands alone), reset-stands (an apply that backed off, exit 4, because a reset went
      on without the lock meanwhile), open-step (an apply refused, exit 10, while another run's
      step was open), lost-EVENT (a reset that could not record EVENT), or "-". The
      journal is at most BOUND bytes, every line is one complete record, each call left exactly
      the records its answer implies, and the records of every call that held the lock are
      adjacent: intent, then its outcome.

  hostile_check.py opens STRACE_LOG HELPER
      The files the helper process opened (or tried to), from `strace -f -y -o LOG -e
      trace=open,openat,openat2,creat,execve`, from its execve of HELPER on: one normalised line
      per distinct (call, path, flags, result), sorted. A later execve (the helper running
      anything) is listed too, as "execve PATH".
"""
import json
import re
import sys

OUTCOMES = {
    "intent": {"applied", "mismatch", "write_failed"},
    "revert_intent": {"revert_applied", "revert_mismatch", "revert_write_failed"},
}
ALL_OUTCOMES = set().union(*OUTCOMES.values())
REQUIRED = ("v", "time", "boot", "uid", "command", "event")


def fail(msg):
    print(f"hostile_check: {msg}", file=sys.stderr)
    sys.exit(1)


def check_journal(path, never_to, allow_interrupted):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        data = b""  # no journal yet: nothing was recorded, so nothing can be torn
    if data and not data.endswith(b"\n"):
        fail(f"{path}: the last record is torn (no final newline): {data[-120:]!r}")
    records = []
    for n, raw in enumerate(data.split(b"\n")[:-1], start=1):
        try:
            text = raw.decode("ascii")
            rec = json.loads(text)
        except (UnicodeDecodeError, ValueError) as e:
            fail(f"{path}:{n}: not a complete JSON record ({e}): {raw[:200]!r}")
        if not isinstance(rec, dict) or any(k not in rec for k in REQUIRED) or rec["v"] != 1:
            fail(f"{path}:{n}: not a schema-1 journal record: {text[:200]}")
        if never_to is not None and rec.get("to_mib") == never_to and rec["event"] != "refused":
            fail(f"{path}:{n}: the forbidden value {never_to} MiB got as far as '{rec['event']}': {text}")
        records.append((n, rec))

    def same_action(a, b):
        return all(a.get(k) == b.get(k) for k in ("command", "uid", "run", "step", "to_mib", "boot"))

    interrupted = 0
    for i, (n, rec) in enumerate(records):
        ev = rec["event"]
        if ev in OUTCOMES:
            if i + 1 == len(records):
                if not allow_interrupted:
                    fail(f"{path}:{n}: an intent without its outcome: {json.dumps(rec)}")
                interrupted += 1
                continue
            nxt = records[i + 1][1]
            if nxt["event"] not in OUTCOMES[ev] or not same_action(rec, nxt):
                fail(f"{path}:{n}: an intent whose outcome is missing; next record: {json.dumps(nxt)}")
        elif ev in ALL_OUTCOMES:
            prev = records[i - 1][1] if i > 0 else None
            if prev is None or prev["event"] not in OUTCOMES or ev not in OUTCOMES[prev["event"]] or not same_action(prev, rec):
                fail(f"{path}:{n}: an outcome without its intent: {json.dumps(rec)}")
    counts = {}
    for _, rec in records:
        counts[rec["event"]] = counts.get(rec["event"], 0) + 1
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"journal: {len(records)} complete records ({summary}); {interrupted} interrupted")


def read_records(path):
    with open(path, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        fail(f"{path}: the last record is torn (no final newline): {data[-120:]!r}")
    records = []
    for n, raw in enumerate(data.split(b"\n")[:-1], start=1):
        try:
            rec = json.loads(raw.decode("ascii"))
        except (UnicodeDecodeError, ValueError) as e:
            fail(f"{path}:{n}: not a complete JSON record ({e}): {raw[:200]!r}")
        if not isinstance(rec, dict) or any(k not in rec for k in REQUIRED) or rec["v"] != 1:
            fail(f"{path}:{n}: not a schema-1 journal record: {raw[:200]!r}")
        records.append((n, rec))
    return data, records


def expected_events(command, rc, flags, events):
    """The events a call's answer implies, given the outcome events it actually left."""
    outcome = [e for e in events if e in ("applied", "unchanged")]
    if rc == 0:
        unchanged = outcome == ["unchanged"] or "lost-unchanged" in flags
        want = ["unchanged"] if unchanged else ["intent", "applied"]
        return [e for e in want if f"lost-{e}" not in flags]
    if rc == 12 and command == "apply":
        return ["intent"] if "applied-unrecorded" in flags else []
    if rc == 10 and command == "apply" and "open-step" in flags:
        return ["refused"] if events else []  # a member's refusal names no run: counted apart
    if rc == 4 and command == "apply" and "reset-stands" in flags:
        # Refused before its write (a member's refusal names no run: counted apart), or written
        # and then taken back to the OS default.
        if "applied" in events:
            return [e for e in ("intent", "applied", "revert_intent", "revert_applied") if f"lost-{e}" not in flags]
        return ["refused"] if events else []
    fail(f"unexpected exit {rc} for {command} (flags {sorted(flags)})")


def check_concurrent(path, calls_path, bound):
    data, records = read_records(path)
    if len(data) > bound:
        fail(f"{path}: {len(data)} bytes, past the bound of {bound}")
    calls = {}
    with open(calls_path) as f:
        for line in f:
            run, command, rc, flags = line.split()
            calls[run] = (command, int(rc), set(flags.split(",")) - {"-"})
    def call_of(rec):  # a call is one step of its loop's run
        return f"{rec.get('run')}/{rec.get('step')}"
    by_run = {}
    runless = 0  # a member's refusal names no run (helper/src/action.cpp, record_of)
    for n, rec in records:
        reason = rec.get("reason", "")
        if "run" not in rec and rec["event"] == "refused" and rec["uid"] != 0 and (
                reason.endswith("the reset stands") or "is open in this boot" in reason):
            runless += 1
            continue
        if call_of(rec) not in calls:
            fail(f"{path}:{n}: a record of no call: {json.dumps(rec)}")
        by_run.setdefault(call_of(rec), []).append(rec["event"])
    backed_off = 0
    for run, (command, rc, flags) in calls.items():
        got = by_run.get(run, [])
        want = expected_events(command, rc, flags, got)
        if got != want:
            fail(f"call {run} ({command}, exit {rc}, {sorted(flags) or 'no flags'}) left {got}, expected {want}")
        backed_off += rc in (4, 10) and not got
    if runless > backed_off:
        fail(f"{runless} run-less refusals of a member, but only {backed_off} calls backed off without a record")
    records = [(n, rec) for n, rec in records if "run" in rec]
    locked = [rec for _, rec in records if "unlocked" not in calls[call_of(rec)][2]]
    for i, rec in enumerate(locked):
        if rec["event"] == "intent" and i + 1 < len(locked) and call_of(locked[i + 1]) != call_of(rec):
            if not calls[call_of(rec)][2] & {"applied-unrecorded", "lost-applied"}:
                fail(f"the intent of {call_of(rec)} is followed by another call's record: {json.dumps(locked[i + 1])}")
    unlocked = sum("unlocked" in c[2] for c in calls.values())
    ok = sum(c[1] == 0 for c in calls.values())
    print(f"concurrent: {len(calls)} calls ({ok} exit 0, {unlocked} without the lock), "
          f"{len(records)} whole records, {len(data)} of {bound} bytes")


LINE = re.compile(r"^(\d+)\s+(open|openat|openat2|creat|execve)\((.*)\) = (.*)$")
DIRFD = re.compile(r"^(AT_FDCWD|\d+)<([^>]*)>, ")
STRING = re.compile(r'^"((?:[^"\\]|\\.)*)"')


def normalise(path):
    path = re.sub(r"^/proc/\d+/", "/proc/PID/", path)  # sanitizer runtimes read their own /proc entries
    return re.sub(r"\.tmp-[A-Za-z0-9]{6}$", ".tmp-XXXXXX", path)


def list_opens(log, helper):
    entries = set()
    helper_pids = set()
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if not m:
                continue
            pid, call, args, result = m.groups()
            if call == "execve":
                s = STRING.match(args)
                target = s.group(1) if s else "?"
                if pid in helper_pids:
                    entries.add(f"execve {target} = {result.split(' ')[0]}")
                elif target == helper and result.startswith("0"):
                    helper_pids.add(pid)
                continue
            if pid not in helper_pids:
                continue
            base = ""
            d = DIRFD.match(args)
            if d:
                base = d.group(2)
                args = args[d.end():]
            s = STRING.match(args)
            if not s:
                entries.add(f"{call} ? {args}")
                continue
            name = s.group(1)
            flags = args[s.end():].lstrip(", ").split(",")[0].strip()
            ok = re.match(r"^\d+<([^>]*)>", result)
            if ok:
                where, outcome = ok.group(1), "ok"
            else:
                where = name if name.startswith("/") or not base else base.rstrip("/") + "/" + name
                outcome = result.split(" ")[1] if result.startswith("-1 ") else result
            entries.add(f"{call} {normalise(where)} {flags} -> {outcome}")
    if not helper_pids:
        fail(f"{log}: no successful execve of {helper}")
    for e in sorted(entries):
        print(e)


def main(argv):
    if len(argv) >= 2 and argv[0] == "journal":
        never_to, allow = None, False
        rest = argv[2:]
        while rest:
            if rest[0] == "--never-to" and len(rest) > 1:
                never_to, rest = int(rest[1]), rest[2:]
            elif rest[0] == "--allow-interrupted":
                allow, rest = True, rest[1:]
            else:
                fail(f"unknown option {rest[0]}")
        check_journal(argv[1], never_to, allow)
    elif len(argv) == 4 and argv[0] == "concurrent":
        check_concurrent(argv[1], argv[2], int(argv[3]))
    elif len(argv) == 3 and argv[0] == "opens":
        list_opens(argv[1], argv[2])
    else:
        fail(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
