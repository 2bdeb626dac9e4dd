"""Scripts are decoded as Python decodes them (BOM, PEP 263 cookie), through `diagnose --script`
and the wizard's reader; lone surrogates in a script's literals never raise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cann_config.app.cli import main
from cann_config.app.errors import InputError
from cann_config.app.io.importers import import_script_file
from cann_config.app.io.pysource import decode_python_source

ENCODINGS = Path(__file__).resolve().parents[2] / "data" / "scripts" / "encodings"


@pytest.fixture(autouse=True)
def _quiet_environment(monkeypatch, tmp_path):
    for name in ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO",
                 "ACL_OP_COMPILER_CACHE_MODE", "ACL_OP_COMPILER_CACHE_DIR", "ASCEND_WORK_PATH",
                 "PYTORCH_NPU_ALLOC_CONF", "PYTORCH_ALLOC_CONF"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def diagnose_json(capsys, script: Path) -> tuple[int, dict, str]:
    code = main(["diagnose", "--script", str(script), "--json", "--lang", "en"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out else {}), err


def python_accepts(path: Path) -> bool:
    """The oracle: does CPython itself compile these bytes?"""
    try:
        compile(path.read_bytes(), str(path), "exec")
    except SyntaxError:
        return False
    return True


def test_a_utf8_bom_script_is_read(capsys):
    code, data, err = diagnose_json(capsys, ENCODINGS / "bom_utf8.py")
    assert code == 0, err
    assert data["effective"]["max_op_cache_size"]["value"] == 1000
    assert not [f for f in data["findings"] if f["code"] == "import-script-encoding"]


def test_a_gbk_script_gives_the_path_python_sees_and_says_its_encoding(capsys):
    code, data, err = diagnose_json(capsys, ENCODINGS / "gbk_cookie.py")
    assert code == 0, err
    assert data["effective"]["op_compiler_cache_dir"]["value"] == "/data/缓存"
    (note,) = [f for f in data["findings"] if f["code"] == "import-script-encoding"]
    assert note["severity"] == "info" and note["line"] == 1 and "gbk" in note["message"]


def test_a_cookie_on_line_two_after_a_shebang_counts(capsys):
    code, data, err = diagnose_json(capsys, ENCODINGS / "latin1_line2.py")
    assert code == 0, err
    assert data["effective"]["op_compiler_cache_dir"]["value"] == "/data/café"
    (note,) = [f for f in data["findings"] if f["code"] == "import-script-encoding"]
    assert note["line"] == 2 and "iso8859-1" in note["message"]


@pytest.mark.parametrize(("name", "line"), [("bom_with_gbk_cookie.py", 1), ("bad_utf8_line3.py", 3),
                                            ("unknown_encoding.py", 1)])
def test_a_script_python_refuses_is_refused_naming_the_line(capsys, name, line):
    path = ENCODINGS / name
    assert not python_accepts(path)
    code = main(["diagnose", "--script", str(path), "--lang", "en"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and f"{path}:{line}:" in err and "not valid Python" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("name", sorted(p.name for p in ENCODINGS.glob("*.py")))
def test_the_tool_accepts_exactly_the_scripts_python_accepts(name):
    path = ENCODINGS / name
    try:
        import_script_file(path)
        accepted = True
    except InputError:
        accepted = False
    assert accepted == python_accepts(path)


@pytest.mark.parametrize("fmt", ["--json", "--report", "--text"])
def test_lone_surrogates_in_literals_never_raise(capsys, tmp_path, fmt):
    script = ENCODINGS / "surrogates.py"
    argv = ["diagnose", "--script", str(script), "--lang", "en"]
    if fmt == "--json":
        argv.append("--json")
    elif fmt == "--report":
        argv += ["--report", str(tmp_path / "r.md")]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 1, err  # the surrogate values are errors, not a crash
    assert "Traceback" not in err
    if fmt == "--json":
        codes = {f["code"] for f in json.loads(out)["findings"]}
        assert "import-invalid-value" in codes
    if fmt == "--report":
        assert (tmp_path / "r.md").read_text(encoding="utf-8")


_TEMPLATES = (
    'import os\nos.environ["ASCEND_CACHE_PATH"] = {lit}\n',
    'import os\nos.environ["ASCEND_CACHE_PATH"] = {lit}.encode()\n',
    'import os\nimport torch_npu\nos.environ["PYTORCH_NPU_ALLOC_CONF"] = {lit}\n',
    'import torch_npu\ntorch.npu.set_option({{"ACL_OP_COMPILER_CACHE_DIR": {lit}}})\n',
    'from npu_bridge.npu_init import *\nc = NPURunConfig(op_compiler_cache_dir={lit}, '
    'memory_config=MemoryConfig(memory_optimization_policy={lit}))\n',
    'import os\nx = {lit}\nos.environ.setdefault("ASCEND_MAX_OP_CACHE_SIZE", x + {lit})\n',
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(template=st.sampled_from(_TEMPLATES),
       value=st.text(alphabet=st.characters(min_codepoint=0xD7F0, max_codepoint=0xE010) | st.sampled_from("a:,/_1 "),
                     max_size=12))
def test_any_text_with_surrogates_is_diagnosed_without_a_traceback(capsys, tmp_path, template, value):
    script = tmp_path / "s.py"
    script.write_text(template.format(lit=ascii(value)), encoding="ascii")
    for extra in (["--json"], ["--report", str(tmp_path / "r.html")], []):
        code = main(["diagnose", "--script", str(script), "--lang", "zh_CN", *extra])
        out, err = capsys.readouterr()
        assert code in (0, 1), err
        assert "Traceback" not in err


def test_decode_keeps_python_s_own_text():
    data = "# coding: gbk\nx = '缓存'\n".encode("gbk")
    decoded = decode_python_source(data, "s.py")
    assert decoded.text == "# coding: gbk\nx = '缓存'\n"
    assert (decoded.encoding, decoded.declared_line, decoded.bom, decoded.unusual) == ("gbk", 1, False, True)
    plain = decode_python_source(b"\xef\xbb\xbfx = 1\n", "s.py")
    assert (plain.text, plain.bom, plain.unusual) == ("x = 1\n", True, False)
