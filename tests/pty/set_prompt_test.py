"""`wiredcap set` asking before a raise, on a pseudo-terminal and a simulated Mac.

    python3 set_prompt_test.py CASE WIREDCAP WIREDCAP_SIM WORKDIR

Declining at the prompt is an answer, not a mistake on the command line: it exits 13
(declined), not 2 (usage), and writes nothing. The tree (policy 64..176 GiB, m2ultra-192,
journal) is ramp_test.py's.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ramp_test  # noqa: E402
from pty_driver import PtySession  # noqa: E402
from ramp_test import check  # noqa: E402

# The question is wrapped to the terminal's width (80 here): any space may be a line break.
QUESTION = (r"Raise the GPU's cap from the OS default's 65536 MiB .* \[SIMULATED Metal recommendedMaxWorkingSetSize "
            r"\(simulator model\)\] to 81920 MiB .*\(iogpu\.wired_limit_mb\)\? Type yes to continue: "
            ).replace(" ", r"\s+").replace(".*", r"[\s\S]*")
DECLINED, USAGE = 13, 2


def start_set(label):
    s = PtySession(T.argv("set", "80GiB"))
    T.sessions.append((label, s))
    s.read_until(QUESTION, 10)
    return s


def case_no_is_declined_not_usage():
    s = start_set("set 80GiB, answered no")
    s.send("no\r")
    code = s.wait(10)
    check(code == DECLINED, f"answering no exited {code}, expected {DECLINED} (declined), not {USAGE} (usage)")
    check(T.history() == [], f"values written after a no: {T.history()}")
    check(T.knob() == 0, f"knob {T.knob()} after a no, expected 0")


def case_yes_raises():
    s = start_set("set 80GiB, answered yes")
    s.send("yes\r")
    code = s.wait(10)
    check(code == 0, f"answering yes exited {code}, expected 0")
    check(T.history() == [81920], f"written: {T.history()}, expected [81920]")


def case_no_terminal_is_usage():
    p = T.wc("set", "80GiB")
    check(p.returncode == USAGE, f"set without a terminal and without --yes exited {p.returncode}, expected {USAGE}")
    check("--yes" in p.stderr, "the way forward (--yes) is not named")
    check(T.history() == [], f"values written: {T.history()}")


def refused_without_a_question(label, *args):
    """`wiredcap set ARGS` on a terminal: refused (exit 3) before anything is asked. The front
    end's refusal is not journaled (SECURITY.md, "What the journal records"): root's journal is
    byte for byte as before."""
    written = T.history()
    journal = journal_bytes()
    s = PtySession(T.argv("set", *args))
    T.sessions.append((label, s))
    code = s.wait(10)
    check(code == 3, f"{label}: exited {code}, expected 3 (refused)")
    check("Type yes" not in s.output, f"{label}: asked a question before refusing")
    check(T.history() == written, f"{label}: values written {T.history()[len(written):]}")
    check(journal_bytes() == journal, f"{label}: the journal changed: {journal_bytes()[len(journal):]!r}")
    return s


def journal_bytes():
    if not os.path.exists(T.journal_path):
        return b""
    with open(T.journal_path, "rb") as f:
        return f.read()


def case_refusals_come_before_the_question():
    """Every check wiredcap can make without writing runs before the prompt."""
    refused_without_a_question("all of RAM, outside the band", "192GiB")
    s = refused_without_a_question("over max_step from the OS default's 64 GiB", "96GiB")
    suggestion = re.search(r"wiredcap ramp --to (\S+)", ramp_test.unwrap(s.output.replace("\r", "")))
    check(suggestion, "no ramp --to suggested for a value over max_step")
    p = T.wc("ramp", "--to", suggestion.group(1), "--dry-run")
    check(p.returncode == 0, f"the suggested ramp --to {suggestion.group(1)} exited {p.returncode}: {p.stderr}")
    # A hang ceiling at 72 GiB (the simulated Mac hangs above 70 GiB while a ramp tries 80 GiB).
    T.sim("hang-above", "70GiB")
    T.wc("ramp", "--to", "80GiB", "--unattended", "--check", "true")
    T.sim("reboot")
    refused_without_a_question("at the hang ceiling", "80GiB")


def case_error_after_the_question_is_wrapped():
    """The kernel refusing the write is only known after the question; its message fits the
    40-column terminal like every other line (it was printed from the prompt's column)."""
    T.sim("fault", "write-refused", "on")
    s = PtySession(T.argv("set", "80GiB"), size=(24, 40))
    T.sessions.append(("set 80GiB answered yes, write refused, 40 columns", s))
    s.read_until(r"Type\s+yes\s+to\s+continue: ", 10)
    s.send("yes\r")
    code = s.wait(10)
    check(code == 5, f"exited {code}, expected 5 (the kernel refused the write)")
    lines = s.output.replace("\r", "").split("\n")
    wide = [line for line in lines if len(line) > 40]
    check(not wide, f"lines wider than the 40-column terminal: {wide}")


T = None  # the Tree of the running case, set by ramp_test.run_script

if __name__ == "__main__":
    sys.exit(ramp_test.run_script(globals(), sys.argv))
