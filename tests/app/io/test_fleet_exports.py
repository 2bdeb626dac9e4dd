"""The fleet exports without Ansible: the node probe agrees with the tool's own rules, the
playbooks are well-formed and safe to template, the ConfigMap parses with the expected keys."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cann_config.app.device.hostprobe import installed_versions
from cann_config.app.io.exporters import export_text
from cann_config.app.io.exporters.fleet import NOTICE_CODES, REASON_CODES, probe_script, probe_texts, yaml_str
from cann_config.app.io.exporters.node_probe import cache_base, probe
from cann_config.app.opcache.cachedir import resolve_cache_dir
from cann_config.app.profile import Profile

REASONS = {code: f"{code}: " + "{path}" * (code != "no-home") for code in REASON_CODES}
REASONS.update({code: f"{code}: " + "{path}" for code in NOTICE_CODES})


def _file(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _trees(root: Path) -> list[tuple[Path, dict[str, str]]]:
    """Fake installs that exercise each rule of installed_versions."""
    cases = []
    # 1. cann-* directories, newest name first, under /usr/local/Ascend; $HOME/Ascend later.
    r = root / "r1"
    _file(r / "usr/local/Ascend/cann-8.5.0/compiler/version.info", "Version=8.5.0\n")
    _file(r / "usr/local/Ascend/cann-9.0.0/compiler/version.info", "Version=9.0.0\n")
    _file(r / "usr/local/Ascend/cann-9.0.0/opp/version.info", "Version=9.0.0-opp\n")
    _file(r / "home/u/Ascend/ascend-toolkit/latest/x86_64-linux/ascend_toolkit_install.info", "version=1\n")
    cases.append((r, {"HOME": "/home/u"}))
    # 2. ASCEND_TOOLKIT_HOME wins; ASCEND_OPP_PATH wins over <toolkit>/opp; keys are case-insensitive,
    #    the first `version` line counts even when empty.
    r = root / "r2"
    _file(r / "opt/tk/ascend_toolkit_install.info", "VERSION = 8.1.RC1 \n")
    _file(r / "opt/tk/compiler/version.info", "Version=7.6.T3\nVersion=other\n")
    _file(r / "opt/tk/opp/version.info", "Version=from-toolkit\n")
    _file(r / "opt/opp/version.info", "version=\nVersion=ignored\n")
    cases.append((r, {"ASCEND_TOOLKIT_HOME": "/opt/tk", "ASCEND_OPP_PATH": "/opt/opp"}))
    # 3. Install_Path of ascend_cann_install.info; a toolkit home without an info file is skipped.
    r = root / "r3"
    _file(r / "etc/Ascend/ascend_cann_install.info", "Install_Path=/data/Ascend\n")
    _file(r / "data/Ascend/ascend-toolkit/latest/compiler/version.info", "Version=no-info\n")
    _file(r / "data/Ascend/nnae/latest/ascend_toolkit_install.info", "version=8.0.0\n")
    _file(r / "data/Ascend/nnae/latest/compiler/version.info", "Version=7.5\n")
    _file(r / "data/Ascend/nnae/latest/opp/version.info", "Version=8.0.0\n")
    cases.append((r, {"ASCEND_HOME_PATH": "/nowhere"}))
    # 4. ascend-deployer's driver record /etc/ascend_install.info names another base: CANN is beside it.
    r = root / "r5"
    _file(r / "etc/ascend_install.info", "UserName=HwHiAiUser\nDriver_Install_Path_Param=/opt/Ascend\n")
    _file(r / "opt/Ascend/cann-8.5.0/compiler/version.info", "Version=8.5.0\n")
    _file(r / "opt/Ascend/cann-8.5.0/opp/version.info", "Version=8.5.0\n")
    cases.append((r, {"HOME": "/root"}))
    # 5. Nothing installed.
    r = root / "r4"
    r.mkdir()
    cases.append((r, {"HOME": "/home/none"}))
    return cases


def test_probe_finds_the_versions_installed_versions_finds(tmp_path):
    for root, environ in _trees(tmp_path):
        expected = installed_versions(root, environ)
        found = probe("", "tf1", 500, 50, REASONS, root=str(root), environ=environ)["versions"]
        assert found == {"adk_version": expected["adk_version"], "ops_version": expected["ops_version"]}, root
    # The trees above do tell the rules apart.
    results = [installed_versions(r, e)["adk_version"] for r, e in _trees(tmp_path / "again")]
    assert results == ["9.0.0", "7.6.T3", "7.5", "8.5.0", None]
    # An ASCEND_OPP_PATH version.info whose first Version is empty does not count: <toolkit>/opp does.
    assert installed_versions(*_trees(tmp_path / "third")[1])["ops_version"] == "from-toolkit"


@pytest.mark.parametrize("framework,chosen,environ", [
    ("tf1", "", {"HOME": "/home/u"}),
    ("tf1", "", {"HOME": " /home/u\t", "ASCEND_CACHE_PATH": "  "}),
    ("tf1", "", {"HOME": "/home/u", "ASCEND_CACHE_PATH": " /data/cache "}),
    ("tf1", "/chosen/", {"HOME": "/home/u", "ASCEND_CACHE_PATH": "/data/cache"}),
    ("pytorch", "", {"HOME": "/home/u", "ASCEND_CACHE_PATH": "/data", "ACL_OP_COMPILER_CACHE_DIR": "/torch"}),
    ("tf1", "", {"HOME": "/home/u", "ACL_OP_COMPILER_CACHE_DIR": "/torch"}),
])
def test_probe_resolves_the_cache_dir_as_resolve_cache_dir(framework, chosen, environ):
    expected = resolve_cache_dir(framework, chosen, environ)
    base, source = cache_base(chosen, framework, environ)
    assert (base, source) == (expected.value, expected.source)
    assert base.rstrip("/") + "/kernel_cache/op_cache.ini" == str(expected.ini_path)


def _node(tmp_path: Path, ini: bytes | None, versions: bool = True) -> dict:
    home = tmp_path / "home"
    if versions:
        _file(home / "Ascend/cann/ascend_toolkit_install.info", "version=9.0.0\n")
        _file(home / "Ascend/cann/compiler/version.info", "Version=9.0.0\n")
        _file(home / "Ascend/cann/opp/version.info", "Version=9.0.0.opp\n")
    if ini is not None:
        path = home / "atc_data/kernel_cache/op_cache.ini"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(ini)
    return probe("", "tf1", 300, 80, REASONS, root="/", environ={"HOME": str(home)})


def test_probe_never_rewrites_existing_version_lines_and_skips_what_cann_already_reads(tmp_path):
    result = _node(tmp_path, b"[op_compiler_cache]\nadk_version=OLD\nops_version=OLD\n"
                             b"max_op_cache_size = 300 # MB\nremain_cache_size_ratio=50\n")
    assert result["problem"] is None
    # Old version lines stay: their mismatch is how CANN knows to empty a stale cache.
    assert result["edits"] == [{"key": "remain_cache_size_ratio", "line": "remain_cache_size_ratio=80"}]


def test_probe_adds_missing_version_lines_of_this_node(tmp_path):
    result = _node(tmp_path, b"[op_compiler_cache]\nmax_op_cache_size=300\nremain_cache_size_ratio=80\n")
    assert result["edits"] == [{"key": "adk_version", "line": "adk_version=9.0.0"},
                               {"key": "ops_version", "line": "ops_version=9.0.0.opp"}]


@pytest.mark.parametrize("ini,versions,code", [
    (b"[op_compiler_cache]\nmax_op_cache_size=1\n[x]\n", True, "foreign-section"),
    (b"\xef\xbb\xbf[op_compiler_cache]\nmax_op_cache_size=1\n", True, "bom-section"),
    (b"max_op_cache_size=1\n", True, "no-section"),
    (b"[op_compiler_cache]\rmax_op_cache_size=1\r", True, "cr-only"),
    (b"[op_compiler_cache]\na=1\n[op_compiler_cache]\nb=2\n", True, "section-twice"),
    (None, False, "no-versions-new"),
    (b"[op_compiler_cache]\nadk_version=1\n", False, "no-versions-existing"),
])
def test_probe_refuses_what_cannot_be_done_safely(tmp_path, ini, versions, code):
    result = _node(tmp_path, ini, versions)
    assert result["problem"].startswith(f"{code}: "), result["problem"]
    assert result["edits"] == []


def test_probe_runs_as_the_playbook_runs_it(tmp_path):
    """Embedded text on stdin, the choices as arguments, JSON out - with a plain python3."""
    home = tmp_path / "home"
    home.mkdir()
    args = {"cache_dir": "/c", "framework": "tf1", "max_op_cache_size": "300", "remain_cache_size_ratio": 80,
            "texts": REASONS, "template": {"head": "#", "comments": ["#", "#"]}, "check": False}
    out = subprocess.run([sys.executable, "-", base64.b64encode(json.dumps(args).encode()).decode()],
                         input=probe_script(), capture_output=True, text=True, env={"HOME": str(home)}, timeout=30)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["ini"] == "/c/kernel_cache/op_cache.ini" and data["source"] == "option"
    assert data["problem"].startswith("no-versions-new: /c/kernel_cache/op_cache.ini")


def test_embedded_texts_hold_no_template_syntax():
    # Jinja would read these as its own syntax inside the playbook.
    assert not re.search(r"\{[{%#]", probe_script())
    for lang in ("en", "zh_CN"):
        text = export_text(Profile(), "ansible", lang=lang).text
        unsafe = [line for line in text.splitlines() if "!unsafe" in line]
        # the no-host text, the probe's texts, the template's three lines, the env text, the probe
        assert len(unsafe) == 1 + len(probe_texts(lang)) + 3 + 2


def test_a_path_with_template_syntax_stays_text():
    path = "/data/{{ lookup('pipe', 'id') }}"
    text = export_text(Profile(options={"op_compiler_cache_dir": path}), "ansible", lang="en").text
    assert f"cann_default_cache_dir: !unsafe {yaml_str(path)}" in text


def test_yaml_str_reads_back(tmp_path):
    yaml = pytest.importorskip("yaml")
    for value in ["plain", 'q"uote\\', "new\nline", "tab\t", "\u2028sep", "中文", "\x00\x1b", "🙂", "#x: y"]:
        assert yaml.safe_load(f"k: {yaml_str(value)}") == {"k": value}


def test_playbooks_parse_as_yaml_in_both_languages():
    yaml = pytest.importorskip("yaml")

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!unsafe", lambda loader, node: loader.construct_scalar(node))
    for lang in ("en", "zh_CN"):
        check, play = yaml.load(export_text(Profile(), "ansible", lang=lang).text, Loader=Loader)
        modules = {key for task in play["tasks"] for key in task if key.startswith("ansible.")}
        assert modules and all(m.startswith("ansible.builtin.") for m in modules)
        assert check["hosts"] == "localhost" and play["gather_facts"] is False and check["gather_facts"] is False
        assert play["hosts"].startswith("{{ cann_hosts | default(") and "worker" in play["hosts"]
        assert check["vars"]["cann_pattern"] == play["hosts"]
        _, collect = yaml.load(export_text(Profile(), "ansible-collect", lang=lang).text, Loader=Loader)
        fetch = next(t["ansible.builtin.fetch"] for t in collect["tasks"] if "ansible.builtin.fetch" in t)
        assert fetch["dest"].endswith("/{{ inventory_hostname }}.json") and fetch["flat"] is True
        assert "playbook_dir ~ '/bundles'" in fetch["dest"]
        assert all(k.startswith("ansible.builtin.") for t in collect["tasks"] for k in t if k.startswith("ansible."))


def test_configmap_parses_with_the_chosen_variables():
    yaml = pytest.importorskip("yaml")
    profile = Profile(framework="pytorch", options={"max_op_cache_size": 2048, "op_compiler_cache_mode": "force",
                                                    "op_compiler_cache_dir": "/cache/共享"})
    text = export_text(profile, "k8s-configmap", lang="en").text
    manifest = yaml.safe_load(text)
    assert manifest["apiVersion"] == "v1" and manifest["kind"] == "ConfigMap"
    assert manifest["metadata"]["name"] == "cann-config"
    assert manifest["data"] == {"ASCEND_MAX_OP_CACHE_SIZE": "2048", "ACL_OP_COMPILER_CACHE_MODE": "force",
                                "ACL_OP_COMPILER_CACHE_DIR": "/cache/共享"}
    # The defaults are shown, commented out; the comment tells how a pod uses it and why not a file.
    assert '# ASCEND_REMAIN_CACHE_SIZE_RATIO: "50"' in text
    assert "#         envFrom:\n#           - configMapRef:\n#               name: cann-config" in text
    assert "read-only" in text and "file locks" in text


def test_configmap_without_changes_is_still_a_valid_manifest():
    yaml = pytest.importorskip("yaml")
    manifest = yaml.safe_load(export_text(Profile(), "k8s-configmap", lang="zh_CN").text)
    assert manifest["data"] == {}
    changed = yaml.safe_load(export_text(Profile(), "k8s-configmap", changed_only=True).text)
    assert changed["data"] == {}


def test_probe_parses_as_python_36():
    """Nodes run whatever Python their OS has (Ansible's floor for targets is 3.6 on older cores)."""
    import ast

    tree = ast.parse(probe_script(), feature_version=(3, 6))
    assert not any(isinstance(node, ast.JoinedStr) for node in ast.walk(tree))  # f-strings: 3.6 has them, 3.5 not


def test_fleet_exports_carry_the_same_variables_as_env_bash():
    """One decision (app.io.exporters.envvars): PYTORCH_NPU_ALLOC_CONF travels to pods and nodes too."""
    yaml = pytest.importorskip("yaml")
    from cann_config.app.io.envfile import parse_env_text
    from cann_config.app.io.exporters import make_plan
    from cann_config.app.io.exporters.envvars import env_values
    from cann_config.app.io.exporters.fleet import playbook_env_text

    profile = Profile(framework="pytorch", options={"npu_alloc_expandable_segments": True, "max_op_cache_size": 900})
    expected = env_values(make_plan(profile, "env-bash"))
    assert "PYTORCH_NPU_ALLOC_CONF" in expected and expected["ASCEND_MAX_OP_CACHE_SIZE"] == "900"
    assert yaml.safe_load(export_text(profile, "k8s-configmap").text)["data"] == expected
    env_text, _ = playbook_env_text(export_text(profile, "ansible").text)
    assert parse_env_text(env_text, "playbook").values == expected


# Files a node may hold, each as CANN reads it fine: the probe's edit must be the CLI writer's edit.
_EDIT_CORPUS = [
    b"[op_compiler_cache]\nadk_version=9.0.0\nops_version=9.0.0.opp\nmax_op_cache_size=100",
    b"[op_compiler_cache]\r\nadk_version=1\r\nops_version=2\r\nmax_op_cache_size = 100 # MB\r\n",
    b"# \xb2\xe2\xca\xd4 GBK comment\n[op_compiler_cache]\nmax_op_cache_size=500 \xd6\xd0\nremain_cache_size_ratio=80\n",
    b"\xef\xbb\xbf# a BOM before a comment line is harmless\n[op_compiler_cache]\nremain_cache_size_ratio=80\n",
    b"[op_compiler_cache]\nmax_op_cache_size=1\nmax_op_cache_size=2\n  # indented = kept\nx=y\n",
]


@pytest.mark.parametrize("data", _EDIT_CORPUS)
def test_probe_edits_byte_for_byte_as_the_cli_writer(tmp_path, data):
    from cann_config.app.io.exporters.node_probe import read_ini, render
    from cann_config.app.opcache.ini import cann_stoi, parse_op_cache_ini, render_op_cache_ini

    versions = {"adk_version": "9.0.0", "ops_version": "9.0.0.opp"}
    headers, entries = read_ini(data)
    wanted = {"max_op_cache_size": 300, "remain_cache_size_ratio": 80}
    changes = dict(wanted, **{k: v for k, v in versions.items() if k not in entries})
    expected = render_op_cache_ini(parse_op_cache_ini(data, "op_cache.ini"), changes)
    assert render(data, headers, entries, wanted, versions) == expected
    # And CANN reads the chosen sizes from the result.
    view = parse_op_cache_ini(expected, "op_cache.ini").cann_view
    assert view.counts and cann_stoi(view.values["max_op_cache_size"].value).value == 300


def test_probe_adds_lines_below_a_last_header_without_newline():
    """`[op_compiler_cache]` as the last line without a final newline: the new lines go below
    it, not glued onto it (issue 31: lineinfile wrote `[op_compiler_cache]remain_cache_size_ratio=70`)."""
    from cann_config.app.io.exporters.node_probe import read_ini, render
    from cann_config.app.opcache.ini import parse_op_cache_ini

    data = b"# mine\n[op_compiler_cache]"
    headers, entries = read_ini(data)
    out = render(data, headers, entries, {"max_op_cache_size": 300, "remain_cache_size_ratio": 80},
                 {"adk_version": "9.0.0", "ops_version": "9.0.1"})
    assert out == (b"# mine\n[op_compiler_cache]\nadk_version=9.0.0\nops_version=9.0.1\n"
                   b"max_op_cache_size=300\nremain_cache_size_ratio=80")
    assert parse_op_cache_ini(out, "op_cache.ini").cann_view.counts


@pytest.mark.parametrize("chosen", ["~/cache", "$HOME/atc_data", "/data/${USER}/cache"])
def test_export_ansible_refuses_a_dir_cann_would_not_expand(tmp_path, capsys, chosen):
    from cann_config.app.cli import main

    out = tmp_path / "cann-config.yml"
    code = main(["export", "ansible", "--set", f"op_compiler_cache_dir={chosen}", "-o", str(out), "--lang", "en"])
    assert code == 1 and not out.exists()
    err = capsys.readouterr().err
    assert f"op_compiler_cache_dir={chosen}: CANN takes this path literally (it expands no ~ or $VAR)" in err
    # An absolute path without them is exported.
    assert main(["export", "ansible", "--set", "op_compiler_cache_dir=/data/cache", "-o", str(out)]) == 0
