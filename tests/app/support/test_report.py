"""The diagnosis report: reads well in zh and en, carries the fixes and the suggested files, and no
string from a bundle can inject HTML, Markdown or terminal escape sequences."""

import html
import json
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from cann_config.app.errors import UsageError
from cann_config.app.i18n import set_language
from cann_config.app.opcache.ini import parse_op_cache_ini
from cann_config.app.support.bundle import bundle_from_json, load_bundle
from cann_config.app.support.diagnosis import diagnose
from cann_config.app.support.report import (
    make_report,
    render_html,
    render_markdown,
    render_text,
    report_format,
    suggested_changes,
    suggested_profile,
    write_report,
)

ROOT = Path(__file__).resolve().parents[3]
BUNDLES = ROOT / "tests" / "data" / "bundles"
HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>`|*_[x](javascript:y)\x1b[31m&amp;'


@pytest.fixture(autouse=True)
def _english():
    set_language("en")


def a2_report():
    bundle = load_bundle(BUNDLES / "a2-910b3.json")
    return make_report(bundle.diagnosis(), bundle)


@pytest.mark.parametrize("lang,expected", [
    ("en", ["# CANN configuration diagnosis", "## Device", "## Effective settings", "## Findings",
            "## What CANN would delete at the next start", "## Suggested changes", "*Fix:*",
            "`remain_cache_size_ratio`", "Atlas A2 training/inference series", "3 kernel(s), 1.1 MB",
            "```ini", "remain_cache_size_ratio=50", "```bash", "unset ASCEND_REMAIN_CACHE_SIZE_RATIO"]),
    ("zh_CN", ["# CANN 配置诊断报告", "## 设备", "## 生效的设置", "## 提示", "## CANN 下次启动时将删除的内容",
               "## 建议的修改", "*修复方法：*", "3 个算子，1.1 MB", "**SoC 版本：**", "环境变量",
               "remain_cache_size_ratio=50"]),
])
def test_markdown_in_both_languages(lang, expected):
    text = render_markdown(a2_report(), lang)
    for piece in expected:
        assert piece in text, piece
    if lang == "zh_CN":
        assert "Effective settings" not in text and "What CANN would delete" not in text


def test_html_is_one_self_contained_page():
    page = render_html(a2_report(), "zh_CN")
    assert page.startswith("<!DOCTYPE html>") and '<html lang="zh-CN">' in page and '<meta charset="utf-8">' in page
    assert "<script" not in page and "src=" not in page and "href=" not in page and "@import" not in page
    assert "<h2>建议的修改</h2>" in page and 'class="language-ini"' in page
    assert '<li class="error">' in page  # the pair-incomplete finding
    # Well formed: every element opened is closed, in order.
    checker = TagBalance()
    checker.feed(page)
    assert checker.stack == [] and checker.errors == []


class TagBalance(HTMLParser):
    VOID = {"meta", "br", "img", "hr", "input", "link"}

    def __init__(self):
        super().__init__()
        self.stack, self.errors = [], []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)


def test_text_for_the_terminal():
    text = render_text(a2_report(), "en")
    assert "Effective settings\n------------------" in text
    assert "  max_op_cache_size        1 MB" in text
    assert "    remain_cache_size_ratio=50" in text  # the suggested op_cache.ini, indented


def hostile_bundle():
    """A bundle whose every string is an injection attempt."""
    data = json.loads((BUNDLES / "a2-910b3.json").read_text())
    data["created"] = HOSTILE
    data["tool_version"] = HOSTILE
    data["host"] = {"hostname": HOSTILE}
    data["npu_smi"]["notes"] = [HOSTILE]
    data["versions"]["toolkit_version"] = HOSTILE
    data["versions"]["driver_path"] = HOSTILE
    data["environment"]["ASCEND_CACHE_PATH"] = "/data/" + HOSTILE
    data["environment"]["ASCEND_MAX_OP_CACHE_SIZE"] = HOSTILE
    data["op_cache_ini"]["path"] = "/x/" + HOSTILE
    # 600 MB, not the fixture's 1 MB: completing the file's size pair must not bring a new
    # cache-limit-tiny warning, or its fix is not offered (app.support.fixes.plan_fixes) and the
    # suggested op_cache.ini, whose fence is checked below, is not in the report.
    data["op_cache_ini"]["text"] = data["op_cache_ini"]["text"].replace("max_op_cache_size=1\n", "max_op_cache_size=600\n")
    data["op_cache_ini"]["text"] += "# ```\n# " + HOSTILE + "\n"
    data["cache"]["kernel_cache"] = HOSTILE
    data["cache"]["fs_type"] = HOSTILE
    data["cache"]["socs"][HOSTILE] = data["cache"]["socs"]["Ascend910B3"]
    data["unreadable"] = [{"what": HOSTILE, "why": HOSTILE}]
    bundle = bundle_from_json(data, HOSTILE)
    return make_report(bundle.diagnosis(), bundle)


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_hostile_strings_cannot_inject_html(lang):
    page = render_html(hostile_bundle(), lang)
    assert "<script" not in page and "<img" not in page and "&lt;script" in page  # shown, escaped as text
    assert "\x1b" not in page and "\ufffd[31m" in page  # no control character reaches the reader
    assert html.escape("<script>alert(1)</script>") in page
    checker = TagBalance()
    checker.feed(page)
    assert checker.stack == [] and checker.errors == []


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_hostile_strings_cannot_inject_markdown(lang):
    text = render_markdown(hostile_bundle(), lang)
    # No raw HTML survives outside code blocks and code spans (ticket systems render it).
    outside = re.sub(r"^(`{3,})[a-z]*\n.*?^\1$", "", text, flags=re.S | re.M)
    outside = re.sub(r"(`+) .*? \1|(`+)[^` ][^`]*?\2", "", outside)
    assert "<script" not in outside and "<img" not in outside
    assert "](javascript" not in outside.replace("\\]", "")
    # The code fence is longer than the ``` inside the customer's op_cache.ini.
    assert "````ini" in text
    # Every table row keeps its column count: a | from the bundle cannot add a cell.
    for line in text.splitlines():
        if line.startswith("| `Ascend910B3`") or line.startswith("| `<script"):
            assert len(re.findall(r"(?<!\\)\|", line)) == 8


def test_hostile_strings_cannot_reach_the_terminal():
    text = render_text(hostile_bundle(), "en")
    assert "\x1b" not in text and "\ufffd[31m" in text


def test_hostile_values_in_the_suggested_env_file_stay_quoted(tmp_path):
    report = hostile_bundle()
    exports = {e.format: e.text for e in report.exports("en")}
    assert "env-bash" in exports
    script = tmp_path / "fix.sh"
    script.write_text(exports["env-bash"] + 'printf "%s" "$ASCEND_CACHE_PATH"\n')
    result = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0 and result.stdout == "/data/" + HOSTILE


def test_suggestions_are_placed_where_the_value_is_decided():
    report = a2_report()
    placed = {(c.code, c.key, c.value, c.format) for c in report.changes}
    assert placed == {("cache-ini-size-pair-incomplete", "remain_cache_size_ratio", 50, "op-cache-ini"),
                      ("cache-env-ratio-zero", "remain_cache_size_ratio", 50, "env-bash")}
    ini = next(e for e in report.exports() if e.format == "op-cache-ini")
    # Only the missing line is added; every other byte of the customer's file stays.
    original = report.diagnosis.ini.original.decode("utf-8")
    assert ini.text == original + "remain_cache_size_ratio=50\n"
    fixed = parse_op_cache_ini(ini.text.encode(), "fixed")
    assert diagnose(op_cache_ini=fixed, environ=report.bundle.environ).effective[
        "remain_cache_size_ratio"].source == "op_cache.ini"


def test_missing_version_lines_are_suggested_from_the_bundle():
    data = json.loads((BUNDLES / "a2-910b3.json").read_text())
    data["op_cache_ini"]["text"] = "[op_compiler_cache]\nmax_op_cache_size=800\nremain_cache_size_ratio=60\n"
    bundle = bundle_from_json(data)
    report = make_report(bundle.diagnosis(), bundle)
    keys = {(c.key, c.value) for c in report.changes if c.code == "cache-ini-missing-versions"}
    assert keys == {("adk_version", "8.5.0"), ("ops_version", "8.5.0")}
    ini = next(e for e in report.exports() if e.format == "op-cache-ini").text
    assert ini.startswith("[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n")


def test_a_script_option_fix_goes_to_the_frameworks_own_format(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("from npu_bridge.npu_init import *\n"
                      "config = NPURunConfig(op_compiler_cache_dir='/data/cache/kernel_cache')\n")
    diag = diagnose(script=script, environ={"HOME": "/home/u"})
    changes = suggested_changes(diag)
    assert [(c.key, c.value, c.format) for c in changes] == [("op_compiler_cache_dir", "/data/cache", "tf1-estimator")]
    assert suggested_profile(diag).options["op_compiler_cache_dir"] == "/data/cache"
    export = make_report(diag).exports("en")
    assert export[0].format == "tf1-estimator" and 'op_compiler_cache_dir="/data/cache"' in export[0].text


def test_a_plain_diagnosis_has_no_cleanup_data(tmp_path):
    diag = diagnose(environ={"HOME": "/home/u"})
    text = render_markdown(diag, "en")
    assert "Not known: no measurement of the cache directory" in text
    assert "No finding comes with a change to apply." in text
    assert "## Installed software" not in text


def test_the_report_json_extends_diagnose_json():
    report = a2_report()
    data = report.to_json("en")
    assert {"device", "effective", "findings"} <= set(data)
    assert data["bundle"]["cache"]["socs"]["Ascend910B3"]["cleanup"]["delete_groups"] == 3
    assert data["suggested_profile"]["options"]["remain_cache_size_ratio"] == 50
    assert [e["format"] for e in data["suggested_exports"]] == ["op-cache-ini", "env-bash"]


@pytest.mark.parametrize("name,fmt", [("r.md", "markdown"), ("R.MARKDOWN", "markdown"), ("r.html", "html"),
                                      ("r.htm", "html")])
def test_report_format_from_the_name(name, fmt):
    assert report_format(name) == fmt


@pytest.mark.parametrize("name", ["r.txt", "report", "r.md.bak", "r.pdf"])
def test_other_names_are_refused(name):
    with pytest.raises(UsageError, match=r"\.md"):
        report_format(name)


def test_write_report(tmp_path):
    target = write_report(tmp_path / "r.html", a2_report(), "en")
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]  # no temporary file left behind
    with pytest.raises(UsageError):
        write_report(tmp_path / "r.txt", a2_report(), "en")
    assert not (tmp_path / "r.txt").exists()


def test_an_export_never_moves_a_value_to_another_variable():
    """PyTorch reads ACL_OP_COMPILER_CACHE_DIR; the customer set ASCEND_CACHE_PATH: the suggested
    env file for the ratio fix must not turn one into the other."""
    bundle = load_bundle(BUNDLES / "a2-910b3.json")
    report = make_report(bundle.diagnosis(framework="pytorch"), bundle)
    env = next(e for e in report.exports("en") if e.format == "env-bash").text
    assert "ACL_OP_COMPILER_CACHE_DIR=" not in env and "export ASCEND_MAX_OP_CACHE_SIZE=1" in env
    assert report.profile.options["op_compiler_cache_dir"] == "/data/ascend_cache"
