"""`cann-config diagnose`: exit status 0/1/2, JSON and text, --cache-dir, --script."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cann_config.app.cli import main

DATA = Path(__file__).resolve().parents[2] / "data"
INI = DATA / "ini"
ENV = DATA / "env"


@pytest.fixture(autouse=True)
def _quiet_environment(monkeypatch, tmp_path):
    # Without --env-file the command reads this process's environment: make it a known one.
    for name in ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO",
                 "ACL_OP_COMPILER_CACHE_MODE", "ACL_OP_COMPILER_CACHE_DIR", "ASCEND_WORK_PATH", "GE_USE_STATIC_MEMORY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def run(capsys, *args):
    code = main(["diagnose", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_inputs_exit_0_with_json(capsys):
    code, out, err = run(capsys, "--ini", str(INI / "template.ini"), "--env-file", str(ENV / "cache.env"),
                         "--device", "Ascend910B3", "--json", "--lang", "en")
    assert code == 0, out
    data = json.loads(out)
    assert data["effective"]["max_op_cache_size"] == {
        "value": 500, "source": "op_cache.ini", "file": str(INI / "template.ini"), "line": 6,
        "variable": "max_op_cache_size", "detail": data["effective"]["max_op_cache_size"]["detail"]}
    assert data["effective"]["op_compiler_cache_dir"]["value"] == "/data/ascend_cache"
    assert data["effective"]["op_compiler_cache_mode"]["source"] == "env"  # ACL_* set: read as torch_npu
    assert data["device"]["soc_version"] == "Ascend910B3"
    assert all(f["severity"] != "error" for f in data["findings"])


def test_error_findings_exit_1(capsys):
    code, out, _ = run(capsys, "--ini", str(INI / "foreign_section_before.ini"), "--lang", "en")
    assert code == 1
    assert "cache-ini-foreign-section" in out and f"{INI / 'foreign_section_before.ini'}:6" in out


def test_the_classic_ignored_setting_is_explained(capsys, tmp_path):
    env = tmp_path / "job.env"
    env.write_text("export ASCEND_MAX_OP_CACHE_SIZE=2000\n")
    code, out, _ = run(capsys, "--ini", str(INI / "template_docs.ini"), "--env-file", str(env), "--json")
    data = json.loads(out)
    assert code == 1
    assert data["effective"]["max_op_cache_size"]["value"] == 2000
    assert data["effective"]["max_op_cache_size"]["source"] == "env"
    found = {f["code"] for f in data["findings"]}
    assert {"cache-ini-missing-versions", "cache-ini-values-ignored"} <= found


@pytest.mark.parametrize("suffix", ["", "kernel_cache"])
def test_cache_dir_base_or_kernel_cache(capsys, tmp_path, suffix):
    kc = tmp_path / "c" / "kernel_cache"
    kc.mkdir(parents=True)
    (kc / "op_cache.ini").write_bytes((INI / "ageing_off.ini").read_bytes())
    given = kc if suffix else tmp_path / "c"
    code, out, _ = run(capsys, "--cache-dir", str(given), "--json")
    data = json.loads(out)
    assert code == 0
    assert data["op_cache_ini"]["path"] == str(kc / "op_cache.ini")
    assert data["effective"]["max_op_cache_size"]["value"] == -1


def test_script_option(capsys, tmp_path):
    script = tmp_path / "train.py"
    script.write_text('import npu_device as npu\nnpu.global_options().op_compiler_cache_mode = "disable"\n')
    code, out, _ = run(capsys, "--script", str(script), "--json")
    data = json.loads(out)
    assert code == 0
    assert data["framework"] == "tf2"
    assert data["effective"]["op_compiler_cache_mode"] == {
        "value": "disable", "source": "script", "file": str(script), "line": 2,
        "detail": data["effective"]["op_compiler_cache_mode"]["detail"]}


def test_text_output_in_chinese(capsys):
    code, out, _ = run(capsys, "--ini", str(INI / "duplicate_keys.ini"), "--framework", "ge", "--lang", "zh_CN")
    assert code == 0
    assert "生效值" in out and "CANN 使用最后一个" in out and "Ascend Graph" in out


@pytest.mark.parametrize("args, needle", [
    (["--ini", "{tmp}"], "is a directory"),
    (["--ini", "{tmp}/missing.ini"], "cannot read"),
    (["--env-file", "{tmp}/missing.env"], "cannot read"),
    (["--device", "Pentium4"], "--device"),
    (["--framework", "mxnet"], "invalid choice"),
    (["--ini", "{binary}"], "NUL byte"),
])
def test_unusable_input_exits_2_with_one_line(capsys, tmp_path, args, needle):
    binary = tmp_path / "junk.ini"
    binary.write_bytes(b"\x7fELF\x00\x00")
    args = [a.format(tmp=tmp_path, binary=binary) for a in args]
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("cann-config: ") and needle in err


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_bytes_that_are_not_utf8_print_under_a_strict_utf8_locale(tmp_path, fmt):
    """An env file value with a byte that is not UTF-8 (kept as a lone surrogate) used to end in
    a UnicodeEncodeError traceback on a UTF-8 terminal; JSON stays valid. A finding's message is
    text for people, in JSON too: the byte shows as U+FFFD there, as on the terminal."""
    import os
    import subprocess
    import sys

    env_file = tmp_path / "job.env"
    env_file.write_bytes(b"export ACL_OP_COMPILER_CACHE_MODE=enable\x9b31m\n")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "HOME": str(tmp_path)}
    args = [sys.executable, "-m", "cann_config.app", "diagnose", "--env-file", str(env_file), "--lang", "en"]
    result = subprocess.run(args + (["--json"] if fmt == "json" else []), capture_output=True,
                            cwd=Path(__file__).resolve().parents[3], env=env, timeout=60)
    assert result.returncode == 0 and result.stderr == b""
    out = result.stdout.decode("utf-8")  # strict: valid UTF-8 all the way
    if fmt == "json":
        (mode,) = [f for f in json.loads(out)["findings"] if f["code"] == "cache-env-mode-invalid"]
        assert "enable\ufffd31m" in mode["message"]
    else:
        assert "enable\ufffd31m" in out and "\x9b" not in out


def test_version_lines_against_this_hosts_cann_but_not_for_an_env_file(capsys, tmp_path, monkeypatch):
    from tests.app.support.test_diagnosis import fake_toolkit, where_cann_reads

    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", str(fake_toolkit(tmp_path, "8.3.0")))
    monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    code, out, _ = run(capsys, "--ini", str(where_cann_reads(tmp_path, monkeypatch, INI / "template.ini")), "--json")
    assert code == 0
    assert [f["line"] for f in json.loads(out)["findings"] if f["code"] == "cache-ini-version-differs"] == [3, 4]
    code, out, _ = run(capsys, "--ini", str(INI / "template.ini"), "--env-file", str(ENV / "cache.env"), "--json")
    assert "cache-ini-version-differs" not in [f["code"] for f in json.loads(out)["findings"]]


# ---------------------------------------------------------------------------------------------
# The `diagnose --json` contract (docs/architecture.md#json-output) over every fixture
# ---------------------------------------------------------------------------------------------

INI_FIXTURES = sorted(INI.rglob("*.ini"))
ENV_FIXTURES = sorted(p for p in ENV.iterdir() if p.is_file())
CACHE_OPTIONS = ("max_op_cache_size", "remain_cache_size_ratio", "op_compiler_cache_mode", "op_compiler_cache_dir")


def assert_design_contract(data, code):
    """{"device", "effective", "findings"} at least (more keys are additions); every finding has
    severity/code/message/file/line; exit 1 exactly when a finding is an error."""
    assert {"device", "effective", "findings"} <= set(data)
    assert {"soc_version", "series", "source", "npus", "notes"} <= set(data["device"])
    assert set(CACHE_OPTIONS) <= set(data["effective"])
    for oid, eff in data["effective"].items():
        assert {"value", "source", "file", "line"} <= set(eff), oid
        assert eff["source"] in ("op_cache.ini", "env", "default", "profile", "script"), (oid, eff["source"])
    for finding in data["findings"]:
        assert {"severity", "code", "message", "file", "line"} <= set(finding), finding
        assert finding["severity"] in ("error", "warning", "info")
        assert isinstance(finding["code"], str) and finding["code"]
        assert isinstance(finding["message"], str) and finding["message"].strip()
        assert finding["file"] is None or isinstance(finding["file"], str)
        assert finding["line"] is None or (isinstance(finding["line"], int) and finding["line"] >= 1
                                           and finding["file"] is not None)
    assert code == (1 if any(f["severity"] == "error" for f in data["findings"]) else 0)


@pytest.mark.parametrize("ini", INI_FIXTURES, ids=lambda p: str(p.relative_to(INI)))
@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_every_ini_fixture_gives_the_agreed_json(capsys, ini, lang):
    code, out, err = run(capsys, "--ini", str(ini), "--json", "--lang", lang)
    assert err == ""
    assert_design_contract(json.loads(out), code)


@pytest.mark.parametrize("env_file", ENV_FIXTURES, ids=lambda p: p.name)
def test_every_env_fixture_gives_the_agreed_json(capsys, env_file):
    code, out, _ = run(capsys, "--env-file", str(env_file), "--json")
    assert_design_contract(json.loads(out), code)
    code, out, _ = run(capsys, "--env-file", str(env_file), "--ini", str(INI / "crlf.ini"), "--json")
    assert_design_contract(json.loads(out), code)


def test_the_report_path_keeps_the_agreed_json(capsys, tmp_path):
    """`--report` (without --bundle) prints the report's JSON: the same contract, plus additions."""
    for ini in (INI / "template.ini", INI / "foreign_section_before.ini"):
        code, out, _ = run(capsys, "--ini", str(ini), "--report", str(tmp_path / "r.md"), "--json")
        assert_design_contract(json.loads(out), code)


def test_the_fixtures_cover_errors_warnings_and_infos(capsys):
    """The contract test above would prove little over fixtures without findings."""
    seen = set()
    for ini in INI_FIXTURES:
        _, out, _ = run(capsys, "--ini", str(ini), "--json")
        seen |= {(f["severity"], f["line"] is not None) for f in json.loads(out)["findings"]}
    assert {("error", True), ("warning", True), ("info", True)} <= seen


def test_script_set_option_run_time_dir_and_ge_use_static_memory(capsys, tmp_path):
    """The patterns of real scripts through the command: set_option built key by key in a helper,
    a cache dir known only at run time, GE_USE_STATIC_MEMORY alone, a constant through a variable."""
    home = tmp_path / "home" / "atc_data" / "kernel_cache"
    home.mkdir(parents=True)
    (home / "op_cache.ini").write_bytes((INI / "template.ini").read_bytes())
    script = tmp_path / "train.py"
    script.write_text(
        "import os\n"
        "import torch\n"
        "import torch_npu\n"
        "\n"
        "def set_npu_options(local_rank):\n"
        "    os.environ['ASCEND_CACHE_PATH'] = f'/tmp/ascend_cache_{local_rank}'\n"
        "    os.environ['GE_USE_STATIC_MEMORY'] = '1'\n"
        "    mode = 'force'\n"
        "    option = {}\n"
        "    option['ACL_OP_COMPILER_CACHE_MODE'] = mode\n"
        "    torch.npu.set_option(option)\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    set_npu_options(int(os.environ['LOCAL_RANK']))\n")
    code, out, _ = run(capsys, "--script", str(script), "--json", "--lang", "en")
    data = json.loads(out)
    assert code == 0
    assert data["framework"] == "pytorch"
    eff = data["effective"]
    assert (eff["op_compiler_cache_mode"]["value"], eff["op_compiler_cache_mode"]["line"]) == ("force", 11)
    assert {k: eff["op_compiler_cache_dir"][k] for k in ("value", "source", "file", "line", "runtime")} == {
        "value": None, "source": "script", "file": str(script), "line": 6, "runtime": True}
    assert "known only at run time" in eff["op_compiler_cache_dir"]["detail"]
    assert data["op_cache_ini"]["found"] is False  # the default place is not the job's
    assert "cache-dir-runtime" in [f["code"] for f in data["findings"]]
    # torch_npu has no static_memory_policy: the variable is reported where it is set, not merged.
    legacy = next(f for f in data["findings"] if f["code"] == "cache-env-static-memory-legacy")
    assert (legacy["file"], legacy["line"]) == (str(script), 7)
    code, out, _ = run(capsys, "--script", str(script), "--lang", "zh_CN")
    assert "（运行时确定）" in out and "只有运行时才能确定" in out and "atc_data" not in out


def test_script_ge_use_static_memory_for_tensorflow(capsys, tmp_path):
    script = tmp_path / "run_pretraining.py"
    script.write_text("import os\nos.environ['GE_USE_STATIC_MEMORY'] = '1'\n"
                      "from npu_bridge.npu_init import *\nrun_config = NPURunConfig(save_checkpoints_steps=100)\n")
    code, out, _ = run(capsys, "--script", str(script), "--lang", "en")
    assert code == 0
    line = next(x for x in out.splitlines() if x.strip().startswith("static_memory_policy"))
    assert " 2 " in line and f"{script}:2" in line and "default" not in line


@pytest.mark.parametrize("framework,said", [("vllm-ascend", True), ("pytorch", False), (None, False)])
def test_the_vllm_sleep_note_is_said_for_vllm_ascend_only(capsys, monkeypatch, framework, said):
    """The catalog note on expandable segments and vLLM-Ascend's sleep mode is scoped to
    vllm-ascend (its `frameworks`): not said for PyTorch, nor when no framework is given."""
    monkeypatch.setenv("PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True")
    args = ["--json", "--lang", "en", "--device", "Ascend910B3"] + (["--framework", framework] if framework else [])
    code, out, _ = run(capsys, *args)
    data = json.loads(out)
    assert data["effective"]["npu_alloc_expandable_segments"]["value"] is True
    codes = [f["code"] for f in data["findings"]]
    assert ("npu-alloc-expandable-vllm-sleep" in codes) is said, codes


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_a_value_the_script_sets_is_labelled_script_known_or_at_run_time(capsys, tmp_path, lang):
    # fixes2 item 2: os.environ.setdefault (a known value) and a run-time assignment of the same
    # script both say "script", in JSON and in the text, in both languages; "profile" stays a profile's.
    script = tmp_path / "train.py"
    script.write_text('import os\nos.environ.setdefault("ASCEND_REMAIN_CACHE_SIZE_RATIO", "60")\nimport random\n'
                      'os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = str(random.randint(1, 9))\n', encoding="utf-8")
    _, out, _ = run(capsys, "--script", str(script), "--json", "--lang", lang)
    effective = json.loads(out)["effective"]
    ratio, size = effective["remain_cache_size_ratio"], effective["max_op_cache_size"]
    assert (ratio["value"], ratio["source"], ratio["file"], ratio["line"]) == (60, "script", str(script), 2)
    assert (size["runtime"], size["source"], size["line"]) == (True, "script", 4)
    _, text, _ = run(capsys, "--script", str(script), "--lang", lang)
    assert f"[script {script}:2]" in text and f"[script {script}:4]" in text
    assert "[profile " not in text
    from cann_config.app.profile import Profile
    from cann_config.app.support.diagnosis import diagnose

    chosen = diagnose(environ={}, profile=Profile(framework="pytorch", options={"remain_cache_size_ratio": 70}))
    assert chosen.effective["remain_cache_size_ratio"].source == "profile"
