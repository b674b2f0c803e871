#!/usr/bin/python
# The GPU wired-memory cap of an Apple Silicon Mac, through wiredcap: inside root's band, read
# back from the kernel, journaled. Never the sysctl itself.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: wiredcap_cap
short_description: Set the Apple Silicon GPU wired-memory cap through wiredcap
description:
  - Sets C(iogpu.wired_limit_mb) with C(wiredcap set), or returns it to the OS default with
    C(wiredcap reset), and optionally stores the value for boot with C(wiredcap persist).
  - Every change is checked against the policy in C(/etc/wiredcap.conf), read back from the
    kernel and journaled by wiredcap's helper; C(changed) comes from the read-back.
  - A refusal (outside the band, more than one step from the OS default without a ramp or a
    vouched value, at or above a hang ceiling) fails the task with wiredcap's own message and
    exit code (C(rc)).
  - With I(persist=true), C(wiredcap persist VALUE --dry-run) runs first, so a value that could
    not be stored for boot fails the task before the cap is changed.
  - On an AMD Linux host the task fails, in check mode too, saying that wiredcap changes the cap
    there only by a trial boot that a reboot and a confirmation as root must follow, which this
    module does not drive; nothing is changed. M(wiredcap.macos.wiredcap_info) works there.
author:
  - wiredcap authors (@wiredcap)
options:
  value:
    description: The cap, a size with its unit (C(176GiB), C(180224MiB)), or C(default) (the same as C(state=default)); required with state=present.
    type: str
  state:
    description: C(present) sets C(value); C(default) returns to the OS default and forgets a value stored for boot.
    type: str
    choices: [present, default]
    default: present
  persist:
    description: Also store C(value) for boot (C(wiredcap persist)); it must have been confirmed in a ramp on the Mac, or be vouched for by the policy.
    type: bool
    default: false
  after_planned_reboot:
    description:
      - This play rebooted the Mac on purpose (an C(ansible.builtin.reboot) task before this one), so
        a raise C(wiredcap set) wrote that was in force then did not hang it. Every such suspect is
        answered C(wiredcap recover --not-hung) first, journaled by wiredcap's helper with the
        caller's uid (root's answer alone settles one); C(recover) then exits 0 again.
      - Never set it after a restart nobody planned (a hang ends in one too), nor always, by habit;
        a value in force for days can still hang when a larger model wires memory.
    type: bool
    default: false
  executable:
    description: The wiredcap program (default, the package's C(/usr/local/libexec/wiredcap/wiredcap), then C(wiredcap) on C(PATH), C(/usr/local/bin), C(/opt/homebrew/bin)); as root it must be root's, in directories only root may write.
    type: path
attributes:
  check_mode:
    description: Runs wiredcap's dry runs (C(set), C(persist), C(reset) with C(--dry-run)), which make every check of the real run, the helper's under its lock, and change nothing; the task fails where the real run would, with the same message and C(rc), and C(changed) is what the real run would change.
    support: full
  diff_mode:
    description: Shows the knob and the value stored for boot before and after, in MiB.
    support: full
"""

EXAMPLES = r"""
- name: The value validated for this kind of Mac, now and at boot
  wiredcap.macos.wiredcap_cap:
    value: 176GiB
    persist: true
- name: Back to the OS default
  wiredcap.macos.wiredcap_cap:
    state: default
- name: The patch window's reboot, planned by this play
  ansible.builtin.reboot:
- name: Planned, so no hang - settle what set left in force, then converge again
  wiredcap.macos.wiredcap_cap:
    value: 176GiB
    after_planned_reboot: true
"""

RETURN = r"""
wired_limit_mib:
  description: iogpu.wired_limit_mb after the task, as the kernel reads it (0 is the OS default; null when unknown).
  type: int
  returned: always
persisted_mib:
  description: The value stored for boot after the task (null when none).
  type: int
  returned: always
settled_mib:
  description: With after_planned_reboot, the suspects answered not-hung (in check mode, those that would be), in MiB.
  type: list
  elements: int
  returned: always
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.wiredcap.macos.plugins.module_utils import wiredcap


def state_of(status):
    return {
        "wired_limit_mib": wiredcap.reading(status, "wired_limit"),
        "persisted_mib": wiredcap.reading(status.get("boot_guard"), "stored"),
    }


def as_text(s):
    def mib(v):
        return "unknown" if v is None else "%d MiB" % v
    stored = "none" if s["persisted_mib"] is None else mib(s["persisted_mib"])
    return "iogpu.wired_limit_mb: %s\nstored for boot: %s\n" % (mib(s["wired_limit_mib"]), stored)


def to_default(module):
    """state=default, or value=default: wiredcap's own word for the OS default, in both modes."""
    return module.params["state"] == "default" or (module.params["value"] or "").strip().lower() == "default"


def wanted(module, before):
    if to_default(module):
        return {"wired_limit_mib": 0, "persisted_mib": None}
    mib = wiredcap.to_mib(module, module.params["value"])
    return {"wired_limit_mib": mib, "persisted_mib": mib if module.params["persist"] else before["persisted_mib"]}


def suspects(module):
    """The values `wiredcap recover` holds as suspects (it exits 10 while there is one); reading
    them changes nothing."""
    rc, answer, err = wiredcap.run(module, ["recover"])
    if rc not in (0, 10) or answer is None:
        module.fail_json(msg=wiredcap.message(answer, err, rc), rc=rc, wiredcap=answer)
    return [s.get("value") for s in answer.get("suspects") or []]


def settle_planned_reboot(module):
    """after_planned_reboot: the play's own word that its reboot was planned, given explicitly
    for every suspect (recover --not-hung); never inferred from how long a value was in force."""
    if not module.params["after_planned_reboot"]:
        return []
    found = suspects(module)
    if found and not module.check_mode:
        wiredcap.answer_or_fail(module, ["recover", "--not-hung"])
    return found


def dry_run(module, args):
    """wiredcap's decision on ARGS without acting on it (--dry-run): every check of the real run,
    the helper's under its lock; the task fails where the run would, with wiredcap's message and
    exit code. True when the run would change something."""
    return bool(wiredcap.answer_or_fail(module, args + ["--dry-run"]).get("would_change"))


def check(module):
    """Check mode: the dry runs of what apply() runs, in its order."""
    if to_default(module):
        return dry_run(module, ["reset"])
    value = module.params["value"]
    stores = module.params["persist"] and dry_run(module, ["persist", value])
    return dry_run(module, ["set", value, "--yes"]) or stores


def apply(module, before):
    """Runs wiredcap; True when a read-back says something changed."""
    if to_default(module):
        return bool(wiredcap.answer_or_fail(module, ["reset"]).get("changed"))
    value = module.params["value"]
    if module.params["persist"]:
        dry_run(module, ["persist", value])  # a persist that would be refused fails before set changes anything
    changed = bool(wiredcap.answer_or_fail(module, ["set", value, "--yes"]).get("changed"))
    if module.params["persist"]:
        stored = wiredcap.answer_or_fail(module, ["persist", value], changed=changed, diff={"before": as_text(before)})
        changed = changed or bool(stored.get("changed"))
    return changed


def main():
    module = AnsibleModule(
        argument_spec=dict(
            value=dict(type="str"),
            state=dict(type="str", choices=["present", "default"], default="present"),
            persist=dict(type="bool", default=False),
            after_planned_reboot=dict(type="bool", default=False),
            executable=dict(type="path"),
        ),
        required_if=[("state", "present", ("value",))],
        supports_check_mode=True,
    )
    before = state_of(wiredcap.mac_status(module))
    settled = settle_planned_reboot(module)
    if module.check_mode:
        changed = check(module) or bool(settled)
        after = wanted(module, before) if changed else before
        module.exit_json(changed=changed, diff={"before": as_text(before), "after": as_text(after)},
                         settled_mib=settled, **before)
    changed = apply(module, before) or bool(settled)
    after = state_of(wiredcap.status(module))  # the read-back, not the request
    module.exit_json(changed=changed, diff={"before": as_text(before), "after": as_text(after)},
                     settled_mib=settled, **after)


if __name__ == "__main__":
    main()
