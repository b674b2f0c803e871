#!/usr/bin/python
# wiredcap status --json as facts: every ceiling that can bind, each with its source.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: wiredcap_info
short_description: The GPU wired-memory cap and every ceiling around it, from wiredcap status
description:
  - Runs C(wiredcap status --json) (schema C(wiredcap.status/2), published with wiredcap in
    share/wiredcap/schema/status-2.json) and returns it as the fact C(wiredcap). Changes nothing.
options:
  executable:
    description: The wiredcap program (default, C(wiredcap) on C(PATH)).
    type: path
attributes:
  check_mode:
    support: full
"""

EXAMPLES = r"""
- wiredcap.macos.wiredcap_info:
- ansible.builtin.debug:
    msg: "{{ ansible_facts.wiredcap.wired_limit.value }} MiB"
"""

RETURN = r"""
ansible_facts:
  description: C(wiredcap), the status answer.
  type: dict
  returned: always
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.wiredcap.macos.plugins.module_utils import wiredcap


def main():
    module = AnsibleModule(argument_spec=dict(executable=dict(type="path")), supports_check_mode=True)
    module.exit_json(changed=False, ansible_facts={"wiredcap": wiredcap.status(module)})


if __name__ == "__main__":
    main()
