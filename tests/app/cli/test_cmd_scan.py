"""`cann-config scan`: du's totals, the limit and its source, the prediction, exit codes, progress."""

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cann_config.app.cli import cmd_scan, main
from cann_config.app.opcache.scanner import scan_cache
from tests.bench.make_tree import make_tree

ENV_VARS = ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO",
            "ACL_OP_COMPILER_CACHE_DIR", "ACL_OP_COMPILER_CACHE_MODE", "ASCEND_WORK_PATH")
INI_WITH_VERSIONS = ("[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n"
                     "max_op_cache_size=1\nremain_cache_size_ratio=80\n")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def scan_json(capsys, *args):
    code = main(["scan", "--json", *args])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def du_bytes(path, *flags):
    return int(subprocess.run(["du", *flags, str(path)], capture_output=True, text=True, check=True).stdout.split()[0])


@pytest.mark.skipif(shutil.which("du") is None, reason="du is not installed")
def test_json_totals_equal_du(tmp_path, capsys):
    kc = make_tree(tmp_path / "base", files=2000, dirs=20)
    data = scan_json(capsys, "--cache-dir", str(tmp_path / "base"))
    assert data["kernel_cache"] == str(kc) and data["exists"]
    assert data["totals"]["apparent_bytes"] == du_bytes(kc, "-sb")
    assert data["totals"]["allocated_bytes"] == du_bytes(kc, "-sB1")
    assert data["totals"]["files"] == 2001
    assert sorted(data["socs"]) == ["Ascend310P3", "Ascend910B3", "Ascend910B4", "Ascend910_9382"]
    soc = data["socs"]["Ascend910B3"]
    assert soc["apparent_bytes"] == du_bytes(kc / "Ascend910B3", "-sb")
    assert soc["files"] == 500 and soc["cleanup"]["triggers"] is False
    assert data["limits"]["max_op_cache_size"] == {"value": 500, "source": "op_cache.ini", "line": 4,
                                                   "file": str(kc / "op_cache.ini"),
                                                   "variable": "max_op_cache_size",
                                                   "detail": data["limits"]["max_op_cache_size"]["detail"]}
    assert data["findings"] == []


def test_an_op_cache_ini_that_cann_ignores_is_an_error_exit_1(tmp_path, capsys):
    kc = tmp_path / "base" / "kernel_cache"
    (kc / "Ascend910B3").mkdir(parents=True)
    (kc / "Ascend910B3" / "big.o").write_bytes(b"x" * 3 * 1048576)
    # no adk_version/ops_version: CANN ignores the file (docs/cann/op-cache.md#version-lines), so the 2 MB
    # written there is not the limit; the default 500 is, and nothing triggers.
    (kc / "op_cache.ini").write_text("[op_compiler_cache]\nmax_op_cache_size=2\nremain_cache_size_ratio=50\n")
    assert main(["scan", "--json", "--cache-dir", str(tmp_path / "base")]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["limits"]["max_op_cache_size"]["value"] == 500
    assert data["socs"]["Ascend910B3"]["cleanup"]["triggers"] is False
    assert ("error", "cache-ini-missing-versions") in [(f["severity"], f["code"]) for f in data["findings"]]


def test_json_keys_are_stable(tmp_path, capsys):
    make_tree(tmp_path / "base", files=20, dirs=2)
    data = scan_json(capsys, "--cache-dir", str(tmp_path / "base"), "--lang", "zh_CN")
    assert list(data) == ["kernel_cache", "exists", "cache_dir", "limits", "filesystem", "socs", "other",
                          "totals", "unreadable", "other_filesystems", "elapsed_seconds", "stopped", "findings",
                          "next_start_empties", "unreadable_count", "other_filesystems_count", "other_users"]
    soc = next(iter(data["socs"].values()))
    assert list(soc) == ["path", "files", "dirs", "apparent_bytes", "allocated_bytes", "cann_bytes", "hard_links",
                         "symlinks", "other_users_files", "limit_source", "cleanup", "empties_at_next_start",
                         "first_unparsed_json", "first_unread_json"]
    assert {"triggers", "target_bytes", "delete_groups", "delete_bytes", "kept_recent_groups",
            "keep_threshold_bytes", "percent_of_limit"} <= set(soc["cleanup"])
    assert data["filesystem"]["free_bytes"] > 0


def test_limit_from_op_cache_ini_and_the_prediction(tmp_path, capsys):
    soc = tmp_path / "base" / "kernel_cache" / "Ascend910B3"
    soc.mkdir(parents=True)
    (soc.parent / "op_cache.ini").write_text(INI_WITH_VERSIONS)
    old = 1_600_000_000
    for i in range(3):
        (soc / f"k{i}.json").write_text(json.dumps({"binFileName": f"k{i}", "binFileSuffix": ".o"}))
        (soc / f"k{i}.o").write_bytes(b"x" * 600_000)
        os.utime(soc / f"k{i}.json", (old + i, old + i))
    data = scan_json(capsys, "--cache-dir", str(tmp_path / "base"))
    limit = data["limits"]["max_op_cache_size"]
    assert limit["source"] == "op_cache.ini" and limit["line"] == 4 and limit["value"] == 1
    assert data["limits"]["keep_threshold_bytes"] == 1048576 * 80 // 100
    cleanup = data["socs"]["Ascend910B3"]["cleanup"]
    used = 3 * 600_000 + sum((soc / f"k{i}.json").stat().st_size for i in range(3))
    assert cleanup["used_bytes"] == used and cleanup["triggers"]
    assert cleanup["target_bytes"] == used - 1048576 * 80 // 100
    assert cleanup["delete_groups"] == 2  # two oldest groups reach the target; the third stays
    assert cleanup["percent_of_limit"] > 100
    assert "scan-over-limit" in [f["code"] for f in data["findings"]]


def test_limit_from_the_environment(tmp_path, capsys, monkeypatch):
    (tmp_path / "base" / "kernel_cache" / "S").mkdir(parents=True)
    monkeypatch.setenv("ASCEND_MAX_OP_CACHE_SIZE", "-1")
    data = scan_json(capsys, "--cache-dir", str(tmp_path / "base" / "kernel_cache"))
    assert data["kernel_cache"] == str(tmp_path / "base" / "kernel_cache")  # a kernel_cache path is accepted
    assert data["limits"]["max_op_cache_size"]["source"] == "env"
    assert data["limits"]["ageing"] is False and data["socs"]["S"]["cleanup"]["ageing"] is False
    assert "cache-ageing-off" in [f["code"] for f in data["findings"]]


def test_the_dir_comes_from_ascend_cache_path(tmp_path, capsys, monkeypatch):
    make_tree(tmp_path / "shared", files=10, dirs=1)
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(tmp_path / "shared"))
    data = scan_json(capsys)
    assert data["exists"] and data["cache_dir"]["variable"] == "ASCEND_CACHE_PATH"
    assert data["totals"]["files"] == 11


def test_no_cache_yet_is_not_an_error(tmp_path, capsys):
    data = scan_json(capsys)
    assert data["kernel_cache"] == str(tmp_path / "home" / "atc_data" / "kernel_cache")
    assert data["exists"] is False and data["socs"] == {}
    assert [f["code"] for f in data["findings"]] == ["scan-no-cache"]
    assert main(["scan", "--lang", "en"]) == 0
    assert "There is no cache yet" in capsys.readouterr().out


def test_a_missing_cache_dir_option_exits_2_with_one_line(tmp_path, capsys):
    assert main(["scan", "--cache-dir", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope" in err and "no such directory" in err
    (tmp_path / "file").write_text("x")
    assert main(["scan", "--cache-dir", str(tmp_path / "file")]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_kernel_cache_that_is_a_file_exits_2(tmp_path, capsys):
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "kernel_cache").write_text("x")
    assert main(["scan", "--cache-dir", str(tmp_path / "base")]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_text_report(tmp_path, capsys):
    soc = tmp_path / "base" / "kernel_cache" / "Ascend910B3"
    soc.mkdir(parents=True)
    (soc.parent / "op_cache.ini").write_text(INI_WITH_VERSIONS)
    (soc / "big.o").write_bytes(b"x" * 2 * 1048576)
    assert main(["scan", "--cache-dir", str(tmp_path / "base"), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "Limit per SoC dir: 1 MB (max_op_cache_size=1 [op_cache.ini:4])" in out
    assert "remain_cache_size_ratio=80 [op_cache.ini:5]" in out
    assert "Ascend910B3" in out and "200 % of the limit" in out
    assert "next compiler start: CANN targets" in out
    assert "This is normal" in out  # over the limit is information, not an error
    assert main(["scan", "--cache-dir", str(tmp_path / "base"), "--lang", "zh_CN"]) == 0
    assert "每个 SoC 目录的上限" in capsys.readouterr().out


def test_an_unreadable_op_cache_ini_is_a_finding(tmp_path, capsys):
    kc = tmp_path / "base" / "kernel_cache"
    (kc / "op_cache.ini").mkdir(parents=True)
    data = scan_json(capsys, "--cache-dir", str(tmp_path / "base"))
    assert "scan-ini-unreadable" in [f["code"] for f in data["findings"]]
    assert data["limits"]["max_op_cache_size"]["source"] == "default"


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_goes_to_a_terminal_only(tmp_path, capsys, monkeypatch):
    make_tree(tmp_path / "base", files=200, dirs=10)
    monkeypatch.setattr(cmd_scan, "PROGRESS_AFTER_SECONDS", 0)
    monkeypatch.setattr("cann_config.app.cli.cmd_scan.scan_cache",
                        lambda path, **kw: scan_cache(path, batch_seconds=0, **kw))
    assert main(["scan", "--cache-dir", str(tmp_path / "base"), "--lang", "en"]) == 0
    assert capsys.readouterr().err == ""  # stderr is not a terminal here
    terminal = FakeTerminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["scan", "--cache-dir", str(tmp_path / "base"), "--lang", "en"]) == 0
    shown = terminal.getvalue()
    assert "\rscanning: " in shown and shown.endswith("\r\x1b[K")  # the line is cleared at the end


def test_scan_is_listed_in_help(capsys):
    with pytest.raises(SystemExit):
        main(["scan", "--help"])
    assert "--cache-dir" in capsys.readouterr().out


def test_cli_subprocess_json(tmp_path):
    make_tree(tmp_path / "base", files=10, dirs=1)
    root = Path(__file__).resolve().parents[3]
    env = {k: v for k, v in os.environ.items() if k not in ENV_VARS}
    result = subprocess.run([sys.executable, "-m", "cann_config.app", "scan", "--cache-dir", str(tmp_path / "base"), "--json"],
                            capture_output=True, text=True, cwd=root, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["totals"]["files"] == 11
    assert result.stderr == ""


def test_the_prediction_is_complete_and_shows_progress_on_a_terminal(tmp_path, capsys, monkeypatch):
    """`scan` has no time limit (the module docstring): the prediction reads every group it
    needs, and a terminal sees how far it got."""
    soc = tmp_path / "base" / "kernel_cache" / "Ascend910B3"
    soc.mkdir(parents=True)
    (soc.parent / "op_cache.ini").write_text(INI_WITH_VERSIONS)
    for i in range(40):
        (soc / f"k{i}.json").write_text(json.dumps({"binFileName": f"k{i}", "binFileSuffix": ".o"}))
        (soc / f"k{i}.o").write_bytes(b"x" * 60_000)
        os.utime(soc / f"k{i}.json", (1_600_000_000 + i, 1_600_000_000 + i))
    monkeypatch.setattr(cmd_scan, "PROGRESS_AFTER_SECONDS", 0)
    monkeypatch.setattr(cmd_scan, "PROGRESS_EVERY_SECONDS", 0)
    terminal = FakeTerminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["scan", "--json", "--cache-dir", str(tmp_path / "base"), "--lang", "en"]) == 0
    cleanup = json.loads(capsys.readouterr().out)["socs"]["Ascend910B3"]["cleanup"]
    # 40 groups of ~60 kB over a 1 MiB limit keeping 80 %: the oldest 27 reach the target.
    assert cleanup["stopped"] is False and cleanup["target_reached"] and cleanup["delete_groups"] == 27
    shown = terminal.getvalue()
    assert "\rpredicting CANN's cleanup: 27 kernel json groups read" in shown and shown.endswith("\r\x1b[K")


def test_fifos_in_and_out_of_the_cache_never_block_the_scan(tmp_path, capsys):
    """A FIFO named *.json in a SoC dir and a jsonList entry naming a FIFO outside the cache:
    the scan and its prediction finish, and the odd jsons are reported, not read."""
    kc = tmp_path / "base" / "kernel_cache"
    meta = kc / "Ascend910B3" / "kernel_meta"
    meta.mkdir(parents=True)
    (kc / "op_cache.ini").write_text(INI_WITH_VERSIONS, encoding="utf-8")
    os.mkfifo(tmp_path / "outside.json")
    os.mkfifo(meta / "pipe.json")
    (meta / "k.json").write_text(json.dumps({"jsonList": [{"jsonFileName": "../../../../outside.json"}]}))
    (meta / "big.o").write_bytes(b"x" * (2 * 1024 * 1024))
    old = 1_600_000_000
    for name in ("pipe.json", "k.json"):
        os.utime(meta / name, (old, old))
    data = scan_json(capsys, "--cache-dir", str(tmp_path / "base"))
    cleanup = data["socs"]["Ascend910B3"]["cleanup"]
    assert cleanup["triggers"] and cleanup["unparsed_jsons"] == 2
    unparsed = next(f for f in data["findings"] if f["code"] == "scan-json-unparsed")
    assert unparsed["file"] in (str(meta / "pipe.json"), str(meta / "k.json"))


def test_candidates_are_gathered_from_the_start_when_the_filesystem_can_hold_the_limit(tmp_path, monkeypatch):
    """One pass: a limit the filesystem's used bytes reach may be reached by a SoC dir, so its
    candidates are gathered as the walk goes; a limit above them is waited for (CANN cleans only
    at >= max); ageing off needs none."""
    from types import SimpleNamespace

    def fs(used_blocks):
        return lambda path: SimpleNamespace(f_blocks=10_000, f_bfree=10_000 - used_blocks, f_frsize=1024 * 1024)

    monkeypatch.setattr(cmd_scan.os, "statvfs", fs(500))
    assert cmd_scan.candidates_from(tmp_path, 500) == 0
    assert cmd_scan.candidates_from(tmp_path, 501) == 501 * 1024 * 1024
    assert cmd_scan.candidates_from(tmp_path, -1) is None

    def broken(path):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(cmd_scan.os, "statvfs", broken)
    assert cmd_scan.candidates_from(tmp_path, 1) == 1024 * 1024


def test_a_cache_over_its_limit_is_walked_once(tmp_path, monkeypatch, capsys):
    """The over-limit scan lists every dir once (no second listing for the candidates)."""
    base = tmp_path / "base"
    kc = make_tree(base, files=300, dirs=6, socs=("Ascend910B3",))
    (kc / "op_cache.ini").write_text(INI_WITH_VERSIONS, encoding="utf-8")
    for leaf in (kc / "Ascend910B3").rglob("*"):
        if leaf.is_dir() and not any(p.is_dir() for p in leaf.iterdir()):
            (leaf / "big.bin").write_bytes(b"b" * 400_000)  # the 1 MB limit is reached at the 3rd dir
    listed = []
    real = os.listdir

    def counting(fd):
        listed.append(fd)
        return real(fd)

    from cann_config.app.opcache import scanner

    real_scan = scanner.scan_cache
    monkeypatch.setattr(cmd_scan, "scan_cache", lambda path, **kw: real_scan(path, listdir=counting, **kw))
    data = scan_json(capsys, "--cache-dir", str(base))
    dirs = data["totals"]["dirs"]
    assert any(s["cleanup"]["triggers"] for s in data["socs"].values())
    assert len(listed) == dirs


def test_the_cyclic_collector_waits_for_the_walk_and_the_prediction(tmp_path, monkeypatch, capsys):
    import gc

    kc = make_tree(tmp_path / "base", files=40, dirs=2)
    (kc / "op_cache.ini").write_text(INI_WITH_VERSIONS, encoding="utf-8")
    seen = []
    real_predict = cmd_scan.predict_cleanup

    def predict(*args, **kwargs):
        seen.append(gc.isenabled())
        return real_predict(*args, **kwargs)

    monkeypatch.setattr(cmd_scan, "predict_cleanup", predict)
    assert gc.isenabled()
    scan_json(capsys, "--cache-dir", str(tmp_path / "base"))
    assert seen and not any(seen) and gc.isenabled()


def test_the_json_parser_is_imported_only_when_a_json_is_read(tmp_path, monkeypatch):
    """orjson brings dataclasses (~14 ms): a cache under its limit reads no json and never
    imports it. (Over its limit the C reader, when built, parses the plain jsons itself and
    orjson comes only for the others: the pure-Python reader shows the import.)"""
    from tests.app.cli.test_cli_basics import imported_modules

    kc = make_tree(tmp_path / "base", files=40, dirs=2)
    (kc / "op_cache.ini").write_text(INI_WITH_VERSIONS.replace("max_op_cache_size=1", "max_op_cache_size=100"),
                                     encoding="utf-8")
    under = imported_modules("scan", "--cache-dir", str(tmp_path / "base"), "--json")
    assert "cann_config.app.opcache.cleanup" in under and "orjson" not in under
    # Nor dataclasses and inspect (~10 ms): the scan's records are NamedTuples and plain classes.
    assert not under & {"dataclasses", "inspect"}
    (kc / "op_cache.ini").write_text(INI_WITH_VERSIONS, encoding="utf-8")
    soc = min(p for p in kc.iterdir() if p.is_dir())
    (soc / "big.bin").write_bytes(b"b" * (2 * 1024 * 1024))
    monkeypatch.setenv("CANN_CONFIG_NO_NATIVE", "1")
    assert "orjson" in imported_modules("scan", "--cache-dir", str(tmp_path / "base"), "--json")
