# Running wiredcap with --json from a module: one JSON object on stdout, also on failure
# (wiredcap's docs/json-schema.md), whose `error` is wiredcap's own message.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import stat

# Where wiredcap is looked for, in order: the package's root-owned copy, then PATH, then where
# the package and Homebrew put the command. A non-interactive ssh session on a Mac has neither
# /usr/local/bin nor /opt/homebrew/bin on its PATH.
ROOTS_COPY = "/usr/local/libexec/wiredcap"
AFTER_PATH = ["/usr/local/bin", "/opt/homebrew/bin"]


def find(module):
    dirs = [ROOTS_COPY] + os.environ.get("PATH", "").split(os.pathsep) + AFTER_PATH
    for d in dirs:
        path = os.path.join(d, "wiredcap") if d else None
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    module.fail_json(msg="wiredcap not found in %s" % os.pathsep.join(d for d in dirs if d))


def untrusted(path):
    """Why root may not run PATH, or None: PATH is no link, and it and every directory above it
    (as written and resolved) are root's and writable by root alone (packaging/fleet/root-chain.sh
    says the same for the shell scripts)."""
    if not os.path.isabs(path):
        return "%s is not an absolute path" % path
    if os.path.islink(path):
        return "%s is a symbolic link" % path
    for start in (path, os.path.realpath(os.path.dirname(path))):
        p = start
        while True:
            try:
                st = os.lstat(p)
            except OSError as e:
                return "cannot read %s (%s)" % (p, e.strerror)
            if st.st_uid != 0:
                return "%s is owned by uid %d, not root" % (p, st.st_uid)
            if not stat.S_ISLNK(st.st_mode) and st.st_mode & 0o022:
                return "%s is writable by its group or by others (mode %o)" % (p, stat.S_IMODE(st.st_mode))
            if p == "/":
                break
            p = os.path.dirname(p)
    return None


def executable(module):
    """The wiredcap to run. As root (become), only one nobody else may replace: otherwise the
    task fails naming the path, and nothing is run."""
    path = module.params.get("executable") or find(module)
    if os.geteuid() == 0:
        why = untrusted(path)
        if why:
            module.fail_json(msg="refusing to run %s as root: %s (whoever may change it may replace "
                                 "what runs as root)" % (path, why))
    return path


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


# On an AMD Linux host wiredcap changes the cap only by a trial boot that a reboot and a
# confirmation as root must follow (docs/linux.md), which a task cannot finish by itself.
LINUX_REFUSAL = ("this host is Linux, where wiredcap changes the GPU cap (TTM's pages_limit) only "
                 "by a trial boot that must be rebooted into and then confirmed "
                 "(`wiredcap set SIZE`, a reboot, `wiredcap-system ttm-confirm`: docs/linux.md), "
                 "which wiredcap.macos.wiredcap_cap does not drive; nothing was changed")


def mac_status(module):
    """status --json of a Mac; on a Linux host the task fails with LINUX_REFUSAL, in check mode
    as in a real run, before anything is run that could change the cap."""
    answer = status(module)
    if str(answer.get("schema", "")).startswith("wiredcap.linux-status/"):
        module.fail_json(msg=LINUX_REFUSAL, wiredcap=answer)
    return answer


def reading(obj, key):
    """The value of a reading {value, source, ...}, or None when unknown."""
    r = (obj or {}).get(key)
    return r.get("value") if isinstance(r, dict) else None


def to_mib(module, size):
    """A size with its unit as MiB, by wiredcap's own parser (a unit is never guessed)."""
    return answer_or_fail(module, ["convert", size, "--to", "MiB"])["count"]
