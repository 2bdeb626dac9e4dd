"""MindSpore 2.10's memory settings (app/mindspore_memory.py): the verdicts recorded by running
MindSpore's own validators (tests/tools/record_mindspore_verdicts.py) replayed through
`diagnose --framework mindspore --script`, the script shapes a reader must follow, the
`mindspore` export, and MS_ALLOC_CONF."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from cann_config.app.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "mindspore"
VERDICTS = json.loads((DATA / "verdicts.json").read_text(encoding="utf-8"))
CASES = VERDICTS["cases"]


@pytest.fixture(autouse=True)
def _quiet_environment(monkeypatch, tmp_path):
    for name in ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO",
                 "MS_ALLOC_CONF", "PYTORCH_NPU_ALLOC_CONF", "ACL_OP_COMPILER_CACHE_MODE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def diagnose_script(capsys, tmp_path, body, *extra):
    script = tmp_path / "train.py"
    script.write_text(body, encoding="utf-8")
    code = main(["diagnose", "--framework", "mindspore", "--script", str(script), "--json", "--lang", "en", *extra])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    return code, json.loads(out)


def errors(data):
    return [f for f in data["findings"] if f["severity"] == "error"]


def test_the_table_was_recorded_from_mindspore_2_10():
    assert VERDICTS["origin"].startswith("mindspore 2.10.")
    assert len(CASES) > 150
    assert {c["accepted"] for c in CASES} == {True, False}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_diagnose_gives_mindspores_verdict(capsys, tmp_path, case):
    code, data = diagnose_script(capsys, tmp_path, "import mindspore as ms\n" + case["code"] + "\n")
    if case["accepted"]:
        assert code == 0 and not errors(data), data["findings"]
    else:
        assert code == 1
        found = errors(data)
        assert len(found) == 1 and found[0]["code"].startswith("mindspore-refused-"), data["findings"]
        # MindSpore's own message, word for word, and the line of the call that raises
        assert case["message"] in found[0]["message"]
        assert found[0]["line"] == len(case["code"].splitlines()) + 1


def test_deprecations_are_warnings_with_the_replacement(capsys, tmp_path):
    code, data = diagnose_script(capsys, tmp_path, 'import mindspore as ms\nms.set_context(max_device_memory="28GB")\n')
    assert code == 0
    found = {f["code"]: f for f in data["findings"]}
    assert found["mindspore-deprecated"]["severity"] == "warning"
    assert "runtime.set_memory(max_size=...)" in found["mindspore-deprecated"]["message"]
    assert data["effective"]["max_device_memory"]["value"] == "28GB"


SHAPES = {
    "variables": 'import mindspore as ms\nlimit = "28" + "GB"\nlevel = "O1"\n'
                 'ms.runtime.set_memory(max_size=limit, optimize_level=level)\n',
    "from-import": 'from mindspore import runtime\nruntime.set_memory(max_size="30GB")\n',
    "dict-before": 'import mindspore\nge = {}\nge["ge.exec.staticMemoryPolicy"] = "2"\n'
                   'cfg = {"atomic_clean_policy": 0}\ncfg["ge_options"] = {"global": ge}\n'
                   'mindspore.set_context(ascend_config=cfg)\n',
    "main-guard": 'import mindspore as ms\ndef main():\n    ms.runtime.set_memory(max_size="20GB")\n'
                  'if __name__ == "__main__":\n    main()\n',
}


@pytest.mark.parametrize("name", SHAPES)
def test_the_reader_follows_real_scripts(capsys, tmp_path, name):
    code, data = diagnose_script(capsys, tmp_path, SHAPES[name])
    assert code == 0, data["findings"]
    effective = data["effective"]
    if name == "variables":
        assert effective["max_device_memory"]["value"] == "28GB"
        assert effective["memory_optimize_level"]["value"] == "O1"
    if name == "dict-before":
        assert effective["atomic_clean_policy"]["value"] == 0
        assert any(f["code"] == "mindspore-ge-options-ge-path" for f in data["findings"])


def test_a_dict_built_before_the_call_is_checked(capsys, tmp_path):
    body = ('import mindspore as ms\nopts = {"ge.exec.staticMemoryPolicy": 2}\n'
            'ms.set_context(ascend_config={"ge_options": {"global": opts}})\n')
    code, data = diagnose_script(capsys, tmp_path, body)
    assert code == 1
    assert errors(data)[0]["code"] == "mindspore-refused-type" and errors(data)[0]["line"] == 3


def test_a_value_known_only_at_run_time_is_named_not_guessed(capsys, tmp_path):
    body = 'import sys\nimport mindspore as ms\nms.runtime.set_memory(max_size=sys.argv[1])\n'
    code, data = diagnose_script(capsys, tmp_path, body)
    assert code == 0
    assert any(f["code"] == "mindspore-value-unknown" for f in data["findings"])


def test_atomic_clean_policy_true_passes_but_is_flagged(capsys, tmp_path):
    code, data = diagnose_script(capsys, tmp_path,
                                 'import mindspore as ms\nms.set_context(ascend_config={"atomic_clean_policy": True})\n')
    assert code == 0
    assert {f["code"]: f["severity"] for f in data["findings"]}["mindspore-atomic-not-int"] == "warning"


def test_ms_alloc_conf_unknown_keys_are_warned(capsys, tmp_path):
    env = tmp_path / "ms.env"
    env.write_text("export MS_ALLOC_CONF='enable_vmm:False;enable_vmn:True'\n")
    code = main(["diagnose", "--framework", "mindspore", "--env-file", str(env), "--json", "--lang", "en"])
    data = json.loads(capsys.readouterr()[0])
    assert code == 0
    found = [f for f in data["findings"] if f["code"] == "mindspore-alloc-unknown-key"]
    assert len(found) == 1 and "'enable_vmn'" in found[0]["message"] and found[0]["line"] == 1
    assert data["effective"]["ms_alloc_enable_vmm"]["value"] == "False"


def export(capsys, *args):
    code = main(["export", "mindspore", "--lang", "en", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_export_runs_as_pasted_and_reads_back_clean(capsys, tmp_path):
    code, out, _ = export(capsys, "--set", "max_device_memory=28GB", "--set", "memory_optimize_level=O1",
                          "--set", "atomic_clean_policy=0", "--set", "static_memory_policy=3",
                          "--set", "ms_alloc_enable_vmm=False", "--set", "ms_compiler_cache_enable=1")
    assert code == 0
    tree = ast.parse(out)
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                for alias in node.names}
    assert imported == {"os", "mindspore"}  # mindspore and the standard library only
    calls = [ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert calls.count("ms.runtime.set_memory") == 1
    memory = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "ms.runtime.set_memory")
    assert {k.arg: ast.literal_eval(k.value) for k in memory.keywords} == {"max_size": "28GB", "optimize_level": "O1"}
    assert '"atomic_clean_policy": 0,' in out  # an int, not "0" nor True
    assert '"ge.exec.staticMemoryPolicy": "3",' in out  # GE values are strings
    assert 'os.environ["MS_ALLOC_CONF"] = "enable_vmm:False"' in out
    assert 'os.environ["MS_COMPILER_CACHE_ENABLE"] = "1"' in out
    assert out.index('os.environ["MS_ALLOC_CONF"]') < out.index("import mindspore as ms")
    snippet = tmp_path / "snippet.py"
    snippet.write_text(out, encoding="utf-8")
    main(["diagnose", "--framework", "mindspore", "--script", str(snippet), "--json"])
    data = json.loads(capsys.readouterr()[0])
    assert not errors(data) and data["effective"]["max_device_memory"]["value"] == "28GB"


def test_export_with_set_context_uses_its_names_and_rules(capsys):
    code, out, _ = export(capsys, "--set", "mindspore_memory_api=set_context", "--set", "max_device_memory=28GB",
                          "--changed-only")
    assert code == 0
    call = next(n for n in ast.walk(ast.parse(out)) if isinstance(n, ast.Call) and ast.unparse(n.func) == "ms.set_context")
    assert {k.arg: ast.literal_eval(k.value) for k in call.keywords} == {"max_device_memory": "28GB"}
    assert "ms.runtime.set_memory(" not in out
    # set_memory takes increase_size="0.5GB"; set_context's mempool_block_size refuses it
    code, _, _ = export(capsys, "--set", "mempool_block_size=0.5GB")
    assert code == 0
    code, out, err = export(capsys, "--set", "mindspore_memory_api=set_context", "--set", "mempool_block_size=0.5GB")
    assert code == 1 and "1GB" in err


def test_set_takes_mindsporess_spelling_and_refuses_the_rest(capsys):
    code, _, err = export(capsys, "--set", "max_device_memory=28G")
    assert code == 2 and "MindSpore" in err and "28G" in err
    code, _, err = export(capsys, "--set", "memory_optimize_level=o1")
    assert code == 2


def test_options_json_lists_the_framework(capsys):
    assert main(["options", "--json"]) == 0
    data = json.loads(capsys.readouterr()[0])
    framework = data["frameworks"]["mindspore"]
    assert "mindspore" in framework["exports"] and framework["defaults"]["atomic_clean_policy"] == 1
    for oid in ("max_device_memory", "memory_optimize_level", "atomic_clean_policy", "ms_alloc_enable_vmm"):
        assert oid in framework["options"]
    assert data["options"]["static_memory_policy"]["targets"]["ge"] == "ge.exec.staticMemoryPolicy"


def test_a_script_that_never_names_mindspore_is_not_read_again(capsys, tmp_path, monkeypatch):
    """Its calls are known by qualified names reached through an import of the package, so a
    torch script has none: the MindSpore reader is not run (it parsed every script a second time,
    tests/bench/bench_script.py). A set_context of another package is not MindSpore's."""
    from cann_config.app.io import mindspore_script

    def refuse(*_args):
        raise AssertionError("the MindSpore reader ran")

    monkeypatch.setattr(mindspore_script, "read_mindspore_script", refuse)
    body = 'import torch_npu\nfrom other import set_context\nset_context(max_device_memory="1GB")\n'
    code, data = diagnose_script(capsys, tmp_path, body)
    assert code == 0 and not [f for f in data["findings"] if f["code"].startswith("mindspore-")]
    with pytest.raises(AssertionError, match="MindSpore reader ran"):
        diagnose_script(capsys, tmp_path, "import mindspore as ms\n" + body)
