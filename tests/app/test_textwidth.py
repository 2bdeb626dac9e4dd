"""Display widths: CJK text takes two terminal cells per character, and tables pad by that."""

from cann_config.app.textwidth import display_width, pad, table_lines, underline


def test_display_width_counts_wide_and_zero_width_characters():
    assert display_width("abc") == 3
    assert display_width("缓存目录") == 8
    assert display_width("错误：") == 6  # the full-width colon is two cells
    assert display_width("e\u0301") == 1  # a combining accent takes no cell
    assert display_width("a\u200bb") == 2  # zero-width space
    assert display_width("±→α") == 3  # ambiguous width: one cell, as terminals show it by default
    assert display_width("Ａ") == 2  # a full-width Latin letter
    assert display_width("") == 0


def test_pad_aligns_by_cells_not_characters():
    assert pad("中文", 6) == "中文  "
    assert pad("中文", 6, ">") == "  中文"
    assert pad("中", 5, "^") == " 中  "
    assert pad("较长的文字", 3) == "较长的文字"  # never cut


def test_underline_is_as_wide_as_the_title_is_shown():
    assert underline("发现的问题") == "-" * 10
    assert underline("Findings", "=") == "=" * 8


def test_table_lines_line_up_mixed_scripts():
    lines = table_lines([["选项", "值"], ["max_op_cache_size", "500"], ["缓存", "1,024"]],
                        align=["<", ">"], header=True)
    assert lines[1] == "  " + "-" * 17 + "  " + "-" * 5
    # every row's second column ends in the same terminal cell
    ends = {display_width(line) for line in lines}
    assert ends == {2 + 17 + 2 + 5}
    assert lines[3] == "  缓存" + " " * 13 + "  1,024"


def test_table_lines_leave_no_trailing_spaces():
    lines = table_lines([["a", "long value"], ["bbbb", "x"]])
    assert lines == ["  a     long value", "  bbbb  x"]
    assert table_lines([]) == []
