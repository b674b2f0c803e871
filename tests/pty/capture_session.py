"""Captures one whole human session of `wiredcap ramp` on a simulated Mac, for documentation.

    python3 capture_session.py [WIREDCAP WIREDCAP_SIM WORKDIR]

(defaults: build/dev/bin/wiredcap, build/dev/bin/wiredcap-sim, build/dev/tests/pty/work/capture).
On a 120-column pseudo-terminal, from a fresh m2ultra-192 simulator whose OS default cap is set to
64 GiB (as in ramp_test.py), with the band 64..176 GiB:
`wiredcap ramp --to 112GiB --step 16GiB --timeout 8s`, the plan, `yes` at step 1, `yes` at
step 2, then nothing at step 3 until the deadline reverts it. Prints what the terminal showed,
with the countdown's in-place redraws collapsed to their final state. Not a test: it asserts
nothing beyond the session reaching its end; ramp_test.py holds the checks.
"""

import os
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.dont_write_bytecode = True  # importing ramp_test must leave no __pycache__ in the source tree
from pty_driver import render_screen  # noqa: E402
from ramp_test import Tree, prompt, STEP1, STEP2, STEP3  # noqa: E402


def main(argv):
    root = os.path.dirname(os.path.dirname(here))
    wiredcap, sim, work = (argv[1:4] if len(argv) == 4 else
                           (os.path.join(root, "build/dev/bin/wiredcap"), os.path.join(root, "build/dev/bin/wiredcap-sim"),
                            os.path.join(root, "build/dev/tests/pty/work/capture")))
    tree = Tree(wiredcap, sim, work)
    tree.build()
    args = ["--to", "112GiB", "--step", "16GiB", "--timeout", "8s"]
    s = tree.ramp("capture", *args, size=(40, 120))
    try:
        s.read_until(prompt(1, 3, STEP1), 10)
        time.sleep(1.5)          # a person reads the plan and the question
        for c in "yes":
            s.send(c)
            time.sleep(0.15)
        s.send("\r")
        s.read_until(prompt(2, 3, STEP2), 10)
        time.sleep(1.2)
        for c in "yes":
            s.send(c)
            time.sleep(0.15)
        s.send("\r")
        s.read_until(prompt(3, 3, STEP3), 10)
        code = s.wait(20)        # silence: the deadline reverts step 3
    finally:
        s.kill()
        s.close()
    print("$ wiredcap ramp " + " ".join(args))
    print(f"  (run as: wiredcap ramp {' '.join(args)} --policy P --journal J --sim-state S; terminal 120 columns)")
    print(render_screen(s.output).replace(tree.work, "<WORK>"))
    print(f"[exit {code}]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
