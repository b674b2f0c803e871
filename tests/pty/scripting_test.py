"""What a script can trust, on a simulated Mac: exit codes, idempotence, refusals.

    python3 scripting_test.py CASE WIREDCAP WIREDCAP_SIM WORKDIR

The tree (policy 64..176 GiB, max_step 16 GiB, m2ultra-192 whose OS default is 64 GiB, a
journal) is ramp_test.py's. Every case asserts on what the machine did (the simulator's write
history, the journal) and on exit codes and JSON, never on wording alone.

- exit_code_table: every row of docs/scripting.md's exit-code table, provoked for real and
  checked; a row without a scenario, a scenario for a code the table lacks, or a code
  `wiredcap --help` lists and the table does not, fails.
- stop_at_the_last_step_exits_0 / stop_before_the_last_step_exits_8.
- ceiling_cut_never_exits_0: a target at or above the hang ceiling is refused before anything
  is written; the suggested `ramp --to` is accepted and reaches its target.
"""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ramp_test  # noqa: E402
from pty_driver import PtySession  # noqa: E402
from ramp_test import STEP1, STEP2, STEP3, TIMEOUT_S, check, check_against_schema, prompt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTING_MD = os.path.join(HERE, "..", "..", "docs", "scripting.md")
MAKE_MODEL = os.path.join(HERE, "..", "golden", "make_model.py")  # sparse test models


def table_codes():
    """The codes docs/scripting.md's exit-code table lists, in order."""
    with open(SCRIPTING_MD) as f:
        text = f.read()
    section = text[text.index("## Exit codes"):]
    return [int(m.group(1)) for m in re.finditer(r"^\| (\d+) \|", section, re.M)]


def help_codes():
    """The codes `wiredcap --help` lists at its end (the program's own list of ExitCode)."""
    p = subprocess.run(T.argv("--help"), capture_output=True, text=True, timeout=30)
    section = p.stdout[p.stdout.index("Exit codes"):]
    section = section[section.index("\n"):]  # past the heading's "(0 only when ...)"
    return sorted({int(m.group(1)) for m in re.finditer(r"(?:^|\s)(\d+) [a-z]", section)})


def helper_path():
    return os.path.join(os.path.dirname(T.wiredcap), "wiredcap-helper")


def run_as(args, user=None, extra=()):
    argv = T.argv(*args) + list(extra)
    if user is not None:
        argv = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *argv]
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    T.commands.append((argv, p.returncode, p.stdout, p.stderr))
    return p


def json_of(p):
    check(p.stdout.strip(), f"no JSON answer on stdout (exit {p.returncode})")
    answer = json.loads(p.stdout)
    check_against_schema(answer)
    return answer


# ---- one scenario per exit code: each returns the code it got ----------------------------------

def code_0():
    return run_as(["set", "80GiB", "--yes"]).returncode


def code_1():
    mute = os.path.join(T.work, "mute-helper")  # a helper that answers nothing
    with open(mute, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(mute, 0o755)
    return run_as(["set", "80GiB", "--yes", "--helper", mute]).returncode


def code_2():
    return run_as(["set", "96", "--yes"]).returncode


def code_3():
    return run_as(["set", "200GiB", "--yes"]).returncode


def code_4():
    # nobody runs the development helper, which trusts a policy file its caller owns; the
    # policy's group (root) is one nobody is not in. The tree is 0755 all the way down.
    with open(T.policy, "a") as f:
        f.write("group = root\n")
    for path in (os.path.dirname(T.policy), T.policy, T.state):
        os.chown(path, 65534, 65534)
    return run_as(["set", "80GiB", "--yes"], user=65534).returncode


def code_5():
    T.sim("fault", "write-refused", "on")
    return run_as(["set", "80GiB", "--yes"]).returncode


def code_6():
    T.sim("fault", "readback-offset", "1MiB")
    return run_as(["set", "80GiB", "--yes"]).returncode


def code_7():
    T.sim("init", "--profile", "ventura-64")
    with open(T.policy, "w") as f:  # a band this 64 GiB Mac can have
        f.write("min = 24GiB\nmax = 40GiB\nreserve = 12GiB\nmax_step = 8GiB\n")
    return run_as(["set", "40GiB", "--yes"]).returncode


def code_8():
    s = T.ramp("stop at step 2 of 3", "--to", "112GiB", "--step", "16GiB", "--timeout", f"{TIMEOUT_S}s")
    s.read_until(prompt(1, 3, STEP1), 10)
    s.send("yes\r")
    s.read_until(prompt(2, 3, STEP2), 10)
    s.send("stop\r")
    return s.wait(10)


def code_9():
    return run_as(["ramp", "--to", "96GiB", "--unattended", "--check", "false"]).returncode


def code_10():
    # A step the helper journaled and wrote, with no wiredcap around to confirm or revert it.
    p = subprocess.run([helper_path(), *T.dev_options(), "apply", "80GiB", "--run", "r-20260101-000000-abcd",
                        "--step", "1", "--effective", "64GiB"], capture_output=True, text=True, timeout=30)
    check(p.returncode == 0, f"the helper's unconfirmed step exited {p.returncode}: {p.stderr}")
    return run_as(["ramp", "--to", "96GiB", "--unattended", "--check", "true"]).returncode


def code_11():
    with open(T.policy, "w") as f:
        f.write("min = banana\n")
    return run_as(["set", "80GiB", "--yes"]).returncode


def code_12():
    # The journal's directory writable by others: the helper will not journal there.
    os.makedirs(os.path.dirname(T.journal_path), exist_ok=True)
    os.chmod(os.path.dirname(T.journal_path), 0o777)
    return run_as(["set", "80GiB", "--yes"]).returncode


def code_13():
    s = PtySession(T.argv("set", "80GiB"))
    T.sessions.append(("set 80GiB, answered no", s))
    s.read_until(r"Type yes to continue: ", 10)
    s.send("no\r")
    return s.wait(10)


def code_14():
    T.sim("init", "--profile", "m4-16")  # 16 GB: too small for the built-in band
    os.unlink(T.policy)
    return run_as(["set", "10GiB", "--yes"]).returncode


def code_15():
    return run_as(["policy", "check", os.path.join(T.work, "etc", "wiredcap.cnof")]).returncode


def code_16():
    os.unlink(T.policy)
    os.mkdir(T.policy, 0o755)  # there, but not a file anyone can read as one
    return run_as(["set", "80GiB", "--yes"]).returncode


def code_17():
    # fit --check on a model the cap does not hold yet but a raise would (80 GiB of weights
    # against the OS default of 64 GiB, under the policy's 176 GiB): the launch script's answer.
    model = os.path.join(T.work, "model.gguf")
    subprocess.run([sys.executable, MAKE_MODEL, "gguf", model, "32", "4096", "32", "8", str(80 * 1024)], check=True)
    return run_as(["fit", model, "--check"]).returncode


def code_18():
    # set on a simulated AMD Linux APU (docs/linux.md): one trial boot is scheduled, the value
    # not held yet. The boot loader's one-shot must be armed, or the 18 would be a claim.
    root = os.path.join(T.work, "linux-root")
    sim_linux = os.path.join(os.path.dirname(T.sim_bin), "wiredcap-sim-linux")
    subprocess.run([sim_linux, "init", "--root", root, "--profile", "strix-64"], check=True,
                   capture_output=True)
    os.makedirs(os.path.join(root, "var", "lib"), exist_ok=True)
    # The policy file binds the Linux band too: this 64 GB APU's, not the 192 GB Mac's.
    with open(T.policy, "w") as f:
        f.write("min = 16GiB\nmax = 48GiB\nreserve = 8GiB\nmax_step = 16GiB\n")
    code = run_as(["set", "40GiB", "--linux-root", root]).returncode
    grubenv = subprocess.run(["grub-editenv", os.path.join(root, "boot", "grub", "grubenv"), "list"],
                             capture_output=True, text=True, check=True).stdout
    check("next_entry=wiredcap-trial" in grubenv.splitlines(), f"exit {code}, no trial armed: {grubenv}")
    return code


# What must not have happened for each code: nothing written unless the code says a write was
# attempted or kept (0: the value; 5: refused by the kernel; 6: written; 8, 9: the ramp's steps;
# 10: the helper's own step).
def code_19():
    # set --yes with its answer going to a full disk: the change is made and journaled (writes
    # allowed), the lost answer is not hidden behind exit 0.
    with open("/dev/full", "w") as full:
        p = subprocess.run(T.argv("set", "80GiB", "--yes"), stdin=subprocess.DEVNULL, stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=60)
    T.commands.append((T.argv("set", "80GiB", "--yes"), p.returncode, "", p.stderr))
    check(T.history() == [81920], f"set --yes >/dev/full wrote {T.history()}, expected [81920]")
    return p.returncode


WRITES_ALLOWED = {0, 5, 6, 8, 9, 10, 19}


def case_exit_code_table():
    if os.geteuid() != 0:
        print("SKIP: code 4 runs wiredcap as nobody (setpriv), which needs root")
        sys.exit(77)
    codes = table_codes()
    scenarios = {int(name[len("code_"):]): f for name, f in globals().items() if re.fullmatch(r"code_\d+", name)}
    check(codes == sorted(set(codes)), f"the table's codes are not listed once each, in order: {codes}")
    # A script reads this table, not the help: a code the program can exit with is in it.
    check(codes == help_codes(), f"docs/scripting.md lists {codes}, wiredcap --help {help_codes()}")
    check(set(codes) == set(scenarios), f"table rows {sorted(set(codes) - set(scenarios))} have no scenario; "
          f"scenarios {sorted(set(scenarios) - set(codes))} have no row")
    failures = []
    for code in codes:
        T.build()
        got = scenarios[code]()
        writes = T.history() if code != 7 else []
        if got != code:
            failures.append(f"row {code}: the scenario exited {got}")
        elif code not in WRITES_ALLOWED and writes:
            failures.append(f"row {code}: values written {writes}")
        print(f"row {code}: exit {got}, writes {writes}")
    check(not failures, "; ".join(failures))


# ---- the ramp's exit follows its final read-back ----------------------------------------------

def case_stop_at_the_last_step_exits_0():
    s = T.ramp("stop at step 2 of 2", "--to", "96GiB", "--step", "16GiB", "--timeout", f"{TIMEOUT_S}s", "--json")
    s.read_until(prompt(1, 2, STEP1), 10)
    s.send("yes\r")
    s.read_until(prompt(2, 2, STEP2), 10)
    s.send("stop\r")
    code = s.wait(10)
    check(code == 0, f"stop at the last step exited {code}, expected 0: the target is in force")
    check(T.knob() == STEP2 and T.history() == [STEP1, STEP2], f"knob {T.knob()}, writes {T.history()}")
    summary = json.loads([ln for ln in s.output.replace("\r", "").splitlines() if ln.startswith("{")][-1])
    check_against_schema(summary)
    check(summary["reached"] is True and summary["target_mib"] == STEP2 and summary["exit"] == 0,
          f"summary: {summary}")


def case_stop_before_the_last_step_exits_8():
    check(code_8() == 8, "stop at step 2 of 3 did not exit 8")
    check(T.knob() == STEP2, f"knob {T.knob()}, expected {STEP2} kept")


def case_ceiling_cut_never_exits_0():
    T.sim("hang-above", "90GiB")  # a step at 96 GiB hangs the simulated Mac
    p = run_as(["ramp", "--to", "112GiB", "--step", "16GiB", "--unattended", "--check", "true"])
    check(p.returncode != 0, "the ramp into a hang exited 0")
    T.sim("reboot")
    check(run_as(["recover"]).returncode == 0, "recover after the hang failed")
    before = T.history()
    for extra in ([], ["--json"]):
        p = run_as(["ramp", "--to", "112GiB", "--unattended", "--check", "true", *extra])
        check(p.returncode == 3, f"a target above the hang ceiling exited {p.returncode}, expected 3 (refused)")
        check(T.history() == before, f"a refused ramp wrote {T.history()[len(before):]}")
        if extra:
            check(json_of(p)["exit"] == 3, "the JSON answer does not carry exit 3")
    m = re.search(r"wiredcap ramp --to (\S+)", ramp_test.unwrap(p.stderr))
    check(m, f"no ramp --to suggested: {p.stderr}")
    suggested = m.group(1)
    p = run_as(["ramp", "--to", suggested, "--unattended", "--check", "true", "--json"])
    answer = json_of(p)
    check(p.returncode == 0 and answer["reached"] and answer["final"]["value"] == answer["target_mib"],
          f"the suggested ramp --to {suggested} exited {p.returncode}: {answer}")


def case_already_at_is_not_claimed_for_a_value_at_risk():
    """A step at 80 GiB awaits confirmation (the helper wrote it; nobody confirmed it): the knob
    reads 80 GiB, but that value is at risk, so `ramp --to 80GiB` is not "already at" it."""
    check(code_10() == 10, "with a step at risk, the ramp did not exit 10")
    p = run_as(["ramp", "--to", "80GiB", "--unattended", "--check", "true"])
    check(p.returncode == 10, f"ramp --to the value at risk exited {p.returncode}, expected 10")
    check(T.history() == [STEP1], f"values written: {T.history()}")


def case_a_failed_revert_is_not_reached():
    """The person answers no at the last (only) step, and the revert fails (the kernel refuses
    every write from then on): the knob still reads the target, but nobody kept it and the ramp
    exits non-zero, so its answer must not say `reached` (schema: exactly when exit is 0)."""
    s = T.ramp("no at step 1 of 1, revert refused", "--to", "80GiB", "--step", "16GiB",
               "--timeout", f"{TIMEOUT_S}s", "--json")
    s.read_until(prompt(1, 1, STEP1), 10)
    T.sim("fault", "write-refused", "on")
    s.send("no\r")
    code = s.wait(20)
    check(code != 0, "a ramp whose step was answered no exited 0")
    check(T.knob() == STEP1 and T.history() == [STEP1], f"knob {T.knob()}, writes {T.history()}")
    summary = json.loads([ln for ln in s.output.replace("\r", "").splitlines() if ln.startswith("{")][-1])
    check_against_schema(summary)
    check(summary["outcome"] == "revert_failed" and summary["exit"] == code, f"summary: {summary}")
    check(summary["reached"] is False and "why_not_reached" in summary,
          f"exit {code}, yet the answer says reached: {summary}")


def case_a_suggested_ramp_keeps_ignore_hang_ceiling():
    """`set SIZE --ignore-hang-ceiling` over max_step suggests the ramp that gets there; at or
    above the hang ceiling that ramp needs the same override, or it is refused (exit 3)."""
    T.sim("hang-above", "90GiB")  # a step at 96 GiB hangs the simulated Mac
    p = run_as(["ramp", "--to", "96GiB", "--step", "16GiB", "--unattended", "--check", "true"])
    check(p.returncode != 0, "the ramp into a hang exited 0")
    T.sim("reboot")
    T.sim("hang-above", "off")
    check(run_as(["recover"]).returncode == 0, "recover after the hang failed")
    before = T.history()
    p = run_as(["set", "112GiB", "--yes", "--ignore-hang-ceiling"])
    check(p.returncode == 3 and T.history() == before, f"set over max_step exited {p.returncode}")
    m = re.search(r"(wiredcap ramp --to \S+(?: --[a-z-]+)*)", ramp_test.unwrap(p.stderr))
    check(m, f"no ramp suggested: {p.stderr}")
    words = m.group(1).split()[1:]
    p = run_as([*words, "--unattended", "--check", "true"])
    check(p.returncode == 0 and T.knob() == 114688,
          f"the suggested '{m.group(1)}' exited {p.returncode}, knob {T.knob()}: {p.stderr}")


def case_idempotent_after_the_advised_reset():
    """A step left at risk is settled with `wiredcap reset`, as recover advises; its run never
    records an end, yet nothing is at risk any more: from then on a reset, and the same ramp
    run twice, are idempotent (the second run writes and journals nothing, and exits 0)."""
    check(code_10() == 10, "with a step at risk, the ramp did not exit 10")
    check(run_as(["reset"]).returncode == 0, "the advised reset failed")
    history, journal = T.history(), len(T.journal())
    p = run_as(["reset", "--json"])
    check(p.returncode == 0 and json_of(p)["changed"] is False, f"the second reset exited {p.returncode}")
    check(T.history() == history and len(T.journal()) == journal,
          f"the second reset wrote {T.history()[len(history):]}, journaled {T.journal()[journal:]}")
    ramp = ["ramp", "--to", "96GiB", "--unattended", "--check", "true", "--json"]
    p = run_as(ramp)
    check(p.returncode == 0 and json_of(p)["reached"], f"the ramp exited {p.returncode}: {p.stderr}")
    history, journal = T.history(), len(T.journal())
    p = run_as(ramp)
    check(p.returncode == 0, f"the same ramp run again exited {p.returncode}: {p.stderr}")
    check(json_of(p)["outcome"] == "already_at_target", f"second ramp: {p.stdout}")
    check(T.history() == history and len(T.journal()) == journal,
          f"the second ramp wrote {T.history()[len(history):]}, journaled {T.journal()[journal:]}")


T = None  # the Tree of the running case, set by ramp_test.run_script

if __name__ == "__main__":
    sys.exit(ramp_test.run_script(globals(), sys.argv))
