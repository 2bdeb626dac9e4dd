"""terminal_text: what a terminal would interpret is replaced; readable text is kept."""

import pytest

from cann_config.app.textsafe import terminal_text


@pytest.mark.parametrize("char", ["\x1b", "\x07", "\r", "\x00", "\x08", "\x0b", "\x7f", "\x9b", "\x90",
                                  b"\x9b".decode("utf-8", "surrogateescape"), "\ud800"])
def test_control_characters_are_replaced(char):
    assert terminal_text(f"a{char}b") == "a\ufffdb"
    assert terminal_text(f"a{char}b", one_line=False) == "a\ufffdb"


def test_one_line_folds_line_breaks_and_keeps_readable_text():
    assert terminal_text("/data/缓存 dir\n\tnext  line") == "/data/缓存 dir next line"
    assert terminal_text("a\nb\tc", one_line=False) == "a\nb\tc"
    assert terminal_text(42) == "42"


def test_the_result_can_always_be_encoded_as_utf8():
    raw = b"enable\x9b31m \xff\xfe"
    text = terminal_text(raw.decode("utf-8", "surrogateescape"))
    assert text.encode("utf-8") == "enable\ufffd31m \ufffd\ufffd".encode()


def test_bidirectional_controls_are_replaced():
    from cann_config.app.textsafe import terminal_text

    hostile = "/data/\u202ecod.exe\u202c/cache\u2066x\u2069\u200f"
    shown = terminal_text(hostile)
    assert not any(ch in shown for ch in "\u202e\u202c\u2066\u2069\u200f")
    assert shown.startswith("/data/") and "cod.exe" in shown


def test_inline_text_keeps_a_value_on_its_line():
    from cann_config.app.textsafe import inline_text

    assert inline_text("a  b\nc\r\nd\u2028e\x1b[31m\u202e") == "a  b c d e\ufffd[31m\ufffd"


def test_json_text_escapes_what_a_terminal_interprets_and_keeps_the_data():
    import json

    from cann_config.app.textsafe import json_text

    data = {"soc": "Ascend910B3\u202e\x9b\x7f\x1b", "n": 1}
    text = json_text(json.dumps(data, ensure_ascii=False))
    assert not any(c in text for c in "\u202e\x9b\x7f\x1b") and json.loads(text) == data


def test_message_values_are_made_safe_wherever_they_are_shown():
    from cann_config.app.errors import InputError
    from cann_config.app.findings import make_finding

    error = InputError.from_code("core-input-cannot-read", "/x\x1b]0;t\x07", detail="boom\u202e")
    assert not any(c in error.one_line() for c in "\x1b\x07\u202e")
    finding = make_finding("cache-ini-not-found", path="/data/\x1b[2J\u2066cache")
    for lang in ("en", "zh_CN"):
        assert not any(c in finding.message(lang) for c in "\x1b\u2066")


def test_ascii_and_other_text_follow_the_same_rule_for_every_character():
    """ASCII text takes a smaller pattern (issue 16): each character, alone, inside ASCII text and
    inside Chinese text, is treated as the one rule says."""
    from cann_config.app.textsafe import inline_text, json_text

    def control(c):
        n = ord(c)
        return (n < 0x20 and c not in "\t\n") or 0x7F <= n <= 0x9F or 0xD800 <= n <= 0xDFFF or \
            n in (0x200E, 0x200F) or 0x202A <= n <= 0x202E or 0x2066 <= n <= 0x2069

    def inline_break(c):
        return c in "\n\r\t\v\f\x1c\x1d\x1e\x85\u2028\u2029"

    def json_escaped(c):
        return control(c) and ord(c) >= 0x7F and not 0xD800 <= ord(c) <= 0xDFFF

    chars = [chr(n) for n in (*range(0x00, 0x250), *range(0x2000, 0x2070), 0x3000, 0x4E2D, 0xD800, 0xDFFF,
                               0xFEFF, 0xFFFD, 0x1F600)]
    for c in chars:
        for context in ("a{}b", "缓{}存"):
            text = context.format(c)
            expected = context.format("\ufffd" if control(c) else c)
            assert terminal_text(text, one_line=False) == expected, (hex(ord(c)), context)
            expected = context.format(" " if inline_break(c) else "\ufffd" if control(c) else c)
            assert inline_text(text) == expected, (hex(ord(c)), context)
            if not 0xD800 <= ord(c) <= 0xDFFF:
                expected = context.format(f"\\u{ord(c):04x}" if json_escaped(c) else c)
                assert json_text(text) == expected, (hex(ord(c)), context)
    assert inline_text("a\r\r\nb\r\n\nc") == "a  b  c" and inline_text("缓\r\r\n存") == "缓  存"
