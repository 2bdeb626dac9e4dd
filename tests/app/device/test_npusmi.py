"""npu-smi parsing: every documented layout gives the right SoC; anything else is a clear NpuSmiError."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cann_config.app.device.npusmi import (
    LAYOUT_CHIP,
    LAYOUT_DEVICE,
    LAYOUT_PHY_ID,
    BoardInfo,
    NpuSmiError,
    board_needed,
    device_from_npu_smi,
    parse_npu_smi_board,
    parse_npu_smi_info,
    parse_npu_smi_mapping,
    read_npu_smi_file,
    read_npu_smi_info,
    soc_from_name,
)
from cann_config.app.errors import InputError
from cann_config.app.i18n import current_language, set_language

DATA = Path(__file__).resolve().parents[2] / "data" / "npu-smi"


@pytest.fixture(autouse=True)
def _english():
    before = current_language()
    set_language("en")
    yield
    set_language(before)


def text(name: str) -> str:
    return read_npu_smi_file(DATA / name)


def device(info: str | None, *boards: str):
    return device_from_npu_smi(text(info) if info else None, [text(b) for b in boards], source="npu-smi output file",
                               info_source=info or "<none>", board_sources=list(boards))


@pytest.mark.parametrize("name,soc,series,chips", [
    ("a2-910b3.txt", "Ascend910B3", "atlas-a2", 8),
    ("a2-ticket-crlf.txt", "Ascend910B3", "atlas-a2", 2),
    ("a2-email-quoted.txt", "Ascend910B3", "atlas-a2", 2),
    ("wide-26x.txt", "Ascend910B2C", "atlas-a2", 2),
    ("310p3-duo.txt", "Ascend310P3", "atlas-inference", 4),
    ("310b4.txt", "Ascend310B4", "atlas-200i-500-a2", 1),
    ("training-910a.txt", "Ascend910A", "atlas-training", 2),
    ("training-910prob.txt", "Ascend910ProB", "atlas-training", 1),
    # `910B` without a digit is the older training series, not Atlas A2.
    ("training-910b-nodigit.txt", "Ascend910B", "atlas-training", 1),
    ("legacy-310.txt", "Ascend310", "atlas-200-300-500", 2),
    ("mapping-910b4.txt", "Ascend910B4", "atlas-a2", 3),
])
def test_soc_and_series_from_the_name_column(name, soc, series, chips):
    d = device(name)
    assert (d.soc_version, d.series, len(d.npus)) == (soc, series, chips)
    assert d.source == "npu-smi output file"
    assert all(chip.soc_version == soc for chip in d.npus)


def test_a2_table_skips_the_process_table_and_reads_the_fields():
    table = read_npu_smi_info(text("a2-910b3.txt"), "a2")
    assert table.layout == LAYOUT_CHIP and table.version == "24.1.rc1.b030"
    assert [(r.npu, r.chip) for r in table.rows] == [(n, 0) for n in range(8)]
    first = table.rows[0]
    assert (first.name, first.health, first.bus_id, first.line) == ("910B3", "OK", "0000:C1:00.0", 7)
    assert table.notes == ()


def test_310p_duo_has_two_chips_per_npu_and_non_contiguous_ids():
    table = read_npu_smi_info(text("310p3-duo.txt"))
    assert table.layout == LAYOUT_DEVICE
    assert [(r.npu, r.chip, r.device) for r in table.rows] == [(2, 0, 0), (2, 1, 1), (5, 0, 2), (5, 1, 3)]
    assert table.rows[3].health == "Warning"
    # The process row "5  1 | 18812 | ./main" after the device table is no chip.
    assert len(table.rows) == 4


def test_na_fields_become_none():
    row = parse_npu_smi_info(text("310b4.txt"))[0]
    assert row.bus_id is None and row.health == "Alarm"


def test_wider_columns_and_squeezed_hbm_values():
    rows = parse_npu_smi_info(text("wide-26x.txt"))
    assert [(r.npu, r.name) for r in rows] == [(0, "910B2C"), (8, "910B2C")]


def test_crlf_and_ticket_noise_around_the_table():
    raw = (DATA / "a2-ticket-crlf.txt").read_bytes()
    assert b"\r\n" in raw
    rows = parse_npu_smi_info(raw.decode())
    assert [r.npu for r in rows] == [0, 1] and rows[1].bus_id == "0000:C2:00.0"


def test_a3_without_board_query_leaves_soc_and_series_unknown():
    d = device("a3-910-9392.txt")
    assert d.soc_version is None and d.series is None
    assert [(c.npu, c.chip, c.soc_version) for c in d.npus] == [(0, 0, None), (0, 1, None), (1, 0, None), (1, 1, None)]
    assert any("npu-smi info -t board -i 0 -c 0" in n for n in d.notes)
    table = read_npu_smi_info(text("a3-910-9392.txt"))
    assert table.layout == LAYOUT_PHY_ID and [r.phy_id for r in table.rows] == [0, 1, 2, 3]
    assert board_needed(table) == [(0, 0)]


def test_a3_with_board_queries():
    d = device("a3-910-9392.txt", "a3-board-0-0.txt", "a3-board-1-0.txt")
    assert (d.soc_version, d.series) == ("Ascend910_9392", "atlas-a3")
    assert all(c.soc_version == "Ascend910_9392" for c in d.npus)
    assert d.notes == ()


def test_a3_one_board_query_serves_npus_with_the_same_name_with_a_note():
    d = device("a3-910-9392.txt", "a3-board-0-0.txt")
    assert d.soc_version == "Ascend910_9392" and all(c.soc_version for c in d.npus)
    assert any("taken from the board query of NPU 0 chip 0" in n and "NPU 1:" in n for n in d.notes)


def test_board_without_npu_id_applies_to_every_npu_needing_one():
    d = device("a3-910-9392.txt", "a3-board-no-id.txt")
    assert d.soc_version == "Ascend910_9382"
    assert any("names no NPU ID" in n for n in d.notes)


def test_disagreeing_anonymous_boards_are_not_used():
    other = "Chip Name : Ascend910\nNPU Name : 9391\n"
    d = device_from_npu_smi(text("a3-910-9392.txt"), [text("a3-board-no-id.txt"), other])
    assert d.soc_version is None
    assert any("disagree" in n for n in d.notes)


def test_board_for_an_npu_not_in_the_table_is_reported():
    board = "NPU ID : 9\nChip ID : 0\nChip Name : Ascend910\nNPU Name : 9392\n"
    d = device_from_npu_smi(text("a3-910-9392.txt"), [board], board_sources=["b9.txt"])
    assert d.soc_version is None
    assert any("b9.txt" in n and "NPU 9 chip 0" in n for n in d.notes)


def test_board_that_contradicts_the_name_column_is_noted_and_the_name_wins():
    d = device("a2-910b3.txt", "a2-board-910b4.txt")
    assert d.soc_version == "Ascend910B3"
    assert any("Ascend910B4" in n for n in d.notes)


def test_950_needs_the_board_query_of_the_npu():
    bare = device("950pr.txt")
    assert bare.soc_version is None and bare.series is None
    assert any("npu-smi info -t board -i 0)" in n for n in bare.notes)
    assert board_needed(read_npu_smi_info(text("950pr.txt"))) == [(0, None)]
    full = device("950pr.txt", "950pr-board-0.txt")
    assert (full.soc_version, full.series) == ("Ascend950PR_9579", "ascend950")


def test_board_output_alone_names_the_soc():
    d = device(None, "a3-board-0-0.txt")
    assert (d.soc_version, d.series) == ("Ascend910_9392", "atlas-a3")
    assert [(c.npu, c.chip) for c in d.npus] == [(0, 0)]
    # ...also when it was handed over where `npu-smi info` was expected.
    assert device("a3-board-0-0.txt").soc_version == "Ascend910_9392"


def test_mixed_host_reports_each_npu_and_the_most_common_soc():
    d = device("mixed-910b3-910b4.txt")
    assert d.soc_version == "Ascend910B3" and d.series == "atlas-a2"
    assert [c.soc_version for c in d.npus] == ["Ascend910B3", "Ascend910B3", "Ascend910B4"]
    assert any("NPU 0-1: Ascend910B3; NPU 2: Ascend910B4" in n for n in d.notes)


def test_mixed_tie_takes_the_first_listed():
    t = text("mixed-910b3-910b4.txt")
    lines = t.splitlines()
    without_npu1 = "\n".join(lines[:9] + lines[12:])
    d = device_from_npu_smi(without_npu1)
    assert [c.soc_version for c in d.npus] == ["Ascend910B3", "Ascend910B4"]
    assert d.soc_version == "Ascend910B3"


def test_truncated_output_keeps_the_complete_entries_with_a_note():
    d = device("truncated.txt")
    assert [c.npu for c in d.npus] == [0]
    assert any("truncated.txt:10" in n and "NPU 1" in n for n in d.notes)


def test_pasted_twice_is_read_once():
    d = device("pasted-twice.txt")
    assert [c.npu for c in d.npus] == [0, 1]
    assert any("listed again" in n for n in d.notes)


def test_rows_without_header_are_read_with_a_note():
    table = read_npu_smi_info(text("rows-only.txt"), "rows-only.txt")
    assert [r.name for r in table.rows] == ["910B3", "910B3"]
    assert any("header line" in n for n in table.notes)


def test_unknown_soc_is_kept_not_guessed():
    d = device("unknown-910c.txt")
    assert d.soc_version == "Ascend910C" and d.series is None


@pytest.mark.parametrize("name", ["garbage-nvidia-smi.txt", "garbage-text.txt", "driver-error.txt", "header-only.txt",
                                  "board-without-chip.txt"])
def test_not_npu_smi_info_is_a_one_line_error_naming_the_file(name):
    with pytest.raises(NpuSmiError) as info:
        device_from_npu_smi(text(name), info_source=f"tests/{name}")
    message = str(info.value)
    assert message.startswith(f"tests/{name}: ") and "\n" not in message
    assert isinstance(info.value, InputError)


def test_header_only_says_the_output_is_cut_off():
    with pytest.raises(NpuSmiError, match="no complete NPU entry"):
        parse_npu_smi_info(text("header-only.txt"))


# --- board and -m parsers ----------------------------------------------------------------------


def test_board_a2_chip_type_and_name():
    board = parse_npu_smi_board(text("a2-board-910b4.txt"))
    assert (board.npu_id, board.chip_id, board.chip_type, board.chip_name) == (0, 0, "Ascend", "910B4")
    assert board.soc_version == "Ascend910B4"


@pytest.mark.parametrize("board,soc", [
    (BoardInfo(0, 0, "Ascend910", "9392"), "Ascend910_9392"),
    (BoardInfo(0, 0, "910", "9392", chip_type="Ascend"), "Ascend910_9392"),
    (BoardInfo(0, None, "Ascend950PR", "9579"), "Ascend950PR_9579"),
    (BoardInfo(0, 0, "310P3"), "Ascend310P3"),
])
def test_board_soc_rule(board, soc):
    assert board.soc_version == soc


def test_board_ignores_a_product_name_in_npu_name_and_na():
    board = parse_npu_smi_board("NPU ID : 1\nChip ID : NA\nChip Name : 910B3\nNPU Name : Atlas 800T A2\n")
    assert (board.npu_id, board.chip_id, board.npu_name, board.soc_version) == (1, None, None, "Ascend910B3")


def test_board_without_chip_name_is_refused():
    with pytest.raises(NpuSmiError, match="Chip Name"):
        parse_npu_smi_board(text("board-without-chip.txt"), "b.txt")
    with pytest.raises(NpuSmiError, match="does not look like"):
        parse_npu_smi_board("Chip Name : ???\n", "b.txt")


def test_mapping_skips_mcu_rows():
    chips = parse_npu_smi_mapping(text("mapping-910b4.txt"))
    assert chips == [(0, 0, "Ascend 910B4"), (1, 0, "Ascend 910B4"), (2, 0, "Ascend 910B4")]
    assert chips[0].name == "Ascend 910B4" and soc_from_name(chips[0].name) == "Ascend910B4"
    with pytest.raises(NpuSmiError, match="npu-smi info -m"):
        parse_npu_smi_mapping("0 0 0 Ascend 910B4\n")


def test_mapping_alone_cannot_tell_an_a3_from_the_training_series():
    mapping = "NPU ID  Chip ID  Chip Logic ID  Chip Name\n0  0  0  Ascend 910\n0  1  -  Mcu\n"
    d = device_from_npu_smi(mapping)
    assert d.soc_version is None and any("board query" in n for n in d.notes)


# --- files -------------------------------------------------------------------------------------


def test_file_encodings(tmp_path):
    table = text("310b4.txt")
    (tmp_path / "u16.txt").write_bytes(table.encode("utf-16"))
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbf" + table.encode())
    for name in ("u16.txt", "bom.txt"):
        assert device_from_npu_smi(read_npu_smi_file(tmp_path / name)).soc_version == "Ascend310B4"


def test_unusable_files_are_input_errors(tmp_path):
    (tmp_path / "bin").write_bytes(b"\x7fELF\x00\x01\x02")
    (tmp_path / "big").write_bytes(b"a" * (4 * 1024 * 1024 + 1))
    for path, words in ((tmp_path / "bin", "binary"), (tmp_path / "big", "too large"),
                        (tmp_path / "missing", "cannot read"), (tmp_path, "directory")):
        with pytest.raises(InputError, match=words) as info:
            read_npu_smi_file(path)
        assert str(path) in str(info.value)


def test_notes_follow_the_language():
    set_language("zh_CN")
    d = device("truncated.txt")
    assert any("截断" in n for n in d.notes)


# --- nothing but NpuSmiError, whatever the text -----------------------------------------------

FIXTURES = sorted(p.name for p in DATA.glob("*.txt"))


def _parse_everything(candidate: str) -> None:
    for parse in (parse_npu_smi_info, parse_npu_smi_board, parse_npu_smi_mapping):
        try:
            parse(candidate, "<fuzz>")
        except NpuSmiError:
            pass
    try:
        d = device_from_npu_smi(candidate, [candidate], info_source="<fuzz>", board_sources=["<fuzz>"])
    except NpuSmiError:
        return
    d.to_json()
    try:
        d = device_from_npu_smi(candidate, info_source="<fuzz>")
    except NpuSmiError:
        return
    assert d.soc_version is None or d.soc_version.startswith("Ascend")


_mutation = st.tuples(st.sampled_from(["delete", "insert", "replace", "dup-line", "drop-line", "swap-lines"]),
                      st.integers(min_value=0), st.integers(min_value=0),
                      st.text(alphabet=st.sampled_from(list("| +-=0123456789ABNPUChipDevice:_\r\n\t\x00é中")), max_size=8))


def _mutate(base: str, mutations) -> str:
    out = base
    for kind, a, b, piece in mutations:
        lines = out.splitlines(keepends=True)
        if kind in ("dup-line", "drop-line", "swap-lines") and lines:
            i, j = a % len(lines), b % len(lines)
            if kind == "dup-line":
                lines.insert(i, lines[i])
            elif kind == "drop-line":
                del lines[i]
            else:
                lines[i], lines[j] = lines[j], lines[i]
            out = "".join(lines)
            continue
        pos = a % (len(out) + 1)
        if kind == "delete":
            out = out[:pos] + out[pos + 1 + b % 40:]
        elif kind == "insert":
            out = out[:pos] + piece + out[pos:]
        else:
            out = out[:pos] + piece + out[pos + len(piece):]
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_random_text_raises_only_npu_smi_error(candidate):
    _parse_everything(candidate)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FIXTURES), st.lists(_mutation, min_size=1, max_size=6))
def test_mutated_npu_smi_text_raises_only_npu_smi_error(name, mutations):
    _parse_everything(_mutate(text(name), mutations))


def test_ascend910_needs_the_board_even_without_phy_id_but_910_is_the_training_series():
    a3 = text("a3-910-9392.txt").replace("| Chip  Phy-ID  ", "| Chip          ")
    assert read_npu_smi_info(a3).layout == LAYOUT_CHIP
    assert device_from_npu_smi(a3).soc_version is None
    old = text("training-910a.txt").replace("910A ", "910  ")
    d = device_from_npu_smi(old)
    assert (d.soc_version, d.series) == ("Ascend910", "atlas-training")


def test_empty_info_beside_board_queries_reads_the_boards():
    assert device_from_npu_smi("  \n", [text("a3-board-0-0.txt")]).soc_version == "Ascend910_9392"
    with pytest.raises(NpuSmiError):
        device_from_npu_smi("  \n")
