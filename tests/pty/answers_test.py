"""Every question wiredcap asks, answered with yes, no, y, n, maybe, an empty line and end of
input (Ctrl-D), on a pseudo-terminal and a simulated Mac.

    python3 answers_test.py QUESTION-ANSWER WIREDCAP WIREDCAP_SIM WORKDIR

The rule (ramp/include/wiredcap/ramp/typed_answer.hpp): a word a question does not know is asked again, never
taken as another answer; "y" is yes only where yes is harmless, and where yes raises the cap
(or lifts what keeps it down) the full word is asked for, saying so. Outcomes are read from the
simulator's write history and from the journal (through recover --json), not from messages.
The tree (policy 64..176 GiB, m2ultra-192 with a 64 GiB OS default, journal) is ramp_test.py's.
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ramp_test  # noqa: E402
from pty_driver import PtySession  # noqa: E402
from ramp_test import GAUGE, check  # noqa: E402

KEYS = {"yes": "yes\r", "no": "no\r", "y": "y\r", "n": "n\r", "maybe": "maybe\r", "empty": "\r", "eof": "\x04"}
STEP1 = 81920  # 80 GiB
DECLINED, UNRESOLVED, REVERTED = 13, 10, 9


def ws(text):
    """`text` as a regex in which any space may be a line break (output is wrapped)."""
    return re.escape(text).replace(r"\ ", r"\s+").replace(" ", r"\s+")


def session(label, *args, size=None):
    s = PtySession(T.argv(*args), size=size)
    T.sessions.append((label, s))
    return s


def flat(s):
    return re.sub(r"\s+", " ", s.output.replace("\r", ""))


def recover_json():
    p = T.wc("recover", "--json")
    return json.loads(p.stdout)


def verdicts():
    return [r for r in T.journal() if "verdict" in json.dumps(r)]


# ---- set, raising the cap: yes in full ------------------------------------------------------------

SET_Q = ws("Type yes to continue: ")


def ask_set_raise(answer):
    s = session(f"set 80GiB, answered {answer}", "set", "80GiB")
    s.read_until(SET_Q, 10)
    s.send(KEYS[answer])
    if answer == "yes":
        check(s.wait(10) == 0, f"yes exited {s.exit_code}, expected 0")
        check(T.history() == [STEP1], f"written {T.history()}, expected [{STEP1}]")
        return
    if answer in ("no", "n", "eof"):
        check(s.wait(10) == DECLINED, f"{answer} exited {s.exit_code}, expected {DECLINED} (declined)")
        check(T.history() == [], f"written after {answer}: {T.history()}")
        check("not changed" in s.output, "no 'not changed' after a no")
        return
    # y, maybe, empty: asked again, nothing written meanwhile.
    why = {"y": ws('"y" is not taken as an answer here: this raises the GPU\'s cap, so type yes in full'),
           "maybe": ws('"maybe" is not an answer here: type yes (in full) or no.'),
           "empty": ws("type yes (in full) or no.")}[answer]
    s.read_until(why, 10)
    s.read_until(SET_Q, 10)
    check(T.history() == [], f"written before a second answer: {T.history()}")
    check(s.exit_code is None, f"ended ({s.exit_code}) instead of asking again")
    s.send("yes\r")
    check(s.wait(10) == 0, f"yes after {answer} exited {s.exit_code}, expected 0")
    check(T.history() == [STEP1], f"written {T.history()}, expected [{STEP1}]")


# ---- set to the OS default's own size: harmless, y is yes ------------------------------------------

def ask_set_same(answer):
    s = session(f"set 64GiB from the OS default, answered {answer}", "set", "64GiB")
    s.read_until(SET_Q, 10)
    s.send(KEYS[answer])
    if answer in ("yes", "y"):
        check(s.wait(10) == 0, f"{answer} exited {s.exit_code}, expected 0 (a change that raises nothing)")
        check(T.history() == [65536], f"written {T.history()}, expected [65536]")
    elif answer in ("no", "n", "eof"):
        check(s.wait(10) == DECLINED, f"{answer} exited {s.exit_code}, expected {DECLINED}")
        check(T.history() == [], f"written {T.history()}")
    else:
        s.read_until(ws("type yes or no."), 10)
        s.read_until(SET_Q, 10)
        check(T.history() == [], f"written before a second answer: {T.history()}")
        s.send("n\r")
        check(s.wait(10) == DECLINED, f"n after {answer} exited {s.exit_code}, expected {DECLINED}")


# ---- recover: did the machine hang with a suspect in force? ------------------------------------------

SUSPECT_Q = ws("or press Enter to decide later: ")


def a_suspect():
    """80 GiB set outside a ramp, read back, in force when the machine went down."""
    p = T.wc("set", "80GiB", "--yes")
    check(p.returncode == 0, f"set 80GiB --yes exited {p.returncode}")
    T.sim("reboot")
    check(len(recover_json()["suspects"]) == 1, "no suspect after a reboot with 80 GiB set")


def ask_suspect(answer):
    a_suspect()
    # 40 columns: every line after the question is wrapped too.
    s = session(f"recover, answered {answer}", "recover", size=(24, 40))
    s.read_until(SUSPECT_Q, 10)
    s.send(KEYS[answer])
    if answer in ("n", "maybe"):
        why = ws('"n" is not taken as an answer here: a machine that did not hang is answered no or not-hung in full') \
            if answer == "n" else ws('"maybe" is not an answer here: type hung (or yes), not-hung (or no)')
        s.read_until(why, 10)
        s.read_until(SUSPECT_Q, 10)
        check(verdicts() == [], f"recorded before a second answer: {verdicts()}")
        s.send("\r")  # decide later
    code = s.wait(15)
    rep = recover_json()
    if answer in ("yes", "y"):
        check(code == 0, f"{answer} exited {code}, expected 0")
        check(rep["hang_ceiling"] and rep["hang_ceiling"]["value"] == STEP1,
              f"'{answer}' (it hung) left hang_ceiling {rep['hang_ceiling']}, expected {STEP1}")
        check(rep["suspects"] == [], f"suspects left: {rep['suspects']}")
    elif answer == "no":
        check(code == 0, f"no exited {code}, expected 0")
        check(rep["hang_ceiling"] is None and rep["suspects"] == [], f"after no: {rep}")
    else:  # n, maybe (then Enter), empty, eof: nothing recorded, the suspect stays
        check(code == UNRESOLVED, f"{answer} exited {code}, expected {UNRESOLVED} (a suspect unanswered)")
        check(len(rep["suspects"]) == 1 and rep["hang_ceiling"] is None, f"after {answer}: {rep}")
        check(verdicts() == [], f"recorded after {answer}: {verdicts()}")
    screen = s.output.replace("\r", "").split("\n")
    wide = [line for line in screen if len(line) > 40 and "later:" not in line]
    check(not wide, f"lines wider than the 40-column terminal: {wide}")


# ---- recover --forget-hang: lifts the hang ceiling, so yes in full ----------------------------------

FORGET_Q = ws("Type yes to continue: ")


def ask_forget(answer):
    a_suspect()
    check(T.wc("recover", "--hung").returncode == 0, "recover --hung failed")
    check(recover_json()["hang_ceiling"]["value"] == STEP1, "no hang ceiling to forget")
    s = session(f"recover --forget-hang, answered {answer}", "recover", "--forget-hang", "--why", "other-cause")
    s.read_until(FORGET_Q, 10)
    s.send(KEYS[answer])
    if answer in ("y", "maybe", "empty"):
        why = {"y": ws('"y" is not taken as an answer here: this lets the cap go at or above a value that hung'),
               "maybe": ws('"maybe" is not an answer here: type yes (in full) or no.'),
               "empty": ws("type yes (in full) or no.")}[answer]
        s.read_until(why, 10)
        s.read_until(FORGET_Q, 10)
        check(recover_json()["hang_ceiling"] is not None, f"forgotten after {answer}")
        s.send("no\r")
    code = s.wait(10)
    rep = recover_json()
    if answer == "yes":
        check(code == 0, f"yes exited {code}, expected 0")
        check(rep["hang_ceiling"] is None and rep["forgotten"], f"after yes: {rep}")
    else:
        check(code == DECLINED, f"{answer} exited {code}, expected {DECLINED}")
        check(rep["hang_ceiling"]["value"] == STEP1 and rep["forgotten"] is None, f"after {answer}: {rep}")


# ---- ramp: keep this step? -------------------------------------------------------------------------

RAMP_Q = rf"Step 1/1 at {STEP1} MiB\. Keep it\? yes / stop / no {GAUGE}\[\d+ s left\] > "


def ask_ramp(answer):
    s = T.ramp(f"ramp --to 80GiB, answered {answer}", "--to", "80GiB", "--timeout", "30s")
    s.read_until(RAMP_Q, 10)
    s.send(KEYS[answer])
    if answer in ("y", "maybe", "empty"):
        why = ws('"y" is not taken as yes: this raises the GPU\'s cap, so yes is typed in full.') \
            if answer == "y" else ws("Please type yes (continue), stop (keep this value and end) or no (revert).")
        s.read_until(why, 10)
        s.read_until(RAMP_Q, 10)
        check(T.history() == [STEP1], f"written before a second answer: {T.history()}")
        s.send("no\r")
    code = s.wait(15)
    if answer == "yes":
        check(code == 0, f"yes exited {code}, expected 0")
        check(T.history() == [STEP1], f"written {T.history()}, expected [{STEP1}]")
    else:
        check(code == REVERTED, f"{answer} exited {code}, expected {REVERTED} (reverted)")
        check(T.history() == [STEP1, 0], f"written {T.history()}, expected [{STEP1}, 0]")


# ---- 2>&1 | tee: the question and what follows on separate lines ------------------------------------

def case_tee_keeps_the_question_on_its_own_line():
    log = os.path.join(T.work, "tee.log")
    argv = ["/bin/bash", "-c", f'set -o pipefail; "$@" 2>&1 | tee {log}', "bash", *T.argv("set", "80GiB")]
    s = PtySession(argv)
    T.sessions.append(("set 80GiB 2>&1 | tee, answered maybe then no", s))
    s.read_until(SET_Q, 10)
    s.send("maybe\r")
    s.read_until(SET_Q, 10)
    s.send("no\r")
    check(s.wait(10) == DECLINED, f"exited {s.exit_code}, expected {DECLINED}")
    with open(log) as f:
        lines = f.read().split("\n")
    asked = [line.rstrip() for line in lines if "continue:" in line]
    check(asked and all(line.endswith("continue:") for line in asked),
          f"the question shares its line with what follows: {asked}")
    check(any(line.startswith("not changed") for line in lines), f"no 'not changed' line of its own: {lines}")


for _q, _f in {"set_raise": ask_set_raise, "set_same": ask_set_same, "suspect": ask_suspect,
               "forget_hang": ask_forget, "ramp_step": ask_ramp}.items():
    for _a in KEYS:
        globals()[f"case_{_q}-{_a}"] = (lambda f, a: lambda: f(a))(_f, _a)

T = None  # the Tree of the running case, set by ramp_test.run_script

if __name__ == "__main__":
    sys.exit(ramp_test.run_script(globals(), sys.argv))
