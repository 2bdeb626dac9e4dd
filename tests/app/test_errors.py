"""Exit-2 reasons: a message code and parameters, rendered in the language current when the
error is printed (so a language switch after the error was caught still changes it), always one
line naming the file and line; a plain English string still works."""

from __future__ import annotations

import errno
import pickle

import pytest

from cann_config.app.errors import InputError, InvalidValue, Message, UsageError, explain, os_reason
from cann_config.app.findings import make_finding
from cann_config.app.i18n import set_language


def test_a_coded_error_renders_in_the_language_current_when_it_is_read():
    error = InputError.from_code("core-profile-unknown-key", "p.json", key="colour", keys="format, version")
    assert str(error) == "p.json: unknown key 'colour' (a profile has format, version)"
    set_language("zh_CN")
    assert str(error) == "p.json: 未知的键 'colour'（配置档案包含的键为 format, version）"
    assert error.reason == "未知的键 'colour'（配置档案包含的键为 format, version）"
    assert error.one_line("en") == "p.json: unknown key 'colour' (a profile has format, version)"
    assert error.code == "core-profile-unknown-key"


def test_file_and_line_lead_the_line():
    error = InputError.from_code("support-error-not-json", "b.json", 7, detail="Expecting value")
    assert error.one_line("en") == "b.json:7: not a support bundle: not valid JSON (Expecting value)"
    assert error.one_line("zh_CN") == "b.json:7: 不是支持信息包：不是合法的 JSON（Expecting value）"


def test_a_parameter_with_line_breaks_stays_on_one_line():
    error = InputError.from_code("core-input-cannot-read", "a\nb.ini", detail="first\nsecond\r\nthird\u2028x")
    text = error.one_line()
    assert text == "a b.ini: cannot read: first second third x"
    assert len(text.splitlines()) == 1


def test_a_plain_string_is_shown_as_given_in_every_language():
    error = InputError("something   the system\nsaid", "f.txt", 3)
    set_language("zh_CN")
    assert str(error) == "f.txt:3: something the system said"
    assert error.code is None


def test_subclasses_keep_their_type_through_from_code():
    from cann_config.app.device.npusmi import NpuSmiError
    from cann_config.app.opcache.ini import FileChangedError

    assert isinstance(NpuSmiError.from_code("devices-error-binary", "x"), NpuSmiError)
    assert isinstance(FileChangedError.from_code("core-output-removed", "x"), InputError)


def test_usage_error_and_invalid_value():
    usage = UsageError.from_code("core-cli-device-invalid", detail=InvalidValue.from_code(
        "core-device-choice-invalid", choice="x", series="atlas-a2"))
    assert str(usage) == "--device: 'x' is neither an Ascend SoC version (e.g. Ascend910B3) nor a series id (atlas-a2)"
    set_language("zh_CN")
    # The nested reason follows the language too.
    assert str(usage) == "--device：'x' 既不是昇腾 SoC 版本（例如 Ascend910B3），也不是产品系列 ID（atlas-a2）"
    assert isinstance(InvalidValue("v"), ValueError)


def test_an_unknown_code_still_gives_a_line_and_no_traceback():
    error = InputError.from_code("no-such-code", "f", detail="d")
    assert str(error) == "f: no-such-code detail=d"


def test_a_template_that_misses_a_parameter_shows_the_placeholder():
    assert Message("core-input-cannot-read").text("en") == "cannot read: {detail}"


def test_os_errors_are_translated_and_keep_the_systems_text_in_english():
    missing = FileNotFoundError(errno.ENOENT, "No such file or directory")
    assert os_reason(missing).text("en") == "No such file or directory"
    assert os_reason(missing).text("zh_CN") == "文件或目录不存在"
    odd = OSError(errno.EIO, "Input/output error")
    assert os_reason(odd).text("zh_CN") == "Input/output error"  # no translation: the system's words
    assert explain(ValueError("bad")).text("zh_CN") == "bad"
    assert explain(missing).code == "core-os-no-such-file"


def test_an_error_quoted_in_a_finding_is_rendered_in_each_language():
    error = InputError.from_code("cache-error-ini-nul", "op_cache.ini", 2)
    finding = make_finding("support-bundle-ini-unusable", reason=error.line_message())
    assert finding.message("en").endswith(": op_cache.ini:2: not a text file (NUL byte); an op_cache.ini is plain text")
    assert finding.message("zh_CN").endswith("：op_cache.ini:2: 不是文本文件（含 NUL 字节）；op_cache.ini 应为纯文本文件")
    reason_only = make_finding("scan-ini-unreadable", reason=error)
    assert "(not a text file (NUL byte)" in reason_only.message("en")
    assert "（不是文本文件（含 NUL 字节）" in reason_only.message("zh_CN")


@pytest.mark.parametrize("error", [
    InputError.from_code("core-profile-format", "p.json", expected="cann-config-profile"),
    UsageError.from_code("export-error-ini-flags"),
    InputError("plain", "f", 1),
])
def test_errors_survive_pickling(error):
    # A worker process or a queue may carry the error to the window.
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error) and str(copy) == str(error)
