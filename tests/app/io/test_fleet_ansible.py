"""The `ansible` export, run for real: ansible-playbook against fake nodes on this machine.

Four local hosts (`ansible_connection=local`), each with its own HOME, environment and CANN
files: node1 finds its versions under $HOME/Ascend and has a hand-written op_cache.ini without
version lines; node2 finds them through ASCEND_TOOLKIT_HOME / ASCEND_OPP_PATH and keeps its cache
under ASCEND_CACHE_PATH, in a CRLF file with its version lines; node3 has no CANN at all; node4's
op_cache.ini has a foreign section. The project's own CANN emulation (app.opcache.ini) then reads
each result. Two playbook runs in all (ansible-playbook takes a few seconds to start).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cann_config.app.io.exporters import export_text
from cann_config.app.opcache.ini import parse_op_cache_ini
from cann_config.app.profile import Profile

ANSIBLE_PLAYBOOK = shutil.which("ansible-playbook", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")

pytestmark = [
    pytest.mark.ansible,
    pytest.mark.skipif(ANSIBLE_PLAYBOOK is None, reason="ansible-core is not installed (pip install -e '.[test]')"),
    pytest.mark.skipif(Path("/usr/local/Ascend").exists() or Path("/etc/Ascend").exists(),
                       reason="this machine has a real CANN install, which every fake node would find"),
]

NODE1_INI = (b"# written by hand\n"
             b"[op_compiler_cache]\n"
             b"max_op_cache_size = 1000\n"
             b"  # an indented line CANN does not take for a comment = kept\n"
             b"custom_key=custom value\n")
NODE2_INI = (b"[op_compiler_cache]\r\n"
             b"adk_version=7.6.T3\r\n"
             b"ops_version=8.1.RC1\r\n"
             b"#keep me\r\n"
             b"max_op_cache_size=500\r\n"
             b"remain_cache_size_ratio=50\r\n")
NODE4_INI = b"[op_compiler_cache]\nmax_op_cache_size=100\nremain_cache_size_ratio=10\n[other]\nx=1\n"


def _write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleet")
    # node1: the standard location under $HOME/Ascend.
    home1 = root / "home1"
    toolkit1 = home1 / "Ascend" / "ascend-toolkit" / "latest"
    _write(toolkit1 / "x86_64-linux" / "ascend_toolkit_install.info", "package_name=Ascend-cann-toolkit\nversion=8.0.0\n")
    _write(toolkit1 / "compiler" / "version.info", "Version=7.5.T10\n")
    _write(toolkit1 / "opp" / "version.info", "Version=8.0.0\n")
    ini1 = _write(home1 / "atc_data" / "kernel_cache" / "op_cache.ini", NODE1_INI)
    # node2: set_env.sh's variables, and the cache under ASCEND_CACHE_PATH.
    home2 = root / "home2"
    toolkit2 = root / "opt2" / "cann-toolkit"
    _write(toolkit2 / "ascend_toolkit_install.info", "version=8.1.RC1\n")
    _write(toolkit2 / "compiler" / "version.info", "Version=7.6.T3\n")
    _write(root / "opt2" / "opp" / "version.info", "Version=8.1.RC1\n")
    ini2 = _write(root / "shared2" / "kernel_cache" / "op_cache.ini", NODE2_INI)
    home2.mkdir()
    # node3: no CANN anywhere; node4: a foreign section.
    home3 = root / "home3"
    home3.mkdir()
    home4 = root / "home4"
    toolkit4 = home4 / "Ascend" / "cann"
    _write(toolkit4 / "ascend_toolkit_install.info", "version=9.0.0\n")
    _write(toolkit4 / "compiler" / "version.info", "Version=9.0.0\n")
    _write(toolkit4 / "opp" / "version.info", "Version=9.0.0\n")
    ini4 = _write(home4 / "atc_data" / "kernel_cache" / "op_cache.ini", NODE4_INI)

    def host(home: Path, **env: str) -> dict:
        return {"ansible_connection": "local", "ansible_python_interpreter": sys.executable,
                "cann_environment": {"HOME": str(home), **env}, "cann_env_file": str(home / "cann-config.sh")}

    inventory = {"ascend": {"hosts": {
        "node1": host(home1),
        "node2": host(home2, ASCEND_TOOLKIT_HOME=str(toolkit2), ASCEND_OPP_PATH=str(root / "opt2" / "opp"),
                      ASCEND_CACHE_PATH=str(root / "shared2")),
        "node3": host(home3),
        "node4": host(home4),
    }}}
    _write(root / "inventory.json", json.dumps(inventory))
    profile = Profile(framework="tf1", options={"max_op_cache_size": 300, "remain_cache_size_ratio": 80})
    result = export_text(profile, "ansible", lang="en")
    assert not result.refused
    playbook = _write(root / "cann-config.yml", result.data)
    ansible_home = root / "ansible-home"
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "HOME": str(ansible_home), "LANG": "C.UTF-8", "ANSIBLE_NOCOLOR": "1",
           "ANSIBLE_LOCAL_TEMP": str(ansible_home / "tmp"), "ANSIBLE_REMOTE_TEMP": str(ansible_home / "remote"),
           "ANSIBLE_RETRY_FILES_ENABLED": "0", "ANSIBLE_PYTHON_INTERPRETER": sys.executable}

    def run() -> subprocess.CompletedProcess:
        return subprocess.run([ANSIBLE_PLAYBOOK, "-i", str(root / "inventory.json"), "-c", "local", str(playbook)],
                              capture_output=True, text=True, env=env, cwd=root, timeout=110)

    first = run()
    # The collect playbook, with cann-config as installed here standing in for the unpacked tarball.
    collect = _write(root / "collect.yml", export_text(profile, "ansible-collect", lang="en").data)
    collected = subprocess.run([ANSIBLE_PLAYBOOK, "-i", str(root / "inventory.json"), "-c", "local", str(collect),
                                "-e", f"cann_tool={Path(sys.executable).parent / 'cann-config'}",
                                "-e", "cann_hosts=node1:node2"],
                               capture_output=True, text=True, env=env, cwd=root, timeout=110)
    after_first = {name: path.read_bytes() for name, path in (("node1", ini1), ("node2", ini2), ("node4", ini4))}
    backups_first = sorted(p.name for p in root.rglob("op_cache.ini.*.bak"))
    second = run()
    return {"root": root, "first": first, "second": second, "collected": collected, "after_first": after_first, "backups": backups_first,
            "ini": {"node1": ini1, "node2": ini2, "node4": ini4}, "homes": {"node1": home1, "node2": home2,
                                                                           "node3": home3}, "profile": profile}


def _recap(output: str) -> dict[str, dict[str, int]]:
    recap = {}
    for match in re.finditer(r"^(node\d)\s*:\s*(.*)$", output.split("PLAY RECAP", 1)[-1], re.M):
        recap[match.group(1)] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", match.group(2))}
    return recap


def test_good_nodes_get_their_own_versions_and_the_chosen_sizes(fleet):
    recap = _recap(fleet["first"].stdout)
    assert recap["node1"]["failed"] == 0 and recap["node1"]["changed"] > 0, fleet["first"].stdout
    assert recap["node2"]["failed"] == 0 and recap["node2"]["changed"] > 0, fleet["first"].stdout
    expected = {"node1": ("7.5.T10", "8.0.0"), "node2": ("7.6.T3", "8.1.RC1")}
    for node, (adk, ops) in expected.items():
        ini = parse_op_cache_ini(fleet["after_first"][node], node)
        view = ini.cann_view
        assert view.counts, (node, view.reason)
        values = {k: e.value.rstrip("\r") for k, e in view.values.items()}
        assert values == {"adk_version": adk, "ops_version": ops, "max_op_cache_size": "300",
                          "remain_cache_size_ratio": "80"}, node


def test_other_lines_are_kept_byte_for_byte(fleet):
    node1 = fleet["after_first"]["node1"].split(b"\n")
    for line in NODE1_INI.split(b"\n"):
        if not line.startswith(b"max_op_cache_size"):
            assert line in node1
    assert b"max_op_cache_size=300" in node1  # key=value, no spaces, as CANN writes
    node2 = fleet["after_first"]["node2"]
    # The version lines the node already had are untouched, CRLF and all; only the sizes changed.
    assert node2.startswith(b"[op_compiler_cache]\r\nadk_version=7.6.T3\r\nops_version=8.1.RC1\r\n#keep me\r\n")
    assert node2.count(b"max_op_cache_size") == 1 and node2.count(b"remain_cache_size_ratio") == 1
    assert node2.count(b"\n") == node2.count(b"\r\n") == 6  # a CRLF file stays CRLF


def test_one_backup_per_changed_file_and_none_for_a_new_or_failed_one(fleet):
    backups = fleet["backups"]
    assert len(backups) == 2, backups  # node1 and node2; node3 was refused, node4 not touched
    assert len(sorted(fleet["root"].rglob("op_cache.ini.*.bak"))) == 2  # the second run made none


def test_a_node_without_versions_fails_alone_and_gets_nothing(fleet):
    recap = _recap(fleet["first"].stdout)
    assert recap["node3"]["failed"] == 1
    output = fleet["first"].stdout
    assert re.search(r"node3: the CANN versions of this node \(adk_version, ops_version\) were not found", output)
    assert not (fleet["homes"]["node3"] / "atc_data").exists()
    assert not (fleet["homes"]["node3"] / "cann-config.sh").exists()


def test_a_foreign_section_fails_that_host_and_leaves_its_file(fleet):
    recap = _recap(fleet["first"].stdout)
    assert recap["node4"]["failed"] == 1
    assert re.search(r"node4: \S+op_cache.ini line 4 has a section \[other\]", fleet["first"].stdout)
    assert fleet["after_first"]["node4"] == NODE4_INI == fleet["ini"]["node4"].read_bytes()


def test_env_file_holds_the_chosen_variables(fleet):
    text = (fleet["homes"]["node1"] / "cann-config.sh").read_text()
    assert "export ASCEND_MAX_OP_CACHE_SIZE=300" in text
    assert "export ASCEND_REMAIN_CACHE_SIZE_RATIO=80" in text
    assert text == (fleet["homes"]["node2"] / "cann-config.sh").read_text()


def test_second_run_changes_nothing(fleet):
    recap = _recap(fleet["second"].stdout)
    assert recap["node1"] == {**recap["node1"], "changed": 0, "failed": 0}, fleet["second"].stdout
    assert recap["node2"] == {**recap["node2"], "changed": 0, "failed": 0}, fleet["second"].stdout
    for node in ("node1", "node2"):
        assert fleet["ini"][node].read_bytes() == fleet["after_first"][node]


def test_collect_fetches_a_bundle_per_host_and_fleet_compares_them(fleet, capsys):
    from cann_config.app.cli import main

    recap = _recap(fleet["collected"].stdout)
    assert set(recap) == {"node1", "node2"} and all(r["failed"] == 0 for r in recap.values()), fleet["collected"].stdout
    bundles = fleet["root"] / "bundles"
    assert sorted(p.name for p in bundles.iterdir()) == ["node1.json", "node2.json"]
    assert main(["fleet", str(bundles), "--json"]) in (0, 1)
    rows = {r["key"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    # Each bundle is that node's: its own versions, its own cache directory and op_cache.ini sizes.
    assert [c["value"] for c in rows["adk_version"]["cells"]] == ["7.5.T10", "7.6.T3"]
    assert rows["op_compiler_cache_dir"]["differs"]
    assert [c["value"] for c in rows["max_op_cache_size"]["cells"]] == [300, 300]
    assert not rows["max_op_cache_size"]["differs"]
