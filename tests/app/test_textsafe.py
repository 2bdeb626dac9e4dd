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
