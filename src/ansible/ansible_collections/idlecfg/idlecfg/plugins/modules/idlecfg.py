#!/usr/bin/python
# -*- coding: utf-8 -*-
# idlecfg: the Ansible module of idlecfg's collection (src/ansible/)
# GNU General Public License v2.0 or later (see COPYING)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: idlecfg
short_description: Configure a machine's idle power management with idlecfg
version_added: "0.1.0"
description:
  - Wraps the C(idlecfg) command, as community.general wraps a command.
  - C(state=present) runs C(idlecfg install), which writes udev rules, modprobe.d options,
    tmpfiles.d and sysctl.d lines and the kernel command line for the profile,
    with a manifest that C(state=absent) (C(idlecfg rollback install)) undoes exactly.
  - C(state=checked) runs C(idlecfg verify), the running system held against the plan
    (the installed profile unless I(profile)); settings that drift fail the task.
  - Check mode runs C(idlecfg install --check --json), which writes nothing.
  - Diff mode shows each file's unified diff, from the C(diff) of the install JSON.
  - A boot step that is still pending (C(update-grub), C(kernel-install),
    C(update-initramfs), command-line words for the boot loader; idlecfg exit 4)
    counts as work to do, in check mode too; the task reports C(changed), a
    warning, and C(boot_step_pending=true) with the steps' argv in C(next_steps),
    for a handler to run.
  - Exit 2 (usage or bad input, a refused manifest), 3 (runtime failure) and
    6 (another power tool, C(--refuse-conflicts)) fail the task with idlecfg's message.
options:
  state:
    description:
      - C(present) installs, C(absent) rolls the install back, C(checked) verifies.
    type: str
    choices: [present, absent, checked]
    default: present
  profile:
    description:
      - The profile (C(--profile)); default as idlecfg chooses (idlecfg.conf, else the
        chassis). With C(state=checked), default the installed one.
    type: str
  root:
    description:
      - The system to configure (C(--root)); default C(/).
    type: path
    default: /
  options:
    description:
      - More options as the command line has them, for example C(--refuse-conflicts),
        C(--force), C(--kernel=6.1.0-18-amd64) or C(--profiles-dir=/srv/profiles).
      - Options that change what the module manages or what idlecfg prints for it
        are refused (the task fails), abbreviations too; C(--root) (use I(root), since an
        install would write into another root than the one C(state=absent) rolls
        back), C(--profile) (use I(profile)), C(--image), and the output and mode
        options the module sets itself (C(--json), C(--format), C(--check),
        C(--dry-run), C(--diff), C(--boot-steps), C(--nagios), C(--output), ...).
    type: list
    elements: str
    default: []
  binary:
    description:
      - The idlecfg program; default C(idlecfg) in the PATH (and /usr/sbin, /sbin).
    type: path
notes:
  - Supports check mode and diff mode.
  - idlecfg runs none of the boot steps; a handler runs the C(argv) of each
    C(next_steps) entry with C(boot=true) (see the examples).
author:
  - idlecfg authors
'''

EXAMPLES = r'''
- name: idle power management
  idlecfg.idlecfg.idlecfg:
    profile: powersave
  register: idlecfg
  notify: idlecfg boot steps

# handlers:
- name: idlecfg boot steps
  ansible.builtin.command:
    argv: "{{ item.argv }}"
  loop: "{{ idlecfg.next_steps | selectattr('boot') | selectattr('argv') | list }}"

- name: is everything in effect?
  idlecfg.idlecfg.idlecfg:
    state: checked

- name: take it back
  idlecfg.idlecfg.idlecfg:
    state: absent
  register: idlecfg_absent
  notify: idlecfg boot steps after rollback

# handlers:
- name: idlecfg boot steps after rollback
  ansible.builtin.command:
    argv: "{{ item.argv }}"
  loop: "{{ idlecfg_absent.next_steps | selectattr('boot') | selectattr('argv') | list }}"
'''

RETURN = r'''
changed:
  description: Files were (check mode, would be) written or restored, or a boot step is pending.
  type: bool
  returned: always
files:
  description: The files install writes and what it did with each (path, kind, action, settings).
  type: list
  elements: dict
  returned: state=present
next_steps:
  description:
    - What is left to do (id, argv or null for a step by hand, boot, why, words);
      after C(state=absent), the steps that take idlecfg's words and options out
      of the boot artifacts (grub.cfg, the initramfs, a UKI or boot entry).
  type: list
  elements: dict
  returned: always
boot_step_pending:
  description: The boot configuration still lacks a step (idlecfg exit 4).
  type: bool
  returned: always
messages:
  description: What rollback said, a line each (state=absent).
  type: list
  elements: str
  returned: state=absent and a rollback ran
warnings:
  description:
    - idlecfg's warnings (another power tool, the plan, the root's files) and
      the boot step still pending, as the task's warnings.
  type: list
  elements: str
  returned: when there are some
profile:
  description: The profile installed or verified.
  type: str
  returned: state=present, state=checked
exit_status:
  description:
    - idlecfg's exit status (0, 1 some files left alone by rollback or settings that
      drift, 4 a boot step pending, 5 check mode and a file would change).
  type: int
  returned: always
rc:
  description: idlecfg's exit status when the task fails (2, 3, 6; 1 for C(state=checked)'s drift is I(exit_status)).
  type: int
  returned: failed
verify:
  description:
    - The VERIFY JSON of idlecfg(8) (profile, settings with wanted, actual and state,
      blockers, next_steps, ...), as C(idlecfg verify --json) printed it.
  type: dict
  returned: state=checked
'''

import json
import os

from ansible.module_utils.basic import AnsibleModule

EXIT_DRIFT = 1
# the options of idlecfg the module sets itself, or that would change what
# it manages (#44 N34: with --root=OTHER in options, install writes into
# OTHER while state=absent looks for the manifest under root)
REFUSED = {
    'root': 'use the root parameter',
    'profile': 'use the profile parameter',
    'image': 'the module configures the machine of its root, not an image',
    'json': 'the module reads the JSON it asks for',
    'format': 'the module reads the JSON it asks for',
    'check': 'check mode is Ansible\'s (--check)',
    'dry-run': 'check mode is Ansible\'s (--check)',
    'diff': 'diff mode is Ansible\'s (--diff)',
    'boot-steps': 'a handler runs the steps of next_steps',
    'nagios': 'the module reads the JSON it asks for',
    'output': 'the module reads the JSON it asks for',
    'measure': 'the module reads the JSON it asks for',
    'condition': 'the first-boot unit\'s',
    'help': 'not an option for a run',
    'version': 'not an option for a run',
}
# options of idlecfg that begin like a refused one, taken as themselves
ALLOWED_PREFIXED = {'profiles-dir'}
EXIT_BOOT_INCOMPLETE = 4
EXIT_WOULD_CHANGE = 5


def idlecfg_json(module, args, ok):
    """Run idlecfg with ARGS; its JSON, or fail the task with its message
    when the exit status is not in OK."""
    rc, out, err = module.run_command(args)
    if rc not in ok:
        module.fail_json(msg=(err.strip() or out.strip() or 'idlecfg exited %d' % rc), rc=rc,
                         cmd=args, stdout=out, stderr=err)
    try:
        data = json.loads(out)
    except ValueError:
        module.fail_json(msg='idlecfg printed no JSON', rc=rc, cmd=args, stdout=out, stderr=err)
    return rc, data, err


def messages(data, err):
    """the warnings: those of the JSON, else the ones on stderr"""
    found = [w.get('message', '') for w in data.get('warnings', [])]
    for line in err.splitlines():
        if line.startswith('idlecfg: warning: ') and line[len('idlecfg: warning: '):] not in found:
            found.append(line[len('idlecfg: warning: '):])
    return found


def boot_warning(data):
    steps = [' '.join(s['argv']) if s.get('argv') else 'add to the kernel command line: ' +
             ' '.join(s.get('words') or []) for s in data.get('next_steps', []) if s.get('boot')]
    return 'idlecfg: the boot configuration still lacks a step: ' + '; '.join(steps)


def present(module, base):
    profile = module.params['profile']
    if profile:
        base = base + ['--profile', profile]
    # check mode, and diff mode's before/after: install --check --json writes nothing
    check_rc, check, err = idlecfg_json(module, base + ['install', '--check', '--json'],
                                        (0, EXIT_BOOT_INCOMPLETE, EXIT_WOULD_CHANGE))
    result = dict(changed=check_rc != 0, exit_status=check_rc)
    if module._diff and check.get('diff'):
        result['diff'] = dict(prepared=check['diff'])
    data = check
    if not module.check_mode and check_rc != 0:
        rc, data, err = idlecfg_json(module, base + ['install', '--json'], (0, EXIT_BOOT_INCOMPLETE))
        result['exit_status'] = rc
        result['changed'] = data.get('changed', False) or rc == EXIT_BOOT_INCOMPLETE
    pending = bool(data.get('boot_incomplete'))
    result.update(files=data.get('files', []), next_steps=data.get('next_steps', []),
                  boot_step_pending=pending, profile=data.get('profile'))
    # (the task's warnings: Ansible shows them and returns them as warnings)
    for w in messages(data, err):
        module.warn(w)
    if pending:
        module.warn(boot_warning(data))
    module.exit_json(**result)


def absent(module, base):
    manifest = os.path.join(module.params['root'], 'var/lib/idlecfg/manifest')
    installed = os.path.lexists(manifest)
    if module.check_mode:
        # rollback has no dry run: it would undo what the manifest lists
        module.exit_json(changed=installed, exit_status=0, boot_step_pending=False)
    # asked even without a manifest: a boot artifact may still hold what an
    # earlier rollback took out of the files, until its step has run
    # 1: files changed by someone else were left alone (said on stderr);
    # 4: every file is back, and a boot artifact (grub.cfg, the initramfs, a
    # UKI or boot entry) still holds what idlecfg installed until its step runs
    rc, data, err = idlecfg_json(module, base + ['rollback', 'install', '--json'],
                                 (0, EXIT_DRIFT, EXIT_BOOT_INCOMPLETE))
    for w in err.splitlines():
        if w.strip():
            module.warn(w)
    pending = rc == EXIT_BOOT_INCOMPLETE or bool(data.get('boot_incomplete'))
    if pending:
        module.warn(boot_warning(data))
    module.exit_json(changed=installed, exit_status=rc, messages=data.get('messages', []),
                     next_steps=data.get('next_steps', []), boot_step_pending=pending)


def checked(module, base):
    if module.params['profile']:
        base = base + ['--profile', module.params['profile']]
    rc, data, err = idlecfg_json(module, base + ['verify', '--json'], (0, EXIT_DRIFT, EXIT_BOOT_INCOMPLETE))
    pending = bool(data.get('boot_incomplete'))
    result = dict(changed=False, exit_status=rc, verify=data, next_steps=data.get('next_steps', []),
                  boot_step_pending=pending, profile=data.get('profile'))
    for w in messages(data, err):
        module.warn(w)
    if rc == EXIT_DRIFT:
        module.fail_json(msg='idlecfg verify: some planned settings are not in effect (drift or missing)',
                         **result)
    if pending:
        module.warn(boot_warning(data))
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type='str', default='present', choices=['present', 'absent', 'checked']),
            profile=dict(type='str'),
            root=dict(type='path', default='/'),
            options=dict(type='list', elements='str', default=[]),
            binary=dict(type='path'),
        ),
        supports_check_mode=True,
    )
    binary = module.params['binary'] or module.get_bin_path('idlecfg', required=True,
                                                            opt_dirs=['/usr/sbin', '/sbin'])
    for o in module.params['options']:
        if not o.startswith('--'):
            module.fail_json(msg="options: '%s' is not an option of idlecfg (--name or --name=value)" % o)
        name = o[2:].split('=', 1)[0]
        # getopt takes any unambiguous prefix: --ro=OTHER is --root
        refused = [r for r in REFUSED if name and r.startswith(name)]
        if refused and name not in ALLOWED_PREFIXED:
            module.fail_json(msg="options: '%s' (--%s) is the module's to set: %s" % (o, refused[0], REFUSED[refused[0]]))
    base = [binary, '--root', module.params['root']] + module.params['options']
    # idlecfg's messages as they are, untranslated, for the task's msg
    module.run_command_environ_update = dict(LANG='C', LC_ALL='C', LANGUAGE='')
    dict(present=present, absent=absent, checked=checked)[module.params['state']](module, base)


if __name__ == '__main__':
    main()
