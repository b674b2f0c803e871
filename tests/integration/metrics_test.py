#!/usr/bin/env python3
"""`wiredcap metrics` for Prometheus, checked with the real tools.

    metrics_test.py WIREDCAP HELPER SIM WORK SCENARIO

Scenarios:
  promtool_accepts_it       `promtool check metrics` (Debian's prometheus) on the output of a
                            machine with every reading present, and on a hung machine's
  node_exporter_matches_status
                            Debian's prometheus-node-exporter, on 127.0.0.1 and a free port,
                            reads the file `metrics --textfile-dir` wrote; its scrape matches
                            `status --json` value for value; then it is stopped
  textfile_is_replaced_whole
                            the file is replaced by rename (a new inode, mode 0644, no temporary
                            left), and a reading that cannot be made is absent, not 0
  journal_facts_match_status
                            the journal's families (hangs, the last hang's value and time, the
                            last confirmed change, unresolved runs, unanswered suspects, the
                            file's size) through a fresh machine, two hangs (the first forgotten),
                            a suspect, a confirmed run and an open one, each against status --json
                            and the file; an unreadable journal leaves them out, never 0
  helper_setuid_is_read     wiredcap_helper_setuid_root 1 for a root-owned setuid copy of the
                            helper, 0 for this build's, as status --json's helper says
Exit 77 (skipped, with the reason) only when the tool a scenario needs is not installed.
"""
import calendar
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

MIB = 1 << 20
WIREDCAP, HELPER, SIM, WORK, SCENARIO = sys.argv[1:6]
POLICY = os.path.join(WORK, "etc", "wiredcap.conf")
JOURNAL = os.path.join(WORK, "journal", "journal.jsonl")
STATE = os.path.join(WORK, "sim-state")
PROM = os.path.join(WORK, "textfile")


def fail(why):
    print("FAIL: " + why, file=sys.stderr)
    sys.exit(1)


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def run(argv, ok=(0,)):
    p = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    if p.returncode not in ok:
        fail(f"{' '.join(argv)} exited {p.returncode}: {p.stdout}{p.stderr}")
    return p.stdout


def sim(*args):
    return run([SIM, "--state", STATE, *args])


def wiredcap(*args, ok=(0,)):
    return run([WIREDCAP, "--helper", HELPER, "--policy", POLICY, "--journal", JOURNAL, "--sim-state", STATE, *args], ok)


def helper(*args, ok=(0,)):
    return run([HELPER, "--policy", POLICY, "--journal", JOURNAL, "--sim-state", STATE, *args], ok)


def new_tree():
    shutil.rmtree(WORK, ignore_errors=True)
    for d in (WORK, os.path.dirname(POLICY), PROM):
        os.makedirs(d, exist_ok=True)
        os.chmod(d, 0o755)
    sim("init", "--profile", "m2ultra-192")
    sim("clock", "pinned")
    with open(POLICY, "w") as f:
        f.write("min = 64GiB\nmax = 176GiB\nreserve = 16GiB\nmax_step = 16GiB\nvouched = 176GiB\n")
    os.chmod(POLICY, 0o644)


def lived_in_machine():
    """Every reading present and none of them at its default: a hang at 176 GiB recorded (the
    ceiling), 160 GiB stored for boot, 160 GiB set, 20 GiB wired (some of it stranded)."""
    new_tree()
    sim("hang-above", "170GiB")
    helper("apply", "176GiB", "--run", "r-hang", "--step", "1", "--effective", "158GiB",
           "--effective-source", "given", ok=(6,))
    sim("reboot")
    sim("hang-above", "off")
    wiredcap("recover")
    wiredcap("persist", "160GiB", "--unconfirmed")  # from the OS default: its cap is readable
    wiredcap("set", "160GiB", "--yes")
    sim("wired", "20GiB")


def samples(text):
    """{(name, frozenset(labels)): value} of the exposition's wiredcap_* samples."""
    out = {}
    for line in text.splitlines():
        if not line.startswith("wiredcap_"):
            continue
        m = re.fullmatch(r'(\w+)(?:\{(.*)\})? (\S+)', line)
        if not m:
            fail("not a sample line: " + line)
        labels = frozenset(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def value(s, name, **labels):
    return s.get((name, frozenset(labels.items())))


def compare_with_status(s, status):
    """Every metric against the same reading in `status --json`, in its unit."""
    checks = [
        ("wiredcap_knob_bytes", status["wired_limit"]["value"], lambda b: b / MIB),
        ("wiredcap_effective_cap_bytes", status["effective_cap"]["value"], lambda b: b // MIB),
        ("wiredcap_memory_bytes", status["memsize"]["value"], lambda b: b // MIB),
        ("wiredcap_wired_bytes", status["wired_now"]["value"], lambda b: -(-b // MIB)),
        ("wiredcap_band_min_bytes", status["policy"]["min_mib"], lambda b: b / MIB),
        ("wiredcap_band_max_bytes", status["policy"]["max_mib"], lambda b: b / MIB),
        ("wiredcap_reserve_bytes", status["policy"]["reserve_mib"], lambda b: b / MIB),
        ("wiredcap_max_step_bytes", status["policy"]["max_step_mib"], lambda b: b / MIB),
        ("wiredcap_vouched_bytes", status["policy"]["vouched_mib"], lambda b: b / MIB),
        ("wiredcap_hang_ceiling_bytes", (status["journal"]["hang_ceiling"] or {}).get("value"), lambda b: b / MIB),
        ("wiredcap_boot_stored_bytes", status["boot_guard"]["stored"]["value"], lambda b: b / MIB),
        ("wiredcap_boot_action_disabled", int(status["boot_guard"]["switch"]["present"]), lambda b: b),
    ]
    for name, expected, to_status_unit in checks:
        got = value(s, name)
        if expected is None:  # unknown or none in status: left out, never written as 0
            if got is not None:
                fail(f"{name} = {int(got)}, but status --json has none")
            continue
        if got is None:
            fail(f"{name} is missing; status --json has {expected}")
        if to_status_unit(int(got)) != expected:
            fail(f"{name} = {int(got)} ({to_status_unit(int(got))} in status' unit), but status --json says {expected}")
    journal_facts_match(s, status)
    helper = status["helper"]
    setuid_root = None if helper["mode"] is None else int(helper["setuid"] and helper["uid"] == 0)
    if value(s, "wiredcap_helper_setuid_root") != setuid_root:
        fail(f"wiredcap_helper_setuid_root = {value(s, 'wiredcap_helper_setuid_root')}, status --json's helper: {helper}")
    guard = status["boot_guard"]["guard"]
    if guard is None and status["boot_guard"]["stored"]["value"] is None:
        guard = "none"  # nothing stored: status says null, the metric's state is none
    for state in ("none", "armed", "trying", "healthy", "tripped", "failed"):
        want = 1 if state == guard else 0
        if value(s, "wiredcap_boot_guard_state", state=state) != want:
            fail(f"wiredcap_boot_guard_state{{state={state}}} is not {want} (status: guard {guard})")
    if value(s, "wiredcap_up") != 1:
        fail("wiredcap_up is not 1")
    print(f"  {len(checks)} values and the guard's state match status --json")


def unix_time(text):
    return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ"))


def journal_facts_match(s, status):
    """The journal's families against status --json's journal and the file itself."""
    j = status["journal"]
    size = os.path.getsize(JOURNAL) if os.path.exists(JOURNAL) else 0
    if value(s, "wiredcap_journal_bytes") != size:
        fail(f"wiredcap_journal_bytes = {value(s, 'wiredcap_journal_bytes')}, the file has {size} bytes")
    confirmed = j["last_confirmed"] and unix_time(j["last_confirmed"]["time"])
    for name, want in (("wiredcap_journal_unresolved_runs", j["unresolved_runs"]),
                       ("wiredcap_journal_suspects", len(j["suspects"])),
                       ("wiredcap_last_confirmed_timestamp_seconds", confirmed or None)):
        if value(s, name) != want:
            fail(f"{name} = {value(s, name)}, but status --json's journal says {want}")


def promtool_accepts_it():
    promtool = shutil.which("promtool")
    if not promtool:
        skip("promtool is not installed (Debian package prometheus; tools/install-deps)")
    lived_in_machine()
    for case in ("every reading present", "a hung machine"):
        if case == "a hung machine":
            sim("hang-above", "100GiB")
            helper("apply", "164GiB", ok=(6,))
        text = wiredcap("metrics")
        p = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
        if p.returncode != 0 or p.stdout.strip() or p.stderr.strip():
            fail(f"promtool check metrics ({case}) exited {p.returncode}: {p.stdout}{p.stderr}\n{text}")
        print(f"  promtool check metrics: clean ({case}, {len(samples(text))} samples)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(port, deadline):
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
                return r.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def node_exporter_matches_status():
    exporter = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
    if not exporter:
        skip("prometheus-node-exporter is not installed (Debian package of that name; tools/install-deps)")
    lived_in_machine()
    wiredcap("metrics", "--textfile-dir", PROM)
    status = json.loads(wiredcap("status", "--json"))
    # As nobody when we are root: it only needs to read the directory.
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.getuid() == 0 else []
    for attempt in range(3):  # a port taken between free_port() and the bind: another one
        port = free_port()
        proc = subprocess.Popen(as_nobody + [exporter, f"--web.listen-address=127.0.0.1:{port}",
                                             "--collector.disable-defaults", "--collector.textfile",
                                             f"--collector.textfile.directory={PROM}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            text = scrape(port, time.monotonic() + 20)
            break
        except OSError as e:
            if proc.poll() is None or attempt == 2:
                fail(f"no scrape from node_exporter on 127.0.0.1:{port}: {e}")
        finally:
            proc.terminate()
            try:
                err = proc.communicate(timeout=10)[1]
            except subprocess.TimeoutExpired:
                proc.kill()
                err = proc.communicate()[1]
    if value(samples(text), "wiredcap_up") is None:
        fail(f"node_exporter did not serve wiredcap's file: {err}")
    if 'node_textfile_scrape_error 0' not in text:
        fail("node_exporter reports a textfile scrape error:\n" + "\n".join(
            line for line in text.splitlines() if line.startswith("node_textfile")))
    print(f"  scraped node_exporter on 127.0.0.1:{port} (as {'nobody' if as_nobody else 'this user'}), then stopped it")
    compare_with_status(samples(text), status)


def textfile_is_replaced_whole():
    lived_in_machine()
    target = os.path.join(PROM, "wiredcap.prom")
    wiredcap("metrics", "--textfile-dir", PROM)
    first = os.stat(target)
    # The knob cannot be read (the key missing): absent, and its reading_ok 0; never 0 bytes.
    sim("fault", "key-missing", "on")
    wiredcap("metrics", "--textfile-dir", PROM)
    second = os.stat(target)
    if second.st_ino == first.st_ino:
        fail("the file was rewritten in place, not replaced by rename (same inode)")
    if second.st_mode & 0o777 != 0o644:
        fail(f"mode {oct(second.st_mode & 0o777)}, not 0644")
    if os.listdir(PROM) != ["wiredcap.prom"]:
        fail(f"the directory holds more than the file: {os.listdir(PROM)}")
    s = samples(open(target).read())
    if value(s, "wiredcap_knob_bytes") is not None:
        fail("an unreadable knob was written as a value")
    if value(s, "wiredcap_reading_ok", reading="knob") != 0 or value(s, "wiredcap_reading_ok", reading="memory") != 1:
        fail("wiredcap_reading_ok does not say which reading is unknown")
    # A directory that is not there: the machine's error, exit 19 (output could not be written),
    # not 1 (internal error); nothing created.
    missing = os.path.join(WORK, "no-such-dir")
    wiredcap("metrics", "--textfile-dir", missing, ok=(19,))
    if os.path.exists(missing):
        fail("metrics created the missing directory")
    print("  replaced by rename, 0644, no temporary left; the unreadable knob absent, its reading_ok 0")


def every_state_matches_status():
    """Beyond the lived-in machine: the OS default with nothing stored and no hang, and a boot
    guard that failed (the vouch removed before the boot that was to apply it)."""
    new_tree()
    compare_with_status(samples(wiredcap("metrics")), json.loads(wiredcap("status", "--json")))
    helper("persist", "176GiB")
    with open(POLICY, "w") as f:
        f.write("min = 64GiB\nmax = 176GiB\nreserve = 16GiB\nmax_step = 16GiB\n")
    sim("reboot")
    system = os.path.join(os.path.dirname(HELPER), "wiredcap-system")  # built beside the helper
    run([system, "--policy", POLICY, "--journal", JOURNAL, "--sim-state", STATE, "boot-action"], ok=(3,))
    status = json.loads(wiredcap("status", "--json"))
    if status["boot_guard"]["guard"] != "failed":
        fail(f"the guard is {status['boot_guard']['guard']}, not failed")
    compare_with_status(samples(wiredcap("metrics")), status)


def a_shared_directory_is_refused():
    """A textfile directory another user can write (mode 1777, group-writable, or another
    user's): there `nobody` plants wiredcap.prom (a symlink to a victim file, or its own numbers
    the sticky bit keeps) before wiredcap writes. Refused, exit 2, saying why; neither the planted
    file nor the victim is touched. In a directory only root writes, a symlink found at the name is
    replaced, not written through."""
    new_tree()
    victim = os.path.join(WORK, "victim")
    with open(victim, "w") as f:
        f.write("not yours\n")
    target = os.path.join(PROM, "wiredcap.prom")
    os.symlink(victim, target)
    os.lchown(target, 65534, 65534)
    for mode, owner, why in ((0o1777, 0, "writable by every user"), (0o775, 0, "writable by its group"),
                             (0o755, 65534, "belongs to uid 65534")):
        os.chown(PROM, owner, 0)
        os.chmod(PROM, mode)
        r = subprocess.run([WIREDCAP, "--helper", HELPER, "--policy", POLICY, "--journal", JOURNAL, "--sim-state",
                            STATE, "metrics", "--textfile-dir", PROM], capture_output=True, text=True, timeout=60)
        if r.returncode != 2 or why not in r.stderr or "refusing --textfile-dir" not in r.stderr:
            fail(f"mode {oct(mode)} uid {owner}: not refused, or not saying why: exit {r.returncode}: {r.stderr}")
        if open(victim).read() != "not yours\n" or not os.path.islink(target):
            fail(f"mode {oct(mode)} uid {owner}: metrics wrote in a directory another user can write")
    os.chown(PROM, 0, 0)
    os.chmod(PROM, 0o755)
    wiredcap("metrics", "--textfile-dir", PROM)
    if open(victim).read() != "not yours\n":
        fail("metrics wrote through the symlink")
    if os.path.islink(target) or value(samples(open(target).read()), "wiredcap_up") != 1:
        fail("the symlink was not replaced by the metrics")
    print("  1777, 0775 and another user's directory refused (exit 2); in root's 0755 the symlink replaced")


def expect(s, **want):
    for name, v in want.items():
        if value(s, "wiredcap_" + name) != v:
            fail(f"wiredcap_{name} = {value(s, 'wiredcap_' + name)}, expected {v}")


def journal_facts_match_status():
    new_tree()
    # No journal yet: none of it happened, and the file has 0 bytes.
    s = samples(wiredcap("metrics"))
    expect(s, journal_bytes=0, hangs=0, journal_unresolved_runs=0, journal_suspects=0,
           last_hang_bytes=None, last_hang_timestamp_seconds=None, last_confirmed_timestamp_seconds=None)
    # A confirmed, completed run: the last confirmed change's time.
    helper("apply", "72GiB", "--run", "r-ok", "--step", "1", "--effective", "158GiB", "--effective-source", "given")
    helper("confirm", "--run", "r-ok", "--step", "1")
    helper("end", "--run", "r-ok", "--outcome", "completed")
    helper("reset")
    # A hang at 160 GiB, found at the next boot; forgotten; then one at 176 GiB, above where the
    # first was: the ceiling is the second, the count 2 (the forgotten one is history).
    for run, size, above in (("r-1", "160GiB", "150GiB"), ("r-2", "176GiB", "170GiB")):
        sim("hang-above", above)
        helper("apply", size, "--run", run, "--step", "1", "--effective", "158GiB", "--effective-source", "given",
               "--ignore-hang-ceiling", ok=(6,))
        sim("reboot")
        sim("hang-above", "off")
        wiredcap("recover")
        if run == "r-1":
            wiredcap("recover", "--forget-hang", "--why", "macos-update", "--yes")
    status = json.loads(wiredcap("status", "--json"))
    s = samples(wiredcap("metrics"))
    ceiling = status["journal"]["hang_ceiling"]
    expect(s, hangs=2, last_hang_bytes=176 << 30, hang_ceiling_bytes=176 << 30,
           last_hang_timestamp_seconds=unix_time(ceiling["time"]))
    journal_facts_match(s, status)
    # A raise in force when its boot ended: a suspect no person answered yet.
    wiredcap("set", "160GiB", "--yes")
    sim("reboot")
    # A step applied in this boot and not confirmed: an unresolved run.
    helper("apply", "80GiB", "--run", "r-open", "--step", "1", "--effective", "158GiB", "--effective-source", "given")
    status = json.loads(wiredcap("status", "--json"))
    s = samples(wiredcap("metrics"))
    expect(s, journal_suspects=1, journal_unresolved_runs=1, hangs=2)
    journal_facts_match(s, status)
    if [a["kind"] for a in status["needs_attention"]] != ["hang", "suspect", "open_step"]:
        fail(f"needs_attention: {status['needs_attention']}")
    promtool = shutil.which("promtool")
    if promtool:
        text = wiredcap("metrics")
        p = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
        if p.returncode != 0 or p.stdout.strip() or p.stderr.strip():
            fail(f"promtool check metrics: {p.stdout}{p.stderr}\n{text}")
    # A journal that cannot be read (a directory at its name): every journal family left out.
    os.rename(JOURNAL, JOURNAL + ".away")
    os.mkdir(JOURNAL)
    s = samples(wiredcap("metrics"))
    left = sorted(n for (n, _) in s if n.startswith(("wiredcap_journal", "wiredcap_hang", "wiredcap_last")))
    if left or value(s, "wiredcap_reading_ok", reading="journal") != 0:
        fail(f"an unreadable journal still wrote {left}")
    print(f"  2 hangs, 1 suspect, 1 open run and the last confirmation as status --json says; {status['journal']['source']}")


def helper_setuid_is_read():
    new_tree()
    bindir = os.path.join(WORK, "root-bin")
    os.makedirs(bindir)
    os.chmod(bindir, 0o755)
    copy = os.path.join(bindir, "wiredcap-helper")
    shutil.copy(HELPER, copy)
    os.chown(copy, 0, 0)
    os.chmod(copy, 0o4755)
    for path, want in ((copy, 1 if os.getuid() == 0 else None), (HELPER, 0)):
        if want is None:
            skip("root is needed to make a root-owned setuid copy of the helper")
        argv = [WIREDCAP, "--helper", path, "--policy", POLICY, "--journal", JOURNAL, "--sim-state", STATE]
        s = samples(run(argv + ["metrics"]))
        helper = json.loads(run(argv + ["status", "--json"]))["helper"]
        if value(s, "wiredcap_helper_setuid_root") != want or helper["setuid"] != bool(want):
            fail(f"{path}: wiredcap_helper_setuid_root {value(s, 'wiredcap_helper_setuid_root')}, status: {helper}")
    print("  a root-owned 4755 copy: 1; this build's helper (mode 0755): 0; as status --json says")


{"journal_facts_match_status": journal_facts_match_status,
 "helper_setuid_is_read": helper_setuid_is_read,
 "promtool_accepts_it": promtool_accepts_it,
 "node_exporter_matches_status": node_exporter_matches_status,
 "textfile_is_replaced_whole": textfile_is_replaced_whole,
 "a_shared_directory_is_refused": a_shared_directory_is_refused,
 "every_state_matches_status": every_state_matches_status}[SCENARIO]()
print("PASS: " + SCENARIO)
