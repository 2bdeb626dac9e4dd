"""Sizes as people type them (app/sizes.py), through `cann-config export --set` and the catalog's
Option.parse_typed that the wizard's size box calls too; and the warning for a limit so small that CANN
cleans at every start (docs/cann/op-cache.md#tiny-limit)."""

from __future__ import annotations

import json

import pytest

from cann_config.app.catalog import load_catalog
from cann_config.app.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(("typed", "mb"), [("2 GB", 2048), ("2G", 2048), ("2gb", 2048), ("2048 MB", 2048),
                                           ("1.5 GiB", 1536), ("2048", 2048), (" 4096 ", 4096), ("1 TB", 1048576),
                                           ("2048M", 2048), ("-1", -1), ("0.5 GB", 512)])
def test_set_takes_a_size_as_people_type_it(capsys, typed, mb):
    code, out, err = run(capsys, "export", "profile", "--set", f"max_op_cache_size={typed}", "--lang", "en")
    assert code == 0, err
    assert json.loads(out)["options"]["max_op_cache_size"] == mb


@pytest.mark.parametrize(("typed", "words"), [
    ("abc", "takes a size in MB (a whole number, e.g. 2048, or with a unit: 2 GB"),
    ("2 XB", "'XB' in '2 XB' is not a unit"),
    ("1.5 MB", "takes a whole number of MB; '1.5 MB' is 1.5 MB"),
    ("100 KB", "takes a whole number of MB; '100 KB' is 0.0977 MB"),
    ("2 GB 3", "takes a size in MB"),
    ("0 GB", "must be at least 1"),
])
def test_set_refuses_in_words_and_names_the_unit(capsys, typed, words):
    code, out, err = run(capsys, "export", "profile", "--set", f"max_op_cache_size={typed}", "--lang", "en")
    assert code == 2 and out == ""
    assert words in err
    assert len(err.strip().splitlines()) == 1


def test_the_refusal_is_said_in_chinese_too(capsys):
    code, _out, err = run(capsys, "--lang", "zh_CN", "export", "profile", "--set", "max_op_cache_size=2 XB")
    assert code == 2
    assert "不是单位" in err and "MB" in err


def test_options_that_are_not_sizes_keep_their_plain_numbers(capsys):
    catalog = load_catalog()
    assert catalog.option("max_op_cache_size").takes_sizes
    assert not catalog.option("remain_cache_size_ratio").takes_sizes  # a percentage
    code, _out, err = run(capsys, "export", "profile", "--set", "remain_cache_size_ratio=50 MB", "--lang", "en")
    assert code == 2 and "takes an integer" in err
    # torch_npu's max_split_size_mb counts in MB as well: "1 GB" is 1024
    split = catalog.option("npu_alloc_max_split_size_mb")
    assert split.parse_typed("1 GB") == 1024 and split.parse_typed("unset") == ""
    # What torch_npu itself reads stays strict: "1GB" in PYTORCH_NPU_ALLOC_CONF is no number there.
    with pytest.raises(ValueError):
        split.parse("1GB")


def test_a_tiny_limit_is_a_warning_with_the_threshold_and_why(capsys):
    code, _out, err = run(capsys, "export", "env-bash", "--set", "max_op_cache_size=2 MB", "--lang", "en")
    assert code == 0
    assert "warning: A limit below 64 MB" in err and "at every compiler start" in err
    for fine in ("64", "500", "-1"):
        code, _out, err = run(capsys, "export", "env-bash", "--set", f"max_op_cache_size={fine}", "--lang", "en")
        assert code == 0 and "A limit below 64 MB" not in err, fine


def test_diagnose_warns_of_a_tiny_limit_from_the_environment(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("ASCEND_CACHE_PATH", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    env = tmp_path / "job.env"
    env.write_text("export ASCEND_MAX_OP_CACHE_SIZE=2\n")
    code, out, _err = run(capsys, "diagnose", "--env-file", str(env), "--json", "--lang", "en")
    codes = [f["code"] for f in json.loads(out)["findings"]]
    assert "cache-limit-tiny" in codes
    assert code == 0
