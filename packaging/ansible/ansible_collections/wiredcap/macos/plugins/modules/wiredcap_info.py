#!/usr/bin/python
# wiredcap status --json as facts: every ceiling that can bind, each with its source.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: wiredcap_info
short_description: The GPU wired-memory cap and every ceiling around it, from wiredcap status
description:
  - Runs C(wiredcap status --json) (schema C(wiredcap.status/2), published with wiredcap in
    share/wiredcap/schema/status-2.json) and returns it as C(wiredcap). Changes nothing.
  - An C(_info) module returns no C(ansible_facts) (Ansible's module checklist); use C(register).
author:
  - wiredcap authors (@wiredcap)
options:
  executable:
    description: The wiredcap program (default, the package's C(/usr/local/libexec/wiredcap/wiredcap), then C(wiredcap) on C(PATH), C(/usr/local/bin), C(/opt/homebrew/bin)); as root it must be root's, in directories only root may write.
    type: path
attributes:
  check_mode:
    description: Reads only; the same in check mode.
    support: full
"""

EXAMPLES = r"""
- wiredcap.macos.wiredcap_info:
  register: cap
- ansible.builtin.debug:
    msg: "{{ cap.wiredcap.wired_limit.value }} MiB"
"""

RETURN = r"""
wiredcap:
  description: The status answer (schema C(wiredcap.status/2)).
  type: dict
  returned: always
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.wiredcap.macos.plugins.module_utils import wiredcap


def main():
    module = AnsibleModule(argument_spec=dict(executable=dict(type="path")), supports_check_mode=True)
    module.exit_json(changed=False, wiredcap=wiredcap.status(module))


if __name__ == "__main__":
    main()
