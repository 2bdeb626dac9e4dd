"""The fleet exports: an Ansible playbook that rolls the cache settings out to every node, a
playbook that gathers a support bundle from every node, and a Kubernetes ConfigMap.

Why this module exists: clusters of Ascend nodes are configured by the engines those sites already
run (Ansible, often air-gapped with ansible-core's builtin modules only; Kubernetes for pods), but
those engines do not know CANN's rules, and two of them make a naive roll-out harmful
(docs/cann/fleets.md, docs/cann/op-cache.md): an op_cache.ini without both version lines is
ignored (read from the CANN 8.5+ source), and version lines that differ from a node's installed
CANN make CANN empty that node's cache. So the playbook never pushes the controller's versions: a
probe (app/io/exporters/node_probe.py, embedded as text) finds each node's cache directory and
versions the way this tool does locally and edits op_cache.ini there; only ansible.builtin modules run.

- `ansible`: a first play that fails when the host pattern matches nothing; then the probe, which
  also edits op_cache.ini on the node (the CLI writer's edit, byte for byte; a new file is CANN's
  documented template with that node's versions), a notice of what CANN does with the cache next,
  and `copy` of the env-bash export (with the sizes the run uses) into a profile file. Idempotent;
  runs on ansible-core 2.13.0 (ascend-deployer's pin) to the newest.
- `ansible-collect`: `cann-config collect` on every node, `fetch` to bundles/<host>.json beside the
  playbook; a host name that is not a plain file name is refused.
- `k8s-configmap`: the environment variables as ConfigMap data (a ConfigMap volume is read-only
  and CANN writes op_cache.ini, so the sizes travel as variables).

The environment variables are those of the env-bash export: app.io.exporters.envvars.env_variables
decides them for every export (PYTORCH_NPU_ALLOC_CONF included).
Values inside YAML are double-quoted scalars written by `yaml_str`; texts the playbook must not
template are tagged `!unsafe`, so a `{{` in a user's path stays text.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from cann_config.app.i18n import pick
from cann_config.app.io.exporters.envvars import env_variables
from cann_config.app.io.exporters.plan import Plan, text_of
from cann_config.app.io.exporters.shell import write_env_bash
from cann_config.app.messages import message_table
from cann_config.app.opcache.ini import TEMPLATE_COMMENTS, TEMPLATE_HEAD

DEFAULT_GROUP = "ascend"
DEFAULT_ENV_FILE = "/etc/profile.d/cann-config.sh"
CONFIGMAP_NAME = "cann-config"
REASON_CODES = ("no-home", "not-a-file", "unreadable", "too-large", "foreign-section", "no-section", "section-twice",
                "no-versions-new", "no-versions-existing", "bad-size", "unexpanded", "relative-dir", "cr-only",
                "bom-section", "changed-since")
NOTICE_CODES = ("notice-keeps", "notice-empties", "notice-no-soc")
_YAML_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def yaml_str(value: str) -> str:
    """A YAML double-quoted scalar that reads back as exactly `value` (non-printable characters,
    line and paragraph separators included, are escapes)."""
    out = []
    for ch in value:
        special = _YAML_ESCAPES.get(ch)
        if special is not None:
            out.append(special)
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'


def _one_line(text: str) -> str:
    """A comment's text on one line: a line break would end the YAML comment."""
    return " ".join(text.replace("\r", "\n").split("\n"))


def _comments(lines: list[str], indent: str = "") -> list[str]:
    return [f"{indent}# {_one_line(line)}" if line else f"{indent}#" for line in lines]


def _block(text: str, indent: str) -> list[str]:
    """`text` as the lines of a YAML literal block scalar at `indent`."""
    return [f"{indent}{line}" if line else "" for line in text.rstrip("\n").split("\n")]


def probe_script() -> str:
    """The node probe's source, as embedded in the playbook."""
    return (Path(__file__).with_name("node_probe.py")).read_text(encoding="utf-8")


def env_file_text(plan: Plan) -> str:
    """The env-bash export of the same choices: the profile file the playbook writes."""
    header = plan.header[:2] + [text_of("export-text-use-env-bash", plan.lang)]
    return write_env_bash(replace(plan, fmt="env-bash", header=header))


def _ini_sizes(plan: Plan) -> tuple[int, int]:
    values = []
    for oid in ("max_op_cache_size", "remain_cache_size_ratio"):
        value = plan.profile.value(oid, plan.catalog)
        values.append(value if isinstance(value, int) else int(plan.catalog.default_for(oid)))
    return values[0], values[1]


def probe_texts(lang: str) -> dict[str, str]:
    """The texts the probe fills in on a node: why a node is refused, what CANN does next."""
    table = message_table()
    texts = {code: pick(table[f"fleet-reason-{code}"].text, lang) for code in REASON_CODES}
    texts.update({code: pick(table[f"fleet-{code}"].text, lang) for code in NOTICE_CODES})
    return texts


def unexpanded_dir(path: str) -> bool:
    """Whether a chosen cache dir holds `~` or `$`: CANN takes op_compiler_cache_dir literally
    (no shell expansion, docs/cann/fleets.md#paths), so such a dir is not where the user means."""
    return path.strip(" \t").startswith("~") or "$" in path


def _unsafe_map(values: dict[str, str], indent: str) -> list[str]:
    return [f"{indent}{key}: !unsafe {yaml_str(value)}" for key, value in values.items()]


# Which hosts, when -e cann_hosts is not given: the group `ascend` of a plain inventory, else
# ascend-deployer's `npu_node` when it has hosts, else its `worker` (docs/cann/fleets.md#ascend-deployer).
DEFAULT_PATTERN = ("cann_hosts | default('ascend' if groups['ascend'] | default([]) else "
                   "('npu_node' if groups['npu_node'] | default([]) else 'worker'))")


def _hosts_check(title: str, no_hosts: str) -> list[str]:
    """A first play that fails, naming the pattern, when it matches no host: Ansible itself
    skips a play without hosts and exits 0, so the roll-out would silently do nothing."""
    return [
        f"- name: {yaml_str(title)}",
        "  hosts: localhost",
        "  gather_facts: false",
        "  vars:",
        "    cann_pattern: \"{{ " + DEFAULT_PATTERN + " }}\"",
        f"    cann_no_hosts_text: !unsafe {yaml_str(no_hosts)}",
        "  tasks:",
        f"    - name: {yaml_str(title)}",
        "      ansible.builtin.fail:",
        "        msg: \"{{ cann_no_hosts_text | replace('@PATTERN@', cann_pattern) }}\"",
        "      when: query('inventory_hostnames', cann_pattern) | length == 0",
        "",
    ]


def write_ansible(plan: Plan) -> str:
    lang = plan.lang
    max_size, ratio = _ini_sizes(plan)
    chosen_dir = plan.profile.value("op_compiler_cache_dir", plan.catalog)
    head = plan.header + [""] + [text_of(f"fleet-ansible-{part}", lang) for part in
                                 ("what", "run", "user", "dir", "versions", "ini", "env", "fail", "next")]
    out = ["---"] + _comments(head)
    out += _hosts_check(text_of("fleet-hosts-title", lang), text_of("fleet-hosts-none", lang, pattern="@PATTERN@"))
    out += [
        f"- name: {yaml_str(text_of('fleet-ansible-title', lang))}",
        "  hosts: \"{{ " + DEFAULT_PATTERN + " }}\"",
        "  gather_facts: false",
        '  environment: "{{ cann_environment | default({}) }}"',
        "  vars:",
    ]
    out += _comments([text_of("fleet-ansible-vars-sizes", lang)], "    ")
    out += [f"    cann_default_max_op_cache_size: {max_size}", f"    cann_default_remain_cache_size_ratio: {ratio}"]
    out += _comments([text_of("fleet-ansible-vars-dir", lang)], "    ")
    # An empty `!unsafe ""` reads as None on ansible-core 2.19: only a path is tagged.
    unsafe = "!unsafe " if chosen_dir else ""
    out += [f"    cann_default_cache_dir: {unsafe}{yaml_str(str(chosen_dir or ''))}",
            f"    cann_framework: {yaml_str(plan.profile.framework)}",
            "    cann_texts:"]
    out += _unsafe_map(probe_texts(lang), "      ")
    out += ["    cann_template:", f"      head: !unsafe {yaml_str(TEMPLATE_HEAD)}", "      comments:"]
    out += [f"        - !unsafe {yaml_str(TEMPLATE_COMMENTS[key])}" for key in ("max_op_cache_size",
                                                                                 "remain_cache_size_ratio")]
    out += ["    cann_env_text: !unsafe |"]
    out += _block(env_file_text(plan), "      ")
    out += _comments([text_of("fleet-ansible-vars-probe", lang)], "    ")
    out += ["    cann_probe_script: !unsafe |"] + _block(probe_script(), "      ")
    out += ["", "  tasks:"]
    task = lambda code: f"    - name: {yaml_str(text_of(code, lang))}"  # noqa: E731
    size_re = "'(?m)^(# )?export {name}=.*$', 'export {name}=' ~ cann_node.sizes.{key}"
    env_content = ("{{ cann_env_text | regex_replace(" + size_re.format(name="ASCEND_MAX_OP_CACHE_SIZE",
                                                                        key="max_op_cache_size")
                   + ") | regex_replace(" + size_re.format(name="ASCEND_REMAIN_CACHE_SIZE_RATIO",
                                                          key="remain_cache_size_ratio") + ") }}")
    out += [
        task("fleet-ansible-task-probe"),
        "      ansible.builtin.command:",
        "        argv:",
        "          - \"{{ cann_python | default(ansible_python_interpreter | default('python3')) }}\"",
        '          - "-"',
        # base64: no ansible-core version takes the text for data of its own (before 2.19 a
        # JSON-looking argument became a dict, rendered as a Python repr).
        '          - "{{ cann_probe_args | to_json | b64encode }}"',
        '        stdin: "{{ cann_probe_script }}"',
        "      vars:",
        "        cann_probe_args:",
        "          cache_dir: \"{{ cann_cache_dir | default(cann_default_cache_dir) | string }}\"",
        '          framework: "{{ cann_framework }}"',
        "          max_op_cache_size: \"{{ cann_max_op_cache_size | default(cann_default_max_op_cache_size)"
        " | string }}\"",
        "          remain_cache_size_ratio: \"{{ cann_remain_cache_size_ratio"
        " | default(cann_default_remain_cache_size_ratio) | string }}\"",
        '          texts: "{{ cann_texts }}"',
        '          template: "{{ cann_template }}"',
        '          check: "{{ ansible_check_mode | bool }}"',
        "      register: cann_probe",
        "      changed_when: (cann_probe.stdout | from_json).changed",
        "      check_mode: false",
        "",
        "    - name: cann_node",
        "      ansible.builtin.set_fact:",
        '        cann_node: "{{ cann_probe.stdout | from_json }}"',
        "",
        task("fleet-ansible-task-fail"),
        "      ansible.builtin.fail:",
        '        msg: "{{ inventory_hostname }}: {{ cann_node.problem }}"',
        "      when: cann_node.problem is not none",
        "",
        task("fleet-ansible-task-next"),
        "      ansible.builtin.debug:",
        '        msg: "{{ inventory_hostname }}: {{ cann_node.notice }}"',
        "      when: cann_node.notice is not none",
        "",
        task("fleet-ansible-task-diff"),
        "      ansible.builtin.debug:",
        '        msg: "{{ cann_node.diff.splitlines() }}"',
        "      when: (ansible_check_mode or ansible_diff_mode) and cann_node.diff | length > 0",
        "",
        task("fleet-ansible-task-env"),
        "      ansible.builtin.copy:",
        "        dest: \"{{ cann_env_file | default('" + DEFAULT_ENV_FILE + "') }}\"",
        f'        content: "{env_content}"',
        '        mode: "0644"',
        "        backup: true",
        '      become: "{{ cann_env_become | default(false) | bool }}"',
    ]
    return "\n".join(out) + "\n"


def write_ansible_collect(plan: Plan) -> str:
    lang = plan.lang
    head = [text_of("fleet-collect-what", lang), text_of("fleet-collect-tool", lang)]
    out = ["---"] + _comments(head)
    out += _hosts_check(text_of("fleet-hosts-title", lang), text_of("fleet-hosts-none", lang, pattern="@PATTERN@"))
    task = lambda code: f"    - name: {yaml_str(text_of(code, lang))}"  # noqa: E731
    tool = "{{ cann_tool if (cann_tool | default('')) else (cann_tool_dir ~ '/cann-config/cann-config') }}"
    out += [
        f"- name: {yaml_str(text_of('fleet-collect-title', lang))}",
        "  hosts: \"{{ " + DEFAULT_PATTERN + " }}\"",
        "  gather_facts: false",
        # The same environment as the roll-out playbook's, so a bundle shows what the jobs see.
        '  environment: "{{ cann_environment | default({}) }}"',
        "  vars:",
        "    cann_default_tool_dir: /tmp/cann-config-tool",
        f"    cann_bad_name_text: !unsafe {yaml_str(text_of('fleet-collect-bad-name', lang))}",
        "  tasks:",
        "    - name: cann_tool",
        "      ansible.builtin.fail:",
        f"        msg: {yaml_str(text_of('fleet-collect-no-tool', lang))}",
        "      when: not (cann_tool | default('')) and not (cann_tool_tarball | default(''))",
        "",
        # The bundle is saved as <inventory_hostname>.json: a name that is not a plain file name
        # (a dynamic inventory's `../x`) would write outside the bundles folder.
        "    - name: inventory_hostname",
        "      ansible.builtin.fail:",
        '        msg: "{{ inventory_hostname | to_json }}: {{ cann_bad_name_text }}"',
        "      when: >-",
        "        ('/' in inventory_hostname) or (inventory_hostname in ['', '.', '..'])",
        "        or (inventory_hostname is search('[\\x00-\\x1f\\x7f]'))",
        "",
        task("fleet-collect-task-dir"),
        "      ansible.builtin.file:",
        '        path: "{{ cann_tool_dir | default(cann_default_tool_dir) }}"',
        "        state: directory",
        '        mode: "0755"',
        "      when: not (cann_tool | default(''))",
        "",
        task("fleet-collect-task-unpack"),
        "      ansible.builtin.unarchive:",
        '        src: "{{ cann_tool_tarball }}"',
        '        dest: "{{ cann_tool_dir | default(cann_default_tool_dir) }}"',
        "      when: not (cann_tool | default(''))",
        "",
        task("fleet-collect-task-tempfile"),
        "      ansible.builtin.tempfile:",
        "        suffix: .json",
        "      register: cann_bundle_file",
        "",
        task("fleet-collect-task-collect"),
        "      ansible.builtin.command:",
        "        argv:",
        f'          - "{tool}"',
        "          - collect",
        "          - -o",
        '          - "{{ cann_bundle_file.path }}"',
        "          - --lang",
        f"          - {lang}",
        "      changed_when: false",
        "",
        task("fleet-collect-task-fetch"),
        "      ansible.builtin.fetch:",
        '        src: "{{ cann_bundle_file.path }}"',
        "        dest: \"{{ cann_bundles_dir | default(playbook_dir ~ '/bundles') }}/{{ inventory_hostname }}.json\"",
        "        flat: true",
        "",
        task("fleet-collect-task-clean"),
        "      ansible.builtin.file:",
        '        path: "{{ cann_bundle_file.path }}"',
        "        state: absent",
        "      changed_when: false",
        "",
        task("fleet-collect-task-clean-tool"),
        "      ansible.builtin.file:",
        '        path: "{{ cann_tool_dir | default(cann_default_tool_dir) }}"',
        "        state: absent",
        "      when: not (cann_tool | default('')) and not (cann_tool_keep | default(false) | bool)",
    ]
    return "\n".join(out) + "\n"


def write_k8s_configmap(plan: Plan) -> str:
    lang = plan.lang
    head = plan.header + [""] + [text_of("fleet-k8s-what", lang), "", text_of("fleet-k8s-use", lang)]
    usage = ["  containers:", "    - name: train", "      envFrom:", "        - configMapRef:",
             f"            name: {CONFIGMAP_NAME}"]
    out = _comments(head) + [f"#   {line}" for line in usage] + _comments(
        ["", text_of("fleet-k8s-why-env", lang), text_of("fleet-k8s-shared", lang)])
    out += ["apiVersion: v1", "kind: ConfigMap", "metadata:", f"  name: {CONFIGMAP_NAME}",
            "  labels:", "    app.kubernetes.io/managed-by: cann-config"]
    data: list[str] = []
    any_set = False
    # The same variables, names and values as env-bash (PYTORCH_NPU_ALLOC_CONF included).
    for variable in env_variables(plan):
        data += _comments(list(variable.comments), "  ")
        if variable.kind == "set":
            data.append(f"  {variable.name}: {yaml_str(variable.text)}")
            any_set = True
        elif variable.kind == "default":
            data.append(f"  # {variable.name}: {yaml_str(variable.text)}")
    # A ConfigMap without keys is valid as `data: {}`: the manifest still applies.
    out += ["data:" if any_set else "data: {}"] + data
    trailing = [line for e in plan.trailing() for line in e.comments]
    if trailing:
        out += _comments(trailing)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# Reading the exports back (app.io.importers.read_ansible_playbook, read_configmap)
# ---------------------------------------------------------------------------------------------

_YAML_UNESCAPES = {"\\": "\\", '"': '"', "n": "\n", "r": "\r", "t": "\t"}
_CONFIGMAP_ITEM = re.compile(r'^  ([A-Za-z_][A-Za-z0-9_.\-]*): (".*")$')


def yaml_unstr(text: str) -> str:
    """The value of a double-quoted scalar written by `yaml_str` (ValueError for anything else)."""
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise ValueError(f"not a quoted value: {text!r}")
    out, i, body = [], 0, text[1:-1]
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        code = body[i + 1:i + 2]
        if code in _YAML_UNESCAPES:
            out.append(_YAML_UNESCAPES[code])
            i += 2
        elif code in ("u", "U"):
            size = 4 if code == "u" else 8
            out.append(chr(int(body[i + 2:i + 2 + size], 16)))
            i += 2 + size
        else:
            raise ValueError(f"unknown escape \\{code}")
    return "".join(out)


def playbook_env_text(text: str) -> tuple[str, int]:
    """The env-bash text the `ansible` playbook writes (its `cann_env_text` block) and the line
    number it starts on; ("", 0) when the text has none."""
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        if line.strip() == "cann_env_text: !unsafe |":
            indent = len(line) - len(line.lstrip()) + 2
            block = []
            for inner in lines[number:]:
                if inner and (len(inner) - len(inner.lstrip()) < indent):
                    break
                block.append(inner[indent:])
            return "\n".join(block).rstrip("\n") + "\n", number + 1
    return "", 0


def configmap_items(text: str) -> list[tuple[str, str, int]]:
    """(name, value, line) of every key the ConfigMap's `data` sets (commented lines are not)."""
    items, in_data = [], False
    for number, line in enumerate(text.split("\n"), 1):
        if not line.startswith((" ", "#")):
            in_data = line.startswith("data:")
            continue
        match = _CONFIGMAP_ITEM.match(line) if in_data else None
        if match:
            try:
                items.append((match.group(1), yaml_unstr(match.group(2)), number))
            except ValueError:
                continue
    return items
