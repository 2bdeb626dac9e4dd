"""What a save of op_cache.ini writes (app/opcache/ini_save.py): both sizes, so that CANN uses them."""

from __future__ import annotations

import pytest

from cann_config.app.opcache.ini import parse_op_cache_ini
from cann_config.app.opcache.ini_save import IniEdit, plan_ini_edit

HEAD = "[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n"
INI_OK = "max_op_cache_size=800\nremain_cache_size_ratio=70\n"


def ini(body: str | None, head: str = HEAD):
    if body is None:
        return None
    return parse_op_cache_ini((head + body).encode(), "op_cache.ini")


# -- what a save writes (plan_ini_edit) --------------------------------------------------------


def test_a_save_of_one_size_fills_the_missing_one_with_the_value_cann_uses_now():
    # The file lacks the ratio, so CANN ignores its max and takes both from the environment.
    edit = plan_ini_edit(ini("max_op_cache_size=800\n"), {"max_op_cache_size": 1000},
                         {"ASCEND_REMAIN_CACHE_SIZE_RATIO": "70"}, file="op_cache.ini")
    assert edit.changes == {"max_op_cache_size": 1000, "remain_cache_size_ratio": 70}
    [filled] = edit.findings
    assert filled.code == "cache-ini-size-filled" and filled.severity == "warning" and filled.file == "op_cache.ini"
    assert "remain_cache_size_ratio=70" in filled.message("en") and "env" in filled.message("en")
    # Without the variable: CANN's default.
    edit = plan_ini_edit(ini("max_op_cache_size=800\n"), {"max_op_cache_size": 1000}, {})
    assert edit.changes == {"max_op_cache_size": 1000, "remain_cache_size_ratio": 50}
    assert "default" in edit.findings[0].message("en")


@pytest.mark.parametrize("other", ["", "remain_cache_size_ratio=0\n", "remain_cache_size_ratio=abc\n",
                                   "remain_cache_size_ratio=101\n"])
def test_a_missing_or_invalid_other_size_is_filled(other):
    edit = plan_ini_edit(ini(other), {"max_op_cache_size": 900}, {"ASCEND_REMAIN_CACHE_SIZE_RATIO": "60"})
    assert edit.changes == {"max_op_cache_size": 900, "remain_cache_size_ratio": 60}
    assert [f.code for f in edit.findings] == ["cache-ini-size-filled"]


def test_a_valid_other_size_in_the_file_stays_and_nothing_is_said():
    edit = plan_ini_edit(ini(INI_OK), {"remain_cache_size_ratio": 90}, {"ASCEND_MAX_OP_CACHE_SIZE": "100"})
    assert edit.changes == {"remain_cache_size_ratio": 90} and edit.findings == []


def test_an_existing_file_is_left_alone_without_a_choice():
    assert plan_ini_edit(ini("max_op_cache_size=800\n"), {}, {}) == IniEdit({}, [])


def test_a_new_file_gets_both_sizes():
    edit = plan_ini_edit(None, {}, {"ASCEND_MAX_OP_CACHE_SIZE": "2000"})
    assert edit.changes == {"max_op_cache_size": 2000, "remain_cache_size_ratio": 50} and edit.findings == []
    edit = plan_ini_edit(None, {"max_op_cache_size": 700}, {})
    assert edit.changes == {"max_op_cache_size": 700, "remain_cache_size_ratio": 50}
    assert [f.code for f in edit.findings] == ["cache-ini-size-filled"]


def test_a_file_cann_ignores_counts_as_lacking_both():
    # Without the version lines CANN 8.5+ ignores the file (docs/cann/op-cache.md#version-lines).
    no_versions = ini("max_op_cache_size=800\nremain_cache_size_ratio=70\n", head="[op_compiler_cache]\n")
    edit = plan_ini_edit(no_versions, {"max_op_cache_size": 900}, {})
    assert edit.changes == {"max_op_cache_size": 900, "remain_cache_size_ratio": 50}
