"""shellread's joining of backslash-newlines inside words (`_join_continued_words`) copies runs
of ordinary characters at once; the char-by-char version it replaced is kept here as the
reference, and both must give the same text for any input."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cann_config.app.io.shellread import _join_continued_words


def reference_join(text: str) -> str:
    """Join `a\\<newline>b` inside an unquoted word, as bash does, keeping later lines' numbers.

    tree-sitter-bash reads a backslash-newline between words, not inside one; bash removes it
    everywhere outside single quotes and comments. The joined line is followed by an empty one.
    An escaped blank (`A=\\ x`) becomes the quoted blank it is (`A=' 'x`), which the grammar reads
    right at a word's start and end too."""
    if "\\\n" not in text and "\\ " not in text:
        return text
    out: list[str] = []
    pending = 0  # newlines owed to the end of the current line
    single = double = comment = False
    i = 0
    while i < len(text):
        c = text[i]
        if comment:
            if c == "\n":
                comment = False
                out.append("\n" * (pending + 1))
                pending = 0
            else:
                out.append(c)
            i += 1
            continue
        if c == "\\" and not single and i + 1 < len(text):
            if text[i + 1] == "\n" and not double and out and out[-1][-1:] not in (" ", "\t", "\n", ""):
                pending += 1
                i += 2
                continue
            if text[i + 1] == " " and not double:
                out.append("' '")  # tree-sitter-bash misreads an escaped blank at a word's start or end
            else:
                out.append(text[i:i + 2])
            i += 2
            continue
        if c == "'" and not double:
            single = not single
        elif c == '"' and not single:
            double = not double
        elif c == "#" and not single and not double and (not out or out[-1][-1:] in (" ", "\t", "\n", ";")):
            comment = True
        if c == "\n" and not single and not double and pending:
            out.append("\n" * (pending + 1))
            pending = 0
        else:
            out.append(c)
        i += 1
    out.append("\n" * pending)
    return "".join(out)


SHELLISH = st.lists(st.sampled_from(["\\", "'", '"', "#", "\n", " ", "\t", ";", "a", "=", "$", "\\\n", "é"]),
                    max_size=80).map("".join)


@settings(max_examples=400)
@given(SHELLISH)
def test_the_fast_join_equals_the_char_by_char_reference(text):
    assert _join_continued_words(text) == reference_join(text)


def test_examples():
    text = "A=x\\\ny # c \\\n\nB='q\\\nr' C=\\ d\n"
    assert _join_continued_words(text) == reference_join(text)
    assert _join_continued_words("A=a\\\nb\nC=1\n") == "A=ab\n\nC=1\n"
