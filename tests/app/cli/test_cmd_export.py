"""`cann-config export`: output, exit status, atomic -o, --ini, --set / --device / --framework."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from cann_config.app.cli import cmd_export, main
from cann_config.app.io.exporters import export_text
from cann_config.app.profile import Profile

ROOT = Path(__file__).resolve().parents[3]


def run(capsysbinary, *argv: str) -> tuple[int, bytes, str]:
    code = main(list(argv))
    captured = capsysbinary.readouterr()
    return code, captured.out, captured.err.decode("utf-8")


def test_stdout_is_the_exporter_output(capsysbinary):
    code, out, err = run(capsysbinary, "export", "tf1-estimator", "--set", "static_memory_policy=2",
                         "--set", "op_compiler_cache_dir=/数据/a b", "--device", "Ascend910B3", "--lang", "en")
    assert code == 0
    profile = Profile(framework="tf1", device="Ascend910B3",
                      options={"static_memory_policy": 2, "op_compiler_cache_dir": "/数据/a b"})
    expected = export_text(profile, "tf1-estimator", lang="en").data
    # The CLI names the device as chosen by hand; otherwise the bytes are the exporter's.
    assert out == expected.replace(b"from the profile", b"chosen by hand")
    assert "warning: 2 and 4 are not supported when several graphs execute concurrently" in err


def test_a_format_for_one_framework_implies_it(capsysbinary):
    code, out, _ = run(capsysbinary, "export", "tf2", "--set", "static_memory_policy=3", "--changed-only")
    assert code == 0
    assert b"npu.global_options().memory_config.static_memory_policy = 3" in out
    code, out, _ = run(capsysbinary, "export", "ge-options", "--set", "static_memory_policy=3", "--changed-only")
    assert code == 0 and b'"ge.exec.staticMemoryPolicy": "3",' in out


def test_chinese_comments(capsysbinary):
    code, out, _ = run(capsysbinary, "export", "env-bash", "--framework", "pytorch", "--set",
                       "max_op_cache_size=1000", "--lang", "zh_CN")
    assert code == 0
    text = out.decode("utf-8")
    assert "export ASCEND_MAX_OP_CACHE_SIZE=1000" in text and "仅对当前用户生效" in text


@pytest.mark.parametrize("argv, needle", [
    (["--set", "max_op_cache_size=abc"], "max_op_cache_size takes a size in MB (a whole number, e.g. 2048"),
    (["--set", "max_op_cache_size"], "--set needs ID=VALUE"),
    (["--set", "no_such_option=1"], "unknown option 'no_such_option'"),
    (["--set", "static_memory_policy=9"], "static_memory_policy must be one of 0, 1, 2, 3, 4, not 9"),
    (["--device", "Kunpeng920"], "--device: 'Kunpeng920' is neither an Ascend SoC version"),
    (["--framework", "caffe"], "argument --framework"),
    (["--ini", "x.ini"], "--ini, --add-versions, --adk-version and --ops-version go with the op-cache-ini format"),
])
def test_bad_usage_is_one_line_and_exit_2(capsysbinary, argv, needle):
    code, out, err = run(capsysbinary, "export", "env-bash", *argv)
    assert code == 2 and out == b""
    assert err.count("\n") == 1 and needle in err, err


def test_unknown_format_is_exit_2(capsysbinary):
    code, _, err = run(capsysbinary, "export", "yaml")
    assert code == 2 and "invalid choice: 'yaml'" in err


def test_format_for_another_framework_is_exit_2(capsysbinary):
    code, out, err = run(capsysbinary, "export", "tf2", "--framework", "pytorch")
    assert code == 2 and out == b""
    assert err == ("cann-config: the tf2 export is not for framework pytorch; "
                   "pytorch takes: torch-npu, env-bash, env-fish, op-cache-ini, profile, ansible, ansible-collect, "
                   "k8s-configmap\n")


def test_refused_choice_is_exit_1_with_the_reason_and_no_file(capsysbinary, tmp_path):
    target = tmp_path / "snippet.py"
    code, out, err = run(capsysbinary, "export", "tf1-estimator", "--device", "Ascend310P3", "--set",
                         "variable_use_1g_huge_page=1", "-o", str(target), "--lang", "en")
    assert code == 1 and out == b""
    assert "error: variable_use_1g_huge_page = 1 cannot be used: Not supported on" in err
    assert "Ascend310P3, chosen by hand" in err
    assert not target.exists() and list(tmp_path.iterdir()) == []
    code, _, err = run(capsysbinary, "export", "env-bash", "--framework", "pytorch", "--set", "atomic_clean_policy=1",
                       "--lang", "en")
    assert code == 1 and "atomic_clean_policy = 1 cannot be used" in err


def test_output_file_is_written_atomically_and_keeps_permissions(capsysbinary, tmp_path):
    target = tmp_path / "cann.sh"
    target.write_text("old\n")
    target.chmod(0o640)
    code, out, _ = run(capsysbinary, "export", "env-bash", "--set", "max_op_cache_size=700", "-o", str(target))
    assert code == 0 and out.decode().strip() == f"wrote {target}"
    assert "export ASCEND_MAX_OP_CACHE_SIZE=700" in target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cann.sh"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(capsysbinary, tmp_path, monkeypatch):
    target = tmp_path / "cann.sh"
    target.write_text("old\n")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    code, _, err = run(capsysbinary, "export", "env-bash", "--set", "max_op_cache_size=700", "-o", str(target))
    assert code == 2 and err == f"cann-config: {target}: cannot write: No space left on device\n"
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cann.sh"]


def test_output_into_a_missing_directory_is_exit_2(capsysbinary, tmp_path):
    code, _, err = run(capsysbinary, "export", "profile", "-o", str(tmp_path / "no" / "p.json"))
    assert code == 2 and "cannot write" in err and err.count("\n") == 1


def test_profile_in_profile_out(capsysbinary, tmp_path):
    source = tmp_path / "in.json"
    source.write_text(json.dumps({"format": "cann-config-profile", "version": 1, "device": "atlas-a3",
                                  "framework": "tf2", "options": {"static_memory_policy": 4}}))
    code, out, _ = run(capsysbinary, "export", "profile", "--profile", str(source), "--set",
                       "op_compiler_cache_mode=force", "--changed-only")
    assert code == 0
    assert json.loads(out) == {"format": "cann-config-profile", "version": 1, "device": "atlas-a3", "framework": "tf2",
                               "options": {"static_memory_policy": 4, "op_compiler_cache_mode": "force"}}
    source.write_text(json.dumps({"format": "cann-config-profile", "version": 1, "colour": "red"}))
    code, _, err = run(capsysbinary, "export", "profile", "--profile", str(source))
    assert code == 2 and "unknown key 'colour'" in err and str(source) in err


INI = ("#配置文件格式\n[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n"
       "max_op_cache_size=500\nremain_cache_size_ratio=50 # keep half\n").encode()


def test_ini_rewrite_changes_only_the_chosen_value(capsysbinary, tmp_path):
    ini = tmp_path / "op_cache.ini"
    ini.write_bytes(INI)
    code, out, _ = run(capsysbinary, "export", "op-cache-ini", "--ini", str(ini))
    assert code == 0 and out == INI
    code, out, _ = run(capsysbinary, "export", "op-cache-ini", "--ini", str(ini), "--set", "remain_cache_size_ratio=80")
    assert code == 0 and out == INI.replace(b"ratio=50 #", b"ratio=80 #")
    code, out, _ = run(capsysbinary, "export", "op-cache-ini", "--ini", str(ini), "--set", "max_op_cache_size=900",
                       "-o", str(ini))
    assert code == 0 and "previous content in" in out.decode()
    assert ini.read_bytes() == INI.replace(b"size=500", b"size=900")
    assert (tmp_path / "op_cache.ini.bak").read_bytes() == INI


def test_new_ini_with_the_installed_versions(capsysbinary, monkeypatch):
    monkeypatch.setattr(cmd_export, "installed_op_cache_versions",
                        lambda *a, **k: {"adk_version": "8.5.0", "ops_version": "8.5.1"})
    code, out, err = run(capsysbinary, "export", "op-cache-ini", "--add-versions", "--set", "max_op_cache_size=1000")
    assert code == 0
    assert b"adk_version=8.5.0\n" in out and b"ops_version=8.5.1\n" in out and b"max_op_cache_size=1000\n" in out
    monkeypatch.setattr(cmd_export, "installed_op_cache_versions", lambda *a, **k: {})
    code, out, err = run(capsysbinary, "export", "op-cache-ini", "--add-versions")
    assert code == 2 and "were not found on this host" in err


def test_same_bytes_whatever_the_hash_seed(tmp_path):
    outputs = set()
    for seed in ("1", "2", "random"):
        done = subprocess.run([sys.executable, "-m", "cann_config.app", "export", "tf1-session", "--set", "static_memory_policy=2",
                               "--set", "op_compiler_cache_dir=/x y", "--set", "max_op_cache_size=9", "--lang", "en"],
                              capture_output=True, cwd=ROOT, timeout=60,
                              env={**os.environ, "PYTHONHASHSEED": seed})
        assert done.returncode == 0, done.stderr
        outputs.add(done.stdout)
    assert len(outputs) == 1


def test_editing_a_file_without_the_ratio_writes_the_ratio_cann_uses_now_and_says_so(capsysbinary, tmp_path,
                                                                                      monkeypatch):
    ini = tmp_path / "op_cache.ini"
    ini.write_bytes(b"[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\nmax_op_cache_size=800\n")
    monkeypatch.setenv("ASCEND_REMAIN_CACHE_SIZE_RATIO", "70")
    code, out, err = run(capsysbinary, "export", "op-cache-ini", "--ini", str(ini), "--set", "max_op_cache_size=1000",
                         "-o", str(ini), "--lang", "en")
    assert code == 0, err
    assert ini.read_bytes() == (b"[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\nmax_op_cache_size=1000\n"
                                b"remain_cache_size_ratio=70\n")
    assert f"warning: {ini}: The save also writes remain_cache_size_ratio=70" in err and "(from env)" in err
