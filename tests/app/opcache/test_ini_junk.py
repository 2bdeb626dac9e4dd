"""A 1 MB op_cache.ini of junk lines (inside every documented limit) is diagnosed with a bounded
number of findings: each kind listed a few times, then once with its count (issue: hostile input)."""

from __future__ import annotations

import json

import pytest

from cann_config.app.cli import main
from cann_config.app.opcache.ini import GENERIC_READER_MAX_LINES, LINES_LISTED_PER_KIND, MAX_FILE_BYTES
from tests.junkfiles import junk_ini


@pytest.fixture(autouse=True)
def _quiet_environment(monkeypatch, tmp_path):
    for name in ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO",
                 "ACL_OP_COMPILER_CACHE_MODE", "ACL_OP_COMPILER_CACHE_DIR", "ASCEND_WORK_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def test_a_megabyte_of_junk_lines_gives_a_bounded_summary(tmp_path, capsys):
    ini = tmp_path / "op_cache.ini"
    lines = junk_ini(ini)
    assert ini.stat().st_size <= MAX_FILE_BYTES and lines > GENERIC_READER_MAX_LINES
    code = main(["diagnose", "--ini", str(ini), "--json", "--lang", "en"])
    out, err = capsys.readouterr()
    assert code == 1, err  # versions missing while sizes are set: CANN ignores the file
    findings = json.loads(out)["findings"]
    by_code: dict[str, list[dict]] = {}
    for finding in findings:
        by_code.setdefault(finding["code"], []).append(finding)
    summaries = by_code.pop("cache-ini-more-lines")
    assert len(findings) < 100 and len(out) < 100_000
    for code_, listed in by_code.items():
        assert len(listed) <= LINES_LISTED_PER_KIND, code_
    # Every line-level kind past its quota is said once, with a count that adds up.
    counted = {s["message"].split(" findings above")[0].split()[-1]: int(s["message"].split()[0]) for s in summaries}
    assert "cache-ini-no-equals" in counted and "cache-ini-unclosed-section" in counted
    text = ini.read_text(encoding="utf-8").splitlines()
    no_equals = sum(1 for line in text if line in ("x", "garbage line here"))
    assert counted["cache-ini-no-equals"] == no_equals - LINES_LISTED_PER_KIND
    assert "cache-ini-generic-skipped" in by_code
    # The file's real values still count: CANN's view is complete.
    assert json.loads(out)["effective"]["max_op_cache_size"]["source"] == "default"


def test_a_small_file_lists_every_line_one_by_one(tmp_path, capsys):
    ini = tmp_path / "op_cache.ini"
    ini.write_text("[op_compiler_cache]\nadk_version=9.0.0\nops_version=9.0.0\n" + "junk\n" * LINES_LISTED_PER_KIND,
                   encoding="utf-8")
    main(["diagnose", "--ini", str(ini), "--json", "--lang", "en"])
    codes = [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]]
    assert codes.count("cache-ini-no-equals") == LINES_LISTED_PER_KIND
    assert "cache-ini-more-lines" not in codes and "cache-ini-generic-skipped" not in codes


def test_the_summary_reads_in_chinese(tmp_path, capsys):
    ini = tmp_path / "op_cache.ini"
    ini.write_text("[op_compiler_cache]\n" + "junk\n" * (LINES_LISTED_PER_KIND + 3), encoding="utf-8")
    main(["diagnose", "--ini", str(ini), "--lang", "zh_CN"])
    out = capsys.readouterr().out
    assert "另有 3 行与上面 cache-ini-no-equals 同类" in out
