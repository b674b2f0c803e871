# Running wiredcap with --json from a module: one JSON object on stdout, also on failure
# (wiredcap's docs/json-schema.md), whose `error` is wiredcap's own message.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json


def executable(module):
    return module.params.get("executable") or module.get_bin_path("wiredcap", required=True)


def run(module, args):
    """(exit code, the JSON answer or None, stderr) of `wiredcap --json ARGS`."""
    rc, out, err = module.run_command([executable(module), "--json"] + args)
    answer = None
    lines = [line for line in out.splitlines() if line.strip()]
    if lines:
        try:
            answer = json.loads(lines[-1])
        except ValueError:
            answer = None
    return rc, answer, err


def message(answer, err, rc):
    """wiredcap's own words for a failure."""
    if answer and answer.get("error"):
        return answer["error"]
    return err.strip() or "wiredcap exited %d without a message" % rc


def answer_or_fail(module, args, **result):
    rc, answer, err = run(module, args)
    if rc != 0 or answer is None:
        module.fail_json(msg=message(answer, err, rc), rc=rc, wiredcap=answer, **result)
    return answer


def status(module):
    return answer_or_fail(module, ["status"])


def reading(obj, key):
    """The value of a reading {value, source, ...}, or None when unknown."""
    r = (obj or {}).get(key)
    return r.get("value") if isinstance(r, dict) else None


def to_mib(module, size):
    """A size with its unit as MiB, by wiredcap's own parser (a unit is never guessed)."""
    return answer_or_fail(module, ["convert", size, "--to", "MiB"])["count"]
