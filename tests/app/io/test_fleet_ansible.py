"""The `ansible` and `ansible-collect` exports, run for real: ansible-playbook against fake nodes on
this machine, on every ansible-core the project supports (the newest from the test extra in .venv,
2.13.0 - ascend-deployer 26.0.0's pin - and 2.16 in venvs of their own, made by the Makefile; 2.11.9,
deployer's pin for old controller Pythons, with -m slow).

The inventory is an ascend-deployer `parsed_inventory_file` (tests/data/fleet/README.md): NPU nodes
in `[worker]` as IP addresses expanded from a range, the site's own `[ascend]` group dropped, a
`[master]` that must not be touched. Each worker is a local host (`ansible_connection=local`) with
its own HOME, environment and CANN files (host_vars), one per case:

  .1  versions under $HOME/Ascend; a hand-written op_cache.ini without version lines
  .5  versions through ASCEND_TOOLKIT_HOME / ASCEND_OPP_PATH; a CRLF file under ASCEND_CACHE_PATH
  .9  no CANN at all (fails alone)            .13 a foreign section (fails alone, file untouched)
  .17 GBK bytes in a comment and after a value (edited, bytes kept)
  .21 `[op_compiler_cache]` as the last line without a final newline
  .25 CR-only line ends (refused with the reason)
  .29 version lines that differ from the installed CANN, and an SoC dir (the cache will be emptied)
  .33 no op_cache.ini yet (created with the node's versions)

The project's own writer (app.opcache.ini.render_op_cache_ini) gives the expected bytes, so every
ansible-core version must write exactly what `cann-config export op-cache-ini` writes.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from cann_config.app.io.exporters import export_text
from cann_config.app.opcache.ini import parse_op_cache_ini, render_op_cache_ini
from cann_config.app.profile import Profile

DATA = Path(__file__).resolve().parents[2] / "data" / "fleet"
_BIN = Path(sys.executable).parent


def _playbooks() -> dict[str, str]:
    """ansible-playbook of every ansible-core installed for the tests: {version label: path}."""
    found = {}
    newest = shutil.which("ansible-playbook", path=f"{_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    if newest:
        found["newest"] = newest
    for venv in sorted(Path(sys.prefix).glob("ansible-core-*")):
        if (venv / "bin" / "ansible-playbook").exists():
            found[venv.name.removeprefix("ansible-core-")] = str(venv / "bin" / "ansible-playbook")
    return found


PLAYBOOKS = _playbooks()

pytestmark = [
    pytest.mark.ansible,
    pytest.mark.skipif(not PLAYBOOKS, reason="ansible-core is not installed (pip install -e '.[test]')"),
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
# GBK: "# 缓存配置" and "中" after a value (CANN's stoi reads the number in front).
NODE5_INI = (b"# \xbb\xba\xb4\xe6\xc5\xe4\xd6\xc3\n[op_compiler_cache]\nadk_version=9.0.0\nops_version=9.0.0\n"
             b"max_op_cache_size=700 \xd6\xd0\nremain_cache_size_ratio=80\n")
NODE6_INI = b"adk_version=9.0.0\n[op_compiler_cache]"
NODE7_INI = b"[op_compiler_cache]\radk_version=9.0.0\rops_version=9.0.0\r"
NODE8_INI = b"[op_compiler_cache]\nadk_version=8.0.0\nops_version=8.0.0\nmax_op_cache_size=300\nremain_cache_size_ratio=80\n"
SIZES = {"max_op_cache_size": 300, "remain_cache_size_ratio": 80}
NINE = {"adk_version": "9.0.0", "ops_version": "9.0.0"}
NODES = {f"10.0.0.{1 + 4 * i}": f"node{i + 1}" for i in range(9)}
BY_NAME = {name: ip for ip, name in NODES.items()}


def _write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def _cann(base: Path, version: str = "9.0.0") -> None:
    _write(base / "ascend_toolkit_install.info", f"version={version}\n")
    _write(base / "compiler" / "version.info", f"Version={version}\n")
    _write(base / "opp" / "version.info", f"Version={version}\n")


def _env(root: Path) -> dict[str, str]:
    home = root / "ansible-home"
    return {"PATH": f"{_BIN}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(home), "LANG": "C.UTF-8",
            "ANSIBLE_NOCOLOR": "1", "ANSIBLE_LOCAL_TEMP": str(home / "tmp"), "ANSIBLE_REMOTE_TEMP": str(home / "remote"),
            "ANSIBLE_RETRY_FILES_ENABLED": "0", "ANSIBLE_PYTHON_INTERPRETER": sys.executable,
            "ANSIBLE_HOST_KEY_CHECKING": "0", "ANSIBLE_FORKS": "10",
            # As ascend-deployer's ansible.cfg has it (and faster): modules go to the node on stdin.
            "ANSIBLE_PIPELINING": "1"}


def _run(playbook_bin: str, root: Path, inventory: Path, playbook: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([playbook_bin, "-i", str(inventory), str(playbook), *extra],
                          capture_output=True, text=True, env=_env(root), cwd=root, timeout=170)


def _tool_tarball(root: Path) -> Path:
    """A stand-in for the desktop bundle's tarball (make dist): the same layout, cann-config/cann-config,
    here a script that runs this checkout's cann-config."""
    script = _write(root / "stage" / "cann-config" / "cann-config",
                    f"#!/bin/sh\nexec {sys.executable} -m cann_config.app \"$@\"\n")
    script.chmod(0o755)
    tarball = root / "cann-config-0.0-linux-x86_64.tar.gz"
    with tarfile.open(tarball, "w:gz") as archive:
        archive.add(root / "stage" / "cann-config", arcname="cann-config")
    return tarball


# 2.11.9 (ascend-deployer's pin for Python 2.7-3.7 controllers) passes too, but beyond the range the
# project promises; its run is left to `pytest -m slow` to keep the default suite short.
@pytest.fixture(scope="module", params=[pytest.param(v, marks=[pytest.mark.slow] if v == "2.11.9" else [])
                                        for v in sorted(PLAYBOOKS)])
def fleet(request, tmp_path_factory):
    version = request.param
    playbook_bin = PLAYBOOKS[version]
    root = tmp_path_factory.mktemp(f"fleet-{version}")
    homes = {name: root / f"home-{name}" for name in NODES.values()}
    for home in homes.values():
        home.mkdir()
    extra_env: dict[str, dict[str, str]] = {name: {} for name in NODES.values()}
    ini = {}
    # node1: $HOME/Ascend/ascend-toolkit/latest.
    tk1 = homes["node1"] / "Ascend" / "ascend-toolkit" / "latest"
    _write(tk1 / "x86_64-linux" / "ascend_toolkit_install.info", "package_name=Ascend-cann-toolkit\nversion=8.0.0\n")
    _write(tk1 / "compiler" / "version.info", "Version=7.5.T10\n")
    _write(tk1 / "opp" / "version.info", "Version=8.0.0\n")
    ini["node1"] = _write(homes["node1"] / "atc_data" / "kernel_cache" / "op_cache.ini", NODE1_INI)
    # node2: set_env.sh's variables, the cache under ASCEND_CACHE_PATH.
    tk2 = root / "opt2" / "cann-toolkit"
    _write(tk2 / "ascend_toolkit_install.info", "version=8.1.RC1\n")
    _write(tk2 / "compiler" / "version.info", "Version=7.6.T3\n")
    _write(root / "opt2" / "opp" / "version.info", "Version=8.1.RC1\n")
    ini["node2"] = _write(root / "shared2" / "kernel_cache" / "op_cache.ini", NODE2_INI)
    extra_env["node2"] = {"ASCEND_TOOLKIT_HOME": str(tk2), "ASCEND_OPP_PATH": str(root / "opt2" / "opp"),
                          "ASCEND_CACHE_PATH": str(root / "shared2")}
    # node3: nothing. The others: CANN 9.0.0 as ascend-deployer installs it for a user (~/Ascend/cann).
    for name, data in (("node4", NODE4_INI), ("node5", NODE5_INI), ("node6", NODE6_INI), ("node7", NODE7_INI),
                       ("node8", NODE8_INI), ("node9", None)):
        _cann(homes[name] / "Ascend" / "cann")
        if data is not None:
            ini[name] = _write(homes[name] / "atc_data" / "kernel_cache" / "op_cache.ini", data)
    (homes["node8"] / "atc_data" / "kernel_cache" / "Ascend910B3").mkdir()
    ini["node9"] = homes["node9"] / "atc_data" / "kernel_cache" / "op_cache.ini"
    before = {name: path.read_bytes() for name, path in ini.items() if path.exists()}

    inventory = root / "parsed_inventory_file"
    shutil.copy(DATA / "parsed_inventory_file", inventory)
    for ip, name in NODES.items():
        host_vars = {"ansible_python_interpreter": sys.executable,
                     "cann_environment": {"HOME": str(homes[name]), **extra_env[name]},
                     "cann_env_file": str(homes[name] / "cann-config.sh")}
        _write(root / "host_vars" / f"{ip}.yml", json.dumps(host_vars))
    profile = Profile(framework="tf1", options=dict(SIZES))
    playbook = _write(root / "cann-config.yml", export_text(profile, "ansible", lang="en").data)
    collect = _write(root / "collect.yml", export_text(profile, "ansible-collect", lang="en").data)

    first = _run(playbook_bin, root, inventory, playbook)
    after_first = {name: path.read_bytes() for name, path in ini.items() if path.exists()}
    backups_first = sorted(p.name for p in root.rglob("op_cache.ini.*.bak"))
    second = _run(playbook_bin, root, inventory, playbook)
    collected = _run(playbook_bin, root, inventory, collect, "-e", f"cann_tool_tarball={_tool_tarball(root)}",
                     "-e", "cann_hosts=10.0.0.1:10.0.0.5",
                     # One tool dir per fake node: on one machine a shared dir made the nodes' clean-ups race.
                     "-e", f"cann_tool_dir={root}/tool-{{{{ inventory_hostname }}}}")
    return {"version": version, "root": root, "first": first, "second": second, "collected": collected,
            "before": before, "after_first": after_first, "backups": backups_first, "ini": ini, "homes": homes}


def _recap(output: str) -> dict[str, dict[str, int]]:
    recap = {}
    for match in re.finditer(r"^(\S+)\s*:\s*(ok=.*)$", output.split("PLAY RECAP", 1)[-1], re.M):
        recap[NODES.get(match.group(1), match.group(1))] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)",
                                                                                              match.group(2))}
    return recap


def _expected(data: bytes, versions: dict[str, str]) -> bytes:
    """What `cann-config export op-cache-ini` writes into the same file."""
    existing = parse_op_cache_ini(data, "op_cache.ini")
    keys = {e.key for e in existing.layout.section.entries} if existing.layout.section else set()
    return render_op_cache_ini(existing, dict(SIZES, **{k: v for k, v in versions.items() if k not in keys}))


def test_the_deployer_workers_are_found_and_the_master_is_not(fleet):
    recap = _recap(fleet["first"].stdout)
    assert set(recap) == {"localhost", *NODES.values()}, fleet["first"].stdout + fleet["first"].stderr


def test_good_nodes_get_what_the_cli_writer_writes(fleet):
    recap = _recap(fleet["first"].stdout)
    for name in ("node1", "node2", "node5", "node6", "node8", "node9"):
        assert recap[name]["failed"] == 0 and recap[name]["changed"] > 0, (name, fleet["first"].stdout)
    after = fleet["after_first"]
    assert after["node1"] == _expected(NODE1_INI, {"adk_version": "7.5.T10", "ops_version": "8.0.0"})
    assert after["node2"] == _expected(NODE2_INI, {})
    assert after["node2"].count(b"\n") == after["node2"].count(b"\r\n")  # a CRLF file stays CRLF
    # Non-UTF-8 bytes: edited, every other byte kept (issue 31).
    assert after["node5"] == _expected(NODE5_INI, {}) == NODE5_INI.replace(b"=700 ", b"=300 ")
    # The last line `[op_compiler_cache]` without a newline: the new lines go below it.
    assert after["node6"] == _expected(NODE6_INI, NINE) == (
        b"adk_version=9.0.0\n[op_compiler_cache]\nops_version=9.0.0\nmax_op_cache_size=300\nremain_cache_size_ratio=80")
    for name in ("node1", "node2", "node5", "node6", "node9"):
        view = parse_op_cache_ini(after[name], name).cann_view
        assert view.counts, (name, view.reason)
    assert {k: e.value for k, e in parse_op_cache_ini(after["node9"], "n9").cann_view.values.items()} == {
        **NINE, "max_op_cache_size": "300", "remain_cache_size_ratio": "80"}


def test_node_failures_are_alone_named_and_change_nothing(fleet):
    recap, out = _recap(fleet["first"].stdout), fleet["first"].stdout
    for name in ("node3", "node4", "node7"):
        assert recap[name]["failed"] == 1, (name, out)
    assert re.search(r"10\.0\.0\.9: the CANN versions of this node \(adk_version, ops_version\) were not found", out)
    assert re.search(r"10\.0\.0\.13: \S+op_cache.ini line 4 has a section \[other\]", out)
    assert re.search(r"10\.0\.0\.25: \S+op_cache.ini ends its lines with CR only", out)
    for name, data in (("node4", NODE4_INI), ("node7", NODE7_INI)):
        assert fleet["ini"][name].read_bytes() == data
    assert not (fleet["homes"]["node3"] / "atc_data").exists()
    for name in ("node3", "node4", "node7"):
        assert not (fleet["homes"][name] / "cann-config.sh").exists()


def test_each_node_is_told_what_cann_does_with_its_cache(fleet):
    out, recap = fleet["first"].stdout, _recap(fleet["first"].stdout)
    assert re.search(r'"msg": "10\.0\.0\.29: empties the cache of Ascend910B3 at the next start because the file\'s '
                     r'versions adk_version=8\.0\.0, ops_version=8\.0\.0 differ from the installed '
                     r'adk_version=9\.0\.0, ops_version=9\.0\.0', out), out
    assert re.search(r'"msg": "10\.0\.0\.5: keeps the cache', out)
    assert recap["node8"]["failed"] == 0
    # The mismatching lines are kept: emptying a stale cache is CANN's own job.
    assert b"adk_version=8.0.0\n" in fleet["after_first"]["node8"]
    # On the second run the notice stays, attributed to the node, with nothing changed.
    assert re.search(r'"msg": "10\.0\.0\.29: empties the cache of Ascend910B3', fleet["second"].stdout)


def test_one_backup_per_changed_file_and_none_for_a_new_or_failed_one(fleet):
    # nodes 1 2 5 6; node8 already had the sizes (its version lines are kept), node9's file is new
    assert len(fleet["backups"]) == 4, fleet["backups"]
    assert len(sorted(fleet["root"].rglob("op_cache.ini.*.bak"))) == 4  # the second run made none


def test_env_file_holds_the_chosen_variables(fleet):
    text = (fleet["homes"]["node1"] / "cann-config.sh").read_text()
    assert "\nexport ASCEND_MAX_OP_CACHE_SIZE=300\n" in text
    assert "\nexport ASCEND_REMAIN_CACHE_SIZE_RATIO=80\n" in text
    assert text == (fleet["homes"]["node9"] / "cann-config.sh").read_text()


def test_second_run_changes_nothing(fleet):
    recap = _recap(fleet["second"].stdout)
    for name in ("node1", "node2", "node5", "node6", "node8", "node9"):
        assert recap[name]["changed"] == 0 and recap[name]["failed"] == 0, (name, fleet["second"].stdout)
        assert fleet["ini"][name].read_bytes() == fleet["after_first"][name]


def test_collect_from_the_tarball_fetches_a_bundle_per_host_and_fleet_compares_them(fleet, capsys):
    from cann_config.app.cli import main

    out = fleet["collected"].stdout + fleet["collected"].stderr
    recap = _recap(fleet["collected"].stdout)
    assert set(recap) == {"localhost", "node1", "node2"} and all(r["failed"] == 0 for r in recap.values()), out
    bundles = fleet["root"] / "bundles"  # beside the playbook
    assert sorted(p.name for p in bundles.iterdir()) == ["10.0.0.1.json", "10.0.0.5.json"]
    assert not list(fleet["root"].glob("tool*"))  # the unpacked tool is removed on every node
    assert main(["fleet", str(bundles), "--json"]) in (0, 1)
    rows = {r["key"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    assert [c["value"] for c in rows["adk_version"]["cells"]] == ["7.5.T10", "7.6.T3"]
    assert [c["value"] for c in rows["max_op_cache_size"]["cells"]] == [300, 300]


# ---------------------------------------------------------------------------------------------
# Variables, patterns and host names (the newest ansible-core, and 2.13.0 where installed)
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """A plain inventory (group `ascend`) of two nodes with CANN 9.0.0, one with an op_cache.ini."""
    root = tmp_path_factory.mktemp("plain")
    homes = {}
    hosts = {}
    for name in ("a1", "a2"):
        home = homes[name] = root / f"home-{name}"
        _cann(home / "Ascend" / "cann")
        hosts[name] = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable,
                       "cann_environment": {"HOME": str(home)}}
    _write(homes["a1"] / "atc_data" / "kernel_cache" / "op_cache.ini", NODE8_INI.replace(b"8.0.0", b"9.0.0"))
    bad = {"b1": dict(hosts["a2"], cann_remain_cache_size_ratio="0"),
           "b2": dict(hosts["a2"], cann_cache_dir="~/cache"), "b3": dict(hosts["a2"], cann_cache_dir="$HOME/cache")}
    inventory = _write(root / "inventory.json", json.dumps({"ascend": {"hosts": hosts}, "bad": {"hosts": bad},
                                                          "other": {"hosts": {"../escape": hosts["a2"]}}}))
    profile = Profile(framework="tf1", options=dict(SIZES))
    return {"root": root, "homes": homes, "inventory": inventory,
            "playbook": _write(root / "cann-config.yml", export_text(profile, "ansible", lang="en").data),
            "collect": _write(root / "collect.yml", export_text(profile, "ansible-collect", lang="en").data)}


@pytest.mark.parametrize("version", [v for v in ("newest", "2.13.0") if v in PLAYBOOKS])
def test_a_pattern_that_matches_no_host_fails_naming_it_and_changes_nothing(plain, version):
    out = _run(PLAYBOOKS[version], plain["root"], plain["inventory"], plain["playbook"], "-e", "cann_hosts=npu_nodes")
    assert out.returncode != 0
    assert "the host pattern 'npu_nodes' matches no host of this inventory, so nothing was changed" in out.stdout
    assert not any(plain["root"].rglob("*.bak")) and not any(plain["root"].rglob("cann-config.sh"))


def test_every_variable_is_honoured_from_the_command_line_and_a_vars_file(plain):
    root = plain["root"]
    cache = root / "chosen-cache"
    # Strings are accepted for the sizes; -e @file.yml as ascend-deployer's users pass variables.
    _write(root / "vars.yml", f'cann_remain_cache_size_ratio: "65"\ncann_cache_dir: "{cache}"\n')
    env_file = root / "env" / "cann.sh"
    env_file.parent.mkdir()
    out = _run(PLAYBOOKS["newest"], root, plain["inventory"], plain["playbook"], "-e", "@vars.yml",
               "-e", "cann_max_op_cache_size=8192", "-e", f"cann_env_file={env_file}", "-e", "cann_hosts=a1")
    assert out.returncode == 0, out.stdout + out.stderr
    assert set(_recap(out.stdout)) == {"localhost", "a1"}
    view = parse_op_cache_ini((cache / "kernel_cache" / "op_cache.ini").read_bytes(), "new").cann_view
    assert {k: e.value for k, e in view.values.items()} == {**NINE, "max_op_cache_size": "8192",
                                                           "remain_cache_size_ratio": "65"}
    text = env_file.read_text()
    assert "\nexport ASCEND_MAX_OP_CACHE_SIZE=8192\n" in text and "\nexport ASCEND_REMAIN_CACHE_SIZE_RATIO=65\n" in text
    # The existing file of a1 was not the target: the chosen dir was.
    assert b"max_op_cache_size=300" in (plain["homes"]["a1"] / "atc_data" / "kernel_cache" / "op_cache.ini").read_bytes()
    # The same variables on an existing file (no cann_cache_dir: the node's own $HOME/atc_data).
    out = _run(PLAYBOOKS["newest"], root, plain["inventory"], plain["playbook"], "-e", "cann_max_op_cache_size=-1",
               "-e", "cann_remain_cache_size_ratio=100", "-e", f"cann_env_file={env_file}", "-e", "cann_hosts=a1")
    assert out.returncode == 0, out.stdout
    data = (plain["homes"]["a1"] / "atc_data" / "kernel_cache" / "op_cache.ini").read_bytes()
    assert b"\nmax_op_cache_size=-1\nremain_cache_size_ratio=100\n" in data
    assert "\nexport ASCEND_MAX_OP_CACHE_SIZE=-1\n" in env_file.read_text()


@pytest.mark.parametrize("version", [v for v in ("newest", "2.13.0") if v in PLAYBOOKS])
def test_check_mode_shows_the_change_and_writes_nothing(plain, version):
    root, ini = plain["root"], plain["homes"]["a1"] / "atc_data" / "kernel_cache" / "op_cache.ini"
    before, backups = ini.read_bytes(), sorted(ini.parent.glob("op_cache.ini.*.bak"))
    out = _run(PLAYBOOKS[version], root, plain["inventory"], plain["playbook"], "--check", "--diff",
               "-e", "cann_max_op_cache_size=1234", "-e", "cann_hosts=a1", "-e", f"cann_env_file={root / 'check.sh'}")
    assert out.returncode == 0, out.stdout
    assert _recap(out.stdout)["a1"]["changed"] >= 1
    assert "+max_op_cache_size=1234" in out.stdout and "-max_op_cache_size=" in out.stdout
    assert ini.read_bytes() == before and not (root / "check.sh").exists()
    assert sorted(ini.parent.glob("op_cache.ini.*.bak")) == backups


def test_values_cann_refuses_fail_their_node_with_the_reason(plain):
    """From host_vars: a ratio CANN refuses, and chosen dirs with ~ or $ (CANN takes them literally;
    the probe does too, and refuses them rather than write where CANN never reads)."""
    out = _run(PLAYBOOKS["newest"], plain["root"], plain["inventory"], plain["playbook"], "-e", "cann_hosts=bad")
    assert out.returncode != 0
    assert "b1: cann_remain_cache_size_ratio=0 is not a value CANN accepts" in out.stdout
    assert "b2: the cache directory ~/cache holds ~ or $: CANN takes it literally" in out.stdout
    assert "b3: the cache directory $HOME/cache holds ~ or $: CANN takes it literally" in out.stdout
    recap = _recap(out.stdout)
    assert all(recap[name]["failed"] == 1 and recap[name]["changed"] == 0 for name in ("b1", "b2", "b3"))
    assert not (plain["homes"]["a2"] / "atc_data").exists() and not any(plain["root"].rglob("cache"))


def test_collect_refuses_a_host_name_that_is_not_a_file_name(plain):
    out = _run(PLAYBOOKS["newest"], plain["root"], plain["inventory"], plain["collect"],
               "-e", "cann_hosts=other", "-e", f"cann_tool={_BIN / 'cann-config'}")
    assert out.returncode != 0
    assert '"../escape": this inventory host name is not a plain file name' in out.stdout
    assert not (plain["root"] / "escape.json").exists() and not any(plain["root"].rglob("*.json.*"))
    assert not any(p.suffix == ".json" and p.parent != plain["root"] for p in plain["root"].parent.glob("*"))


def test_probe_arguments_travel_as_base64():
    text = export_text(Profile(options=dict(SIZES)), "ansible", lang="en").text
    assert '- "{{ cann_probe_args | to_json | b64encode }}"' in text
    assert base64  # the probe decodes it (tests/app/io/test_fleet_exports.py runs it directly)
