"""`cann-config options [ID ...]`: every name an option has, series by product name, in both
languages; an unknown id is one line naming close matches (exit 2); `--json` keeps its keys."""

from __future__ import annotations

import json

import pytest

from cann_config.app.catalog import Targets, load_catalog
from cann_config.app.cli import main
from cann_config.app.device.table import load_device_table


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_one_option_shows_its_variable_ini_key_and_special_value_once(capsys):
    code, out, _ = run(capsys, "options", "max_op_cache_size", "--lang", "en")
    assert code == 0
    assert out.startswith("max_op_cache_size  —  ") and "remain_cache_size_ratio" not in out
    assert "environment variable" in out and "ASCEND_MAX_OP_CACHE_SIZE" in out
    assert "op_cache.ini key ([op_compiler_cache])  max_op_cache_size" in out
    special = next(line for line in out.splitlines() if line.strip().startswith("-1"))
    assert special.split().count("-1") == 1 and "Turns ageing off" in special


def test_every_target_of_every_option_is_named(capsys):
    catalog = load_catalog()
    code, out, _ = run(capsys, "options", "--lang", "en")
    assert code == 0
    for option in catalog.options.values():
        block = out.split(f"\n{option.id}  —  ")[-1] if not out.startswith(option.id) else out
        block = block.split("\n\n")[0]
        t = option.targets
        for name in Targets._fields:
            value = getattr(t, name)
            if not value or name == "env":
                continue
            expected = value.key if name == "parameter_map" else value
            assert expected in block, (option.id, name)
        for variable in t.env.values():
            assert variable in block, (option.id, variable)
        if option.legacy_env:
            assert option.legacy_env in block


def test_names_per_framework_and_file(capsys):
    out = run(capsys, "options", "op_compiler_cache_dir", "static_memory_policy", "--lang", "en")[1]
    assert 'custom_op.parameter_map["op_compiler_cache_dir"].s' in out
    assert "npu.global_options().op_compiler_cache_dir" in out
    assert "GE option (ge.Session, MindSpore ge_options)" in out and "ge.op_compiler_cache_dir" in out
    assert "environment variable (pytorch, vllm-ascend)" in out and "environment variable (other frameworks)" in out
    assert "MemoryConfig(static_memory_policy=...)" in out and "GE_USE_STATIC_MEMORY" in out
    # the order asked for
    assert out.index("op_compiler_cache_dir  —") < out.index("static_memory_policy  —")


@pytest.mark.parametrize("lang, key", [("en", "en"), ("zh_CN", "zh")])
def test_series_are_product_names(capsys, lang, key):
    out = run(capsys, "options", "variable_use_1g_huge_page", "--lang", lang)[1]
    table = load_device_table()
    for sid in ("ascend950", "atlas-a3", "atlas-a2"):
        assert table.series[sid].name[key] in out
    assert "atlas-a3" not in out and "ascend950," not in out


def test_chinese_labels(capsys):
    out = run(capsys, "options", "max_op_cache_size", "--lang", "zh_CN")[1]
    assert "各处的名称：" in out and "环境变量" in out and "特殊值：" in out and "关闭老化" in out
    assert "Names:" not in out


@pytest.mark.parametrize("lang, words", [("en", "unknown option max_op_cache; did you mean: max_op_cache_size?"),
                                         ("zh_CN", "未知选项 max_op_cache；您是否要找：max_op_cache_size？")])
def test_unknown_id_is_one_line_with_close_matches(capsys, lang, words):
    code, out, err = run(capsys, "options", "max_op_cache", "--lang", lang)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and words in err


def test_unknown_id_without_a_close_match_lists_every_id(capsys):
    code, _, err = run(capsys, "options", "zzz", "--lang", "en")
    assert code == 2 and err.count("\n") == 1
    assert all(oid in err for oid in load_catalog().options)


def test_json_with_ids_keeps_the_document_and_adds_series_names(capsys):
    code, out, _ = run(capsys, "options", "--json")
    full = json.loads(out)
    code, out, _ = run(capsys, "options", "--json", "variable_use_1g_huge_page")
    data = json.loads(out)
    assert code == 0 and list(data["options"]) == ["variable_use_1g_huge_page"]
    assert data["frameworks"] == full["frameworks"] and data["format"] == "cann-config-catalog"
    option = data["options"]["variable_use_1g_huge_page"]
    assert option["series"] == ["ascend950", "atlas-a3", "atlas-a2"]
    assert option["series_names"][2] == {"id": "atlas-a2", "en": "Atlas A2 training/inference series",
                                         "zh": "Atlas A2 训练系列产品/Atlas A2 推理系列产品"}
    assert full["options"]["max_op_cache_size"]["series_names"] is None


def test_no_value_text_repeats_its_value():
    """The listing prints each value before its text: a text that starts with the value again
    ("-1  -1 turns ageing off", "BalanceMode  BalanceMode (...)") says it twice."""
    catalog = load_catalog()
    for oid, value in (("max_op_cache_size", -1), ("memory_optimization_policy", "BalanceMode"),
                       ("memory_optimization_policy", "MemoryPriority")):
        doc = catalog.options[oid].value_doc(value)
        assert doc is not None
        for lang in ("en", "zh"):
            assert not doc.text[lang].startswith(str(value)), (oid, value, lang)
