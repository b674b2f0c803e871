"""An automation run, as an admin's script or Ansible task runs wiredcap.

    python3 automation_test.py CASE WIREDCAP WIREDCAP_SIM WORKDIR

Each command runs twice, with --json, and the run is asserted as a script would rely on it: the
exit code, `changed`, the answer valid against docs/schema/, and a second run that changes
nothing (the simulator's write history and the journal stay as they were). The cases are the
same run with and without a hang ceiling in the journal, and with and without a terminal
(stdin, stdout and stderr on a pseudo-terminal, or all three away from one).

The tree (policy 64..176 GiB, max_step 16 GiB, m2ultra-192 whose OS default is 64 GiB) is
ramp_test.py's.
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ramp_test  # noqa: E402
from pty_driver import PtySession  # noqa: E402
from ramp_test import check, check_against_schema  # noqa: E402

GIB = 1024


def run(args, terminal):
    """wiredcap ARGS --json: (exit code, its one JSON answer, everything it printed)."""
    if terminal:
        s = PtySession(T.argv(*args, "--json"))
        T.sessions.append((" ".join(args), s))
        code = s.wait(60)
        text = s.output.replace("\r", "")
        answers = [line for line in text.split("\n") if line.startswith("{")]
    else:
        p = T.wc(*args, "--json")
        code, text = p.returncode, p.stdout + p.stderr
        answers = [line for line in p.stdout.split("\n") if line.startswith("{")]
    check(len(answers) == 1, f"wiredcap {' '.join(args)} --json printed {len(answers)} JSON answers")
    answer = json.loads(answers[0])
    check_against_schema(answer)
    check(answer.get("exit", 0) == code, f"the answer's exit {answer.get('exit')} is not the exit code {code}")
    return code, answer, text


def twice(args, terminal, code, changed_first):
    """Runs ARGS twice: both runs exit `code`; the first changes the machine when
    `changed_first`; the second changes nothing at all."""
    results = []
    for attempt in (1, 2):
        history, journal = T.history(), len(T.journal())
        got, answer, text = run(args, terminal)
        expect_changed = changed_first if attempt == 1 else False
        label = f"run {attempt} of wiredcap {' '.join(args)}"
        check(got == code, f"{label} exited {got}, expected {code}: {text}")
        if "changed" in answer:
            check(answer["changed"] is expect_changed, f"{label}: changed {answer['changed']}, expected {expect_changed}")
        if not expect_changed:
            check(T.history() == history, f"{label} wrote {T.history()[len(history):]}")
        if attempt == 2:
            check(len(T.journal()) == journal, f"{label} journaled {T.journal()[journal:]}")
        results.append((answer, text))
    return results


def make_hang_ceiling():
    """A ramp that hangs the simulated Mac at 112 GiB; after the reboot, 112 GiB is the ceiling."""
    T.sim("hang-above", "100GiB")
    p = T.wc("ramp", "--to", "128GiB", "--step", "16GiB", "--unattended", "--check", "true")
    check(p.returncode != 0, "the ramp into the hang exited 0")
    T.sim("reboot")
    check(T.wc("recover").returncode == 0, "recover after the reboot failed")


def automation(ceiling, terminal):
    if ceiling:
        make_hang_ceiling()
    twice(["set", "80GiB", "--yes"], terminal, 0, True)
    if ceiling:
        # At or above the ceiling: refused before anything is written, every time, with the ramp
        # that is accepted instead; that ramp reaches its target, then is already there.
        (answer, text), _ = twice(["ramp", "--to", "128GiB", "--unattended", "--check", "true"], terminal, 3, False)
        m = re.search(r"wiredcap ramp --to (\S+)", ramp_test.unwrap(answer["error"]))
        check(m, f"the refusal suggests no ramp: {answer['error']}")
        target = m.group(1)
    else:
        target = "112GiB"
    (first, _), (second, _) = twice(["ramp", "--to", target, "--unattended", "--check", "true"], terminal, 0, True)
    check(first["reached"] and first["outcome"] == "completed", f"first ramp: {first}")
    check(second["reached"] and second["outcome"] == "already_at_target" and second["steps"] == [],
          f"second ramp: {second}")
    reached = first["target_mib"]
    check(T.knob() == reached, f"knob {T.knob()}, expected {reached}")
    twice(["set", "88GiB", "--yes"], terminal, 0, True)  # lower: one change, no question
    twice(["reset"], terminal, 0, True)
    twice(["set", "default"], terminal, 0, False)
    check(T.knob() == 0, f"knob {T.knob()} after reset, expected 0")


def case_no_ceiling_no_terminal():
    automation(ceiling=False, terminal=False)


def case_no_ceiling_on_a_terminal():
    automation(ceiling=False, terminal=True)


def case_ceiling_no_terminal():
    automation(ceiling=True, terminal=False)


def case_ceiling_on_a_terminal():
    automation(ceiling=True, terminal=True)


T = None  # the Tree of the running case, set by ramp_test.run_script

if __name__ == "__main__":
    sys.exit(ramp_test.run_script(globals(), sys.argv))
