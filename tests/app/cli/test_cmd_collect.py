"""`cann-config collect` on this machine (no Ascend device), and the round trip collect → diagnose
--bundle [--report], with the exit statuses of docs/architecture.md#exit-status."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cann_config.app.cli import main

ROOT = Path(__file__).resolve().parents[3]
BUNDLES = ROOT / "tests" / "data" / "bundles"


@pytest.fixture
def bare_host(tmp_path, monkeypatch):
    """This machine as a customer's host: no npu-smi on PATH, an empty HOME, a secret around."""
    monkeypatch.chdir(tmp_path)
    for name in ("ASCEND_CACHE_PATH", "ASCEND_WORK_PATH", "ASCEND_OPP_PATH", "ASCEND_MAX_OP_CACHE_SIZE",
                 "ASCEND_REMAIN_CACHE_SIZE_RATIO", "ACL_OP_COMPILER_CACHE_MODE", "ACL_OP_COMPILER_CACHE_DIR",
                 "GE_USE_STATIC_MEMORY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(tmp_path / "cache"))
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret_value")
    (tmp_path / "home").mkdir()
    return tmp_path


def test_collect_writes_a_bundle_and_says_what_is_in_it(bare_host, capsys):
    assert main(["collect", "--lang", "en"]) == 0
    out = capsys.readouterr().out.splitlines()
    written = list(bare_host.glob("cann-config-bundle-*.json"))
    assert len(written) == 1
    assert out[0].startswith(f"Wrote the support bundle {written[0]} (")
    assert "no Ascend device found (npu-smi was not found" in out[1]
    assert "read it before you send it" in out[2] and "HOME" in out[2] and "hostname" not in out[2]
    data = json.loads(written[0].read_text(encoding="utf-8"))
    assert data["format"] == "cann-config-bundle" and data["npu_smi"]["info"] is None
    assert data["environment"] == {"HOME": str(bare_host / "home"), "ASCEND_CACHE_PATH": str(bare_host / "cache")}
    assert "ghp_secret_value" not in written[0].read_text(encoding="utf-8")


def test_default_name_never_overwrites(bare_host, capsys, monkeypatch):
    monkeypatch.setattr("cann_config.app.cli.cmd_collect.default_bundle_name", lambda: "cann-config-bundle-x.json")
    (bare_host / "cann-config-bundle-x.json").write_text("keep me")
    assert main(["collect"]) == 0
    assert (bare_host / "cann-config-bundle-x.json").read_text() == "keep me"
    assert json.loads((bare_host / "cann-config-bundle-x-2.json").read_text())["version"] == 1


def test_output_file_and_stdout(bare_host, capsys):
    assert main(["collect", "-o", "b.json", "--hostname", "--lang", "zh_CN"]) == 0
    out = capsys.readouterr().out
    assert "已写入支持信息包" in out and "本机主机名" in out
    assert json.loads((bare_host / "b.json").read_text())["host"]["hostname"]
    assert main(["collect", "-o", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["format"] == "cann-config-bundle"


def test_collect_cannot_write(bare_host, capsys):
    assert main(["collect", "-o", str(bare_host / "no" / "such" / "dir" / "b.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "b.json" in err
    assert main(["collect", "--scan-seconds", "-1"]) == 2


def test_collect_runs_without_pyside6(tmp_path):
    """A bare server has only the core's dependencies: make PySide6 unimportable and collect."""
    code = ("import sys; sys.modules['PySide6'] = None\n"
            "from cann_config.app.cli import main\n"
            f"rc = main(['collect', '-o', {str(tmp_path / 'b.json')!r}])\n"
            "assert not any(m.startswith('PySide6') and sys.modules[m] is not None for m in sys.modules)\n"
            "sys.exit(rc)\n")
    env = {**os.environ, "PATH": str(tmp_path), "HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "b.json").read_text())["format"] == "cann-config-bundle"


def test_round_trip_collect_then_diagnose(bare_host, capsys):
    ini = bare_host / "cache" / "kernel_cache" / "op_cache.ini"
    ini.parent.mkdir(parents=True)
    ini.write_text("[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\nmax_op_cache_size=0\n"
                   "remain_cache_size_ratio=80\n")
    assert main(["collect", "-o", "b.json"]) == 0
    capsys.readouterr()
    assert main(["diagnose", "--bundle", "b.json", "--json", "--lang", "en"]) == 1  # max 0 is an error
    data = json.loads(capsys.readouterr().out)
    assert data["device"]["soc_version"] is None and data["device"]["source"] == "bundle"
    codes = {f["code"] for f in data["findings"]}
    assert {"cache-ini-max-invalid", "support-bundle-no-npu-smi"} <= codes
    assert not {c for c in codes if c.startswith("scan-")}  # an empty cache: nothing to say, as `scan` says
    assert data["effective"]["max_op_cache_size"] == {
        "value": 500, "source": "default", "file": None, "line": None,
        "detail": data["effective"]["max_op_cache_size"]["detail"]}
    # The same files read directly give the same values and findings.
    env = bare_host / "job.env"
    env.write_text(f"export HOME={bare_host / 'home'}\nexport ASCEND_CACHE_PATH={bare_host / 'cache'}\n")
    assert main(["diagnose", "--ini", str(ini), "--env-file", str(env), "--json", "--lang", "en"]) == 1
    direct = json.loads(capsys.readouterr().out)
    assert {k: (v["value"], v["source"]) for k, v in direct["effective"].items()} == {
        k: (v["value"], v["source"]) for k, v in data["effective"].items()}
    assert sorted((f["code"], f["line"], f["message"]) for f in direct["findings"]) == sorted(
        (f["code"], f["line"], f["message"]) for f in data["findings"] if not f["code"].startswith("support-"))


def test_diagnose_a_fixture_bundle_with_reports(tmp_path, capsys):
    bundle = str(BUNDLES / "a2-910b3.json")
    assert main(["diagnose", "--bundle", bundle, "--lang", "zh_CN", "--report", str(tmp_path / "r.md")]) == 1
    captured = capsys.readouterr()
    # the report goes to its file; the output is one line saying where
    assert captured.out.count("\n") == 1 and "已写入报告" in captured.out and "CANN 配置诊断报告" not in captured.out
    assert "## 生效的设置" in (tmp_path / "r.md").read_text(encoding="utf-8")
    assert main(["diagnose", "--bundle", bundle, "--device", "Ascend910B4", "--framework", "pytorch", "--json",
                 "--report", str(tmp_path / "r.html")]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["device"]["soc_version"] == "Ascend910B4" and data["framework"] == "pytorch"
    assert (tmp_path / "r.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_report_without_a_bundle(tmp_path, capsys):
    ini = tmp_path / "op_cache.ini"
    ini.write_text("[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\nmax_op_cache_size=800\n")
    report = tmp_path / "r.md"
    env = tmp_path / "job.env"  # a customer's files: the ini stands for the one their CANN reads
    env.write_text("")
    assert main(["diagnose", "--ini", str(ini), "--env-file", str(env), "--lang", "en", "--report", str(report)]) == 1
    text = report.read_text(encoding="utf-8")
    assert "cache-ini-size-pair-incomplete" in text and "remain_cache_size_ratio=50" in text


@pytest.mark.parametrize("args,expected", [
    (["--bundle", str(BUNDLES / "truncated.json")], "not valid JSON"),
    (["--bundle", str(BUNDLES / "a2-910b3.json"), "--ini", "x.ini"], "--bundle cannot be combined with --ini"),
    (["--bundle", str(BUNDLES / "a2-910b3.json"), "--report", "r.txt"], "Markdown (.md) or HTML (.html)"),
    (["--report", "r.pdf"], "Markdown (.md) or HTML (.html)"),
    (["--bundle", str(ROOT / "pyproject.toml")], "not valid JSON"),
])
def test_unusable_input_is_exit_2_with_one_line(tmp_path, capsys, args, expected):
    assert main(["diagnose", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err
    assert not (tmp_path / "r.txt").exists()


@pytest.mark.parametrize("fixture", ["a2-910b3.json", "a3-910-9392.json", "no-device.json", "newer-version.json",
                                     "edited-wrong-types.json"])
def test_every_fixture_diagnoses_in_both_languages(tmp_path, capsys, fixture):
    for lang in ("en", "zh_CN"):
        code = main(["diagnose", "--bundle", str(BUNDLES / fixture), "--lang", lang,
                     "--report", str(tmp_path / f"{lang}.html")])
        assert code in (0, 1)
        assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("seconds", ["inf", "-inf", "nan", "1e999"])
def test_a_time_limit_that_is_no_finite_number_is_refused(bare_host, capsys, seconds):
    assert main(["collect", f"--scan-seconds={seconds}", "-o", "b.json", "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "finite" in err
    assert not (bare_host / "b.json").exists()


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_a_bundle_with_a_non_finite_number_is_refused_naming_the_line(tmp_path, capsys, token):
    text = (BUNDLES / "a2-910b3.json").read_text(encoding="utf-8")
    data = json.loads(text)
    data["scan"] = {"time_limit_seconds": 20.0}
    bundle = tmp_path / "b.json"
    written = json.dumps(data, indent=2).replace("20.0", token)
    bundle.write_text(written, encoding="utf-8")
    line = next(number for number, text in enumerate(written.splitlines(), 1) if token in text)
    assert main(["diagnose", "--bundle", str(bundle), "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bundle}:{line}:" in err and "not plain JSON" in err
