"""op_cache.ini: CANN's reading of every layout real files have, lossless edits, atomic saves."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cann_config.app.catalog import load_catalog
from cann_config.app.errors import InputError, UsageError
from cann_config.app.opcache.ini import (
    BOM,
    FileChangedError,
    cann_stoi,
    creation_findings,
    emulate_cann,
    installed_op_cache_versions,
    parse_op_cache_ini,
    read_op_cache_ini,
    render_op_cache_ini,
    save_op_cache_ini,
)

INI_DIR = Path(__file__).resolve().parents[2] / "data" / "ini"
GOLDEN = sorted(p.name for p in INI_DIR.glob("*.ini"))
V = {"adk_version": "8.5.0", "ops_version": "8.5.0"}


def codes(ini):
    return sorted(f.code for f in ini.findings)


def values(ini):
    return {k: e.value for k, e in ini.values_as_cann_reads().items()}


# name: (CANN uses the file, why, what CANN's parser holds, finding codes of the file)
EXPECTED = {
    "template.ini": (True, "ok", {**V, "max_op_cache_size": "500", "remain_cache_size_ratio": "80"}, []),
    "template_docs.ini": (False, "missing-versions", {"max_op_cache_size": "500", "remain_cache_size_ratio": "80"},
                          ["cache-ini-missing-versions"]),
    "cann_created.ini": (True, "ok", V, []),
    "crlf.ini": (True, "ok", {"adk_version": "8.5.0\r", "ops_version": "8.5.0\r", "max_op_cache_size": "500\r",
                              "remain_cache_size_ratio": "80\r"}, ["cache-ini-crlf-versions"]),
    "bom.ini": (True, "ok", {**V, "max_op_cache_size": "500", "remain_cache_size_ratio": "80"}, ["cache-ini-bom"]),
    "bom_header.ini": (False, "no-section", {}, ["cache-ini-bom-line1", "cache-ini-key-outside-section",
                                                 "cache-ini-no-section"]),
    "blank_lines.ini": (True, "ok", {**V, "max_op_cache_size": "500", "remain_cache_size_ratio": "50"}, []),
    "indented.ini": (True, "ok", {**V, "max_op_cache_size": "700", "remain_cache_size_ratio": "60"},
                     ["cache-ini-version-spacing", "cache-ini-version-spacing"]),
    "leading_space_comment.ini": (True, "ok", {**V, "max_op_cache_size": "500", "remain_cache_size_ratio": "50"},
                                  ["cache-ini-indented-comment", "cache-ini-indented-comment-key"]),
    "inline_comments.ini": (True, "ok", {**V, "max_op_cache_size": "800    # MB, per SoC",
                                         "remain_cache_size_ratio": "70\t# percent"},
                            ["cache-ini-inline-comment", "cache-ini-inline-comment"]),
    "hash_in_value.ini": (True, "ok", {"adk_version": "8.5.0#rc1", "ops_version": "8.5.0",
                                       "max_op_cache_size": "500", "remain_cache_size_ratio": "50"},
                          ["cache-ini-inline-comment"]),
    "spacing.ini": (True, "ok", {**V, "max_op_cache_size": "600", "remain_cache_size_ratio": "40"}, []),
    "version_spacing.ini": (True, "ok", {**V, "max_op_cache_size": "500", "remain_cache_size_ratio": "50"},
                            ["cache-ini-version-spacing"]),
    "unknown_keys.ini": (True, "ok", {**V, "max_op_cache_size": "500", "remain_cache_size_ratio": "50"},
                         ["cache-ini-unknown-key", "cache-ini-unknown-key-typo", "cache-ini-unknown-key-typo"]),
    "no_final_newline.ini": (True, "ok", {**V, "max_op_cache_size": "500", "remain_cache_size_ratio": "50"}, []),
    "foreign_section_before.ini": (False, "foreign-section",
                                   {**V, "max_op_cache_size": "800", "remain_cache_size_ratio": "50"},
                                   ["cache-ini-foreign-section"]),
    "foreign_section_after.ini": (False, "foreign-section",
                                  {**V, "max_op_cache_size": "800", "remain_cache_size_ratio": "50"},
                                  ["cache-ini-foreign-section"]),
    "foreign_section_empty.ini": (False, "foreign-section",
                                  {**V, "max_op_cache_size": "800", "remain_cache_size_ratio": "50"},
                                  ["cache-ini-foreign-section"]),
    "duplicate_keys.ini": (True, "ok", {**V, "max_op_cache_size": "300", "remain_cache_size_ratio": "50"},
                           ["cache-ini-duplicate-key"]),
    "duplicate_section.ini": (True, "ok", V, ["cache-ini-block-lost"]),
    "no_equals.ini": (True, "ok", {**V, "remain_cache_size_ratio": "50"}, ["cache-ini-no-equals"]),
    "empty_value.ini": (True, "ok", {**V, "remain_cache_size_ratio": "50"}, ["cache-ini-empty-value"]),
    "unclosed_section.ini": (True, "ok", V, ["cache-ini-block-lost", "cache-ini-unclosed-section"]),
    "indented_section.ini": (False, "no-section", {}, ["cache-ini-indented-section", "cache-ini-key-outside-section",
                                                       "cache-ini-no-section"]),
    "key_before_section.ini": (True, "ok", {**V, "max_op_cache_size": "800", "remain_cache_size_ratio": "50"},
                               ["cache-ini-key-before-section"]),
    "mixed_endings.ini": (True, "ok", {"adk_version": "8.5.0", "ops_version": "8.5.0\r", "max_op_cache_size": "500",
                                       "remain_cache_size_ratio": "50\r"}, ["cache-ini-crlf-versions"]),
    "quoted_value.ini": (True, "ok", {**V, "max_op_cache_size": '"800"', "remain_cache_size_ratio": "50"}, []),
    "numeric_prefix.ini": (True, "ok", {**V, "max_op_cache_size": "800MB", "remain_cache_size_ratio": "50%"}, []),
    "ageing_off.ini": (True, "ok", {**V, "max_op_cache_size": "-1", "remain_cache_size_ratio": "80"}, []),
    "only_max.ini": (True, "ok", {**V, "max_op_cache_size": "800"}, []),
    "empty.ini": (False, "no-section", {}, ["cache-ini-no-section"]),
    "cr_only.ini": (False, "no-section", {}, ["cache-ini-cr-line-ends"]),
    "invalid_utf8.ini": (True, "ok", {**V, "max_op_cache_size": "500", "remain_cache_size_ratio": "50"},
                         ["cache-ini-invalid-utf8"]),
    "long_line.ini": (True, "ok", {**V, "max_op_cache_size": "500", "remain_cache_size_ratio": "50"},
                      ["cache-ini-long-line"]),
}


def test_every_golden_file_has_an_expectation():
    assert sorted(EXPECTED) == GOLDEN


@pytest.mark.parametrize("name", GOLDEN)
def test_cann_reads_each_layout_as_its_source_does(name):
    ini = read_op_cache_ini(INI_DIR / name)
    counts, reason, held, finding_codes = EXPECTED[name]
    assert ini.counts is counts
    assert ini.cann_view.reason == reason
    assert values(ini) == held
    assert codes(ini) == sorted(finding_codes)


@pytest.mark.parametrize("name", GOLDEN)
def test_unchanged_round_trip_is_byte_identical(name):
    data = (INI_DIR / name).read_bytes()
    ini = parse_op_cache_ini(data, name)
    assert render_op_cache_ini(ini, {}) == data
    # Asking for the values CANN already reads changes nothing either.
    catalog = load_catalog()
    same = {}
    for key in ("max_op_cache_size", "remain_cache_size_ratio"):
        entry = ini.layout.values.get(key)
        number = cann_stoi(entry.value).value if entry else None
        if number is not None and catalog.option(key).check(number) is None:
            same[key] = number
    assert render_op_cache_ini(ini, same) == data


EDITED = {
    "template.ini": {"max_op_cache_size": 800},
    "crlf.ini": {"max_op_cache_size": 800},
    "bom.ini": {"max_op_cache_size": 800},
    "inline_comments.ini": {"max_op_cache_size": 1024, "remain_cache_size_ratio": 90},
    "spacing.ini": {"max_op_cache_size": 800},
    "no_final_newline.ini": {"remain_cache_size_ratio": 60},
    "numeric_prefix.ini": {"max_op_cache_size": 900},
    "invalid_utf8.ini": {"max_op_cache_size": 800},
    "indented.ini": {"max_op_cache_size": 800},
    "leading_space_comment.ini": {"max_op_cache_size": 800},
    "cann_created.ini": {"max_op_cache_size": 800, "remain_cache_size_ratio": 60},
    "template_docs.ini": {"adk_version": "8.5.0", "ops_version": "8.5.0"},
    "only_max.ini": {"remain_cache_size_ratio": 50},
    "quoted_value.ini": {"max_op_cache_size": 800},
    "duplicate_keys.ini": {"max_op_cache_size": 400},
    "empty.ini": {"max_op_cache_size": 800, "remain_cache_size_ratio": 50},
}


@pytest.mark.parametrize("name", sorted(EDITED))
def test_edits_match_the_golden_output(name):
    ini = read_op_cache_ini(INI_DIR / name)
    assert render_op_cache_ini(ini, EDITED[name]) == (INI_DIR / "edited" / name).read_bytes()


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


@pytest.mark.parametrize("name", [n for n in GOLDEN if "max_op_cache_size" in EXPECTED[n][2]
                                  and EXPECTED[n][0] and n != "cr_only.ini"])
def test_one_edit_changes_exactly_one_line(name):
    data = (INI_DIR / name).read_bytes()
    ini = parse_op_cache_ini(data, name)
    out = render_op_cache_ini(ini, {"max_op_cache_size": 4321})
    old, new = _lines(data), _lines(out)
    assert len(old) == len(new)
    changed = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
    assert len(changed) == 1
    before, after = changed[0]
    assert b"4321" in after and before.replace(b"4321", b"") != after.replace(b"4321", b"")
    assert parse_op_cache_ini(out, name).values_as_cann_reads()["max_op_cache_size"].value.startswith("4321")


def test_the_configobj_traps_do_not_apply_to_writing():
    # configobj #261 (space before an inline comment), #270 ('#' inside a value), #269 (leading
    # spaces of a comment) all survive an edit of another line.
    data = (b"[op_compiler_cache]\n   # indented comment\nadk_version=8.5.0#rc1\nops_version=8.5.0\n"
            b"max_op_cache_size=500      # MB\nremain_cache_size_ratio=50\n")
    ini = parse_op_cache_ini(data, "traps.ini")
    out = render_op_cache_ini(ini, {"remain_cache_size_ratio": 70})
    assert out == data.replace(b"remain_cache_size_ratio=50", b"remain_cache_size_ratio=70")
    # What configobj itself makes of it (the generic view) differs from CANN's: it cuts at '#'.
    assert ini.generic["op_compiler_cache"]["adk_version"] == "8.5.0"
    assert values(ini)["adk_version"] == "8.5.0#rc1"


def test_key_before_any_section_goes_to_the_first_section_for_cann_and_to_the_root_for_configobj():
    ini = read_op_cache_ini(INI_DIR / "key_before_section.ini")
    assert values(ini)["max_op_cache_size"] == "800"
    assert ini.generic["max_op_cache_size"] == "800"  # root, not inside [op_compiler_cache]
    assert "max_op_cache_size" not in ini.generic["op_compiler_cache"]


def test_foreign_section_findings_name_the_section_and_line():
    ini = read_op_cache_ini(INI_DIR / "foreign_section_before.ini")
    (finding,) = ini.findings
    assert (finding.severity, finding.line) == ("error", 6)
    assert "[cache]" in finding.message("en") and "[cache]" in finding.message("zh_CN")


def test_duplicate_key_finding_names_both_lines_and_says_the_last_wins():
    ini = read_op_cache_ini(INI_DIR / "duplicate_keys.ini")
    (finding,) = ini.findings
    assert finding.line == 6
    assert "4, 6" in finding.message("en") and "last" in finding.message("en")


def test_missing_versions_is_an_inference_and_says_so():
    ini = read_op_cache_ini(INI_DIR / "template_docs.ini")
    (finding,) = ini.findings
    assert finding.severity == "error"
    assert "Inference" in finding.message("en") and "推断" in finding.message("zh_CN")
    without_sizes = parse_op_cache_ini(b"[op_compiler_cache]\nowner=me\n", "x.ini")
    assert [f.severity for f in without_sizes.findings if f.code == "cache-ini-missing-versions"] == ["warning"]


def test_long_line_limit_is_counted_in_bytes_as_cann_reads_them():
    short = b"[op_compiler_cache]\n#" + b"x" * 1022 + b"\n"
    long = b"[op_compiler_cache]\n#" + b"x" * 1023 + b"\n"
    assert "cache-ini-long-line" not in codes(parse_op_cache_ini(short, "s"))
    assert "cache-ini-long-line" in codes(parse_op_cache_ini(long, "l"))


def test_any_other_section_makes_cann_ignore_the_file():
    # docs/cann/op-cache.md#sections: any section other than [op_compiler_cache], wherever it stands.
    for lines in ([(1, "[zz]"), (2, "a=1")], [(1, "[zz]")], []):
        view = emulate_cann([*lines, (3, "[op_compiler_cache]"), (4, "adk_version=1"), (5, "ops_version=1")])
        assert view.counts == (not lines)
    view = emulate_cann([(1, "[op_compiler_cache]"), (2, "adk_version=1"), (3, "ops_version=1"), (4, "[notes]")])
    assert not view.counts and view.stop.name == "notes" and view.stop.start_line == 4
    view = emulate_cann([(1, "[cache]"), (2, "a=1"), (3, "[op_compiler_cache]"), (4, "adk_version=1"),
                         (5, "ops_version=1")])
    assert not view.counts and view.stop is not None and view.stop.name == "cache"


def test_only_spaces_and_tabs_are_trimmed():
    view = emulate_cann([(1, "[ op_compiler_cache ]"), (2, " \tadk_version \t=\t 1 \t"), (3, "ops_version=\v2")])
    assert view.section is not None
    assert view.values["adk_version"].value == "1"
    assert view.values["ops_version"].value == "\v2"


@pytest.mark.parametrize("text, value, error, prefix", [
    ("500", 500, None, False),
    ("  500", 500, None, False),
    ("+7", 7, None, False),
    ("-1", -1, None, False),
    ("500MB", 500, None, True),
    ("500 # MB", 500, None, True),
    ("500\r", 500, None, True),
    ("0x10", 0, None, True),
    ("1e3", 1, None, True),
    ("2147483647", 2147483647, None, False),
    ("2147483648", None, "out-of-range", False),
    ("-2147483649", None, "out-of-range", False),
    ('"500"', None, "not-a-number", False),
    ("MB500", None, "not-a-number", False),
    ("", None, "not-a-number", False),
    ("٥٠٠", None, "not-a-number", False),  # Arabic-Indic digits are not ASCII digits for strtol
])
def test_cann_stoi(text, value, error, prefix):
    result = cann_stoi(text)
    assert (result.value, result.error, result.prefix_only) == (value, error, prefix)


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------


def test_new_file_is_the_documented_template_with_both_size_values():
    out = render_op_cache_ini(None, {"max_op_cache_size": 800})
    text = out.decode("utf-8")
    assert text.startswith("#配置文件格式，必须包含")
    assert "#限制某个AI处理器下缓存文件的磁盘空间的大小，整数，单位为MB\nmax_op_cache_size=800\n" in text
    assert "remain_cache_size_ratio=50\n" in text  # the default, so that CANN can use the pair
    ini = parse_op_cache_ini(out, "new.ini")
    assert not ini.counts and ini.cann_view.reason == "missing-versions"
    with_versions = parse_op_cache_ini(render_op_cache_ini(None, {**V, "max_op_cache_size": 800}), "new.ini")
    assert with_versions.counts and with_versions.findings == []
    assert values(with_versions) == {**V, "max_op_cache_size": "800", "remain_cache_size_ratio": "50"}


def test_version_lines_are_never_changed():
    ini = read_op_cache_ini(INI_DIR / "template.ini")
    with pytest.raises(UsageError, match="never changed"):
        render_op_cache_ini(ini, {"adk_version": "9.0.0"})
    assert render_op_cache_ini(ini, {"adk_version": "8.5.0"}) == ini.original


def test_no_section_gets_one_appended():
    ini = parse_op_cache_ini(b"# just a comment", "c.ini")
    out = render_op_cache_ini(ini, {"max_op_cache_size": 800, "remain_cache_size_ratio": 50})
    assert out == b"# just a comment\n[op_compiler_cache]\nmax_op_cache_size=800\nremain_cache_size_ratio=50\n"


def test_additions_keep_a_missing_final_newline_missing():
    ini = parse_op_cache_ini(b"[op_compiler_cache]\nadk_version=1\nops_version=1", "n.ini")
    out = render_op_cache_ini(ini, {"max_op_cache_size": 8, "remain_cache_size_ratio": 9})
    assert out == b"[op_compiler_cache]\nadk_version=1\nops_version=1\nmax_op_cache_size=8\nremain_cache_size_ratio=9"


def test_option_ids_map_to_ini_keys_and_other_options_are_refused():
    ini = read_op_cache_ini(INI_DIR / "template.ini")
    with pytest.raises(UsageError, match="not an op_cache.ini setting"):
        render_op_cache_ini(ini, {"static_memory_policy": 2})
    with pytest.raises(UsageError):
        render_op_cache_ini(ini, {"max_op_cache_size": 0})
    with pytest.raises(UsageError):
        render_op_cache_ini(ini, {"remain_cache_size_ratio": 101})
    assert b"max_op_cache_size=-1\n" in render_op_cache_ini(ini, {"max_op_cache_size": -1})
    assert b"max_op_cache_size=700\n" in render_op_cache_ini(ini, {"max_op_cache_size": "700"})


def test_creation_findings_offer_the_installed_versions():
    (plain,) = creation_findings({"max_op_cache_size": 500})
    assert plain.code == "cache-ini-new-without-versions" and plain.severity == "warning"
    (offer,) = creation_findings({"max_op_cache_size": 500}, installed=V)
    assert offer.code == "cache-ini-new-versions-offer"
    assert dict(offer.suggestion) == V and "adk_version=8.5.0" in offer.message("en")
    assert creation_findings({**V, "max_op_cache_size": 500}) == []


def test_installed_versions_come_from_hostprobe(tmp_path):
    def probe(root, environ):
        assert root == tmp_path and environ == {"ASCEND_OPP_PATH": "/opp"}
        return {"compiler_version": "8.5.0", "opp_version": "8.5.1", "toolkit_version": "x"}

    found = installed_op_cache_versions(tmp_path, {"ASCEND_OPP_PATH": "/opp"}, probe=probe)
    assert found == {"adk_version": "8.5.0", "ops_version": "8.5.1"}

    def broken(root, environ):
        raise OSError("boom")

    assert installed_op_cache_versions(tmp_path, {}, probe=broken) == {}


def test_installed_versions_read_real_version_info_files(tmp_path):
    (tmp_path / "opp").mkdir()
    (tmp_path / "opp" / "version.info").write_text("Version=8.5.0\n")
    found = installed_op_cache_versions(tmp_path, {"ASCEND_OPP_PATH": "/opp"})
    assert found.get("ops_version") == "8.5.0"


# ---------------------------------------------------------------------------------------------
# Unusable input
# ---------------------------------------------------------------------------------------------


def test_unusable_files_give_one_line_errors(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        read_op_cache_ini(tmp_path)
    with pytest.raises(InputError, match="cannot read"):
        read_op_cache_ini(tmp_path / "missing.ini")
    binary = tmp_path / "junk.ini"
    binary.write_bytes(b"[op_compiler_cache]\n\x00\x01\x02")
    with pytest.raises(InputError) as info:
        read_op_cache_ini(binary)
    assert info.value.line == 2 and "\n" not in str(info.value)
    big = tmp_path / "big.ini"
    big.write_bytes(b"#" * (2 << 20))
    with pytest.raises(InputError, match="too large"):
        read_op_cache_ini(big)


def test_unreadable_file(tmp_path, monkeypatch):
    path = tmp_path / "op_cache.ini"
    path.write_bytes(b"[op_compiler_cache]\n")

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    # Root reads a chmod 000 file anyway; refuse the open itself.
    import cann_config.app.io.inputfiles as inputfiles

    real_open = inputfiles.os.open

    def open_denied(name, *args, **kwargs):
        return denied() if str(name) == str(path) else real_open(name, *args, **kwargs)

    monkeypatch.setattr(inputfiles.os, "open", open_denied)
    with pytest.raises(InputError, match="Permission denied"):
        read_op_cache_ini(path)


# ---------------------------------------------------------------------------------------------
# Saving
# ---------------------------------------------------------------------------------------------


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_save_is_atomic_keeps_mode_and_backup(tmp_path):
    path = tmp_path / "op_cache.ini"
    original = (INI_DIR / "template.ini").read_bytes()
    path.write_bytes(original)
    path.chmod(0o600)
    ini = read_op_cache_ini(path)
    data = render_op_cache_ini(ini, {"max_op_cache_size": 800})
    result = save_op_cache_ini(path, data, ini.original)
    assert result.written and not result.created
    assert path.read_bytes() == data
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert result.backup == tmp_path / "op_cache.ini.bak"
    assert result.backup.read_bytes() == original
    assert stat.S_IMODE(result.backup.stat().st_mode) == 0o600
    assert _leftovers(tmp_path) == []


def test_saving_the_same_bytes_writes_nothing(tmp_path):
    path = tmp_path / "op_cache.ini"
    path.write_bytes(b"[op_compiler_cache]\n")
    before = path.stat().st_mtime_ns
    result = save_op_cache_ini(path, b"[op_compiler_cache]\n", b"[op_compiler_cache]\n")
    assert not result.written and result.backup is None
    assert path.stat().st_mtime_ns == before and not (tmp_path / "op_cache.ini.bak").exists()


def test_a_file_changed_behind_the_tools_back_is_not_overwritten(tmp_path):
    path = tmp_path / "op_cache.ini"
    path.write_bytes(b"[op_compiler_cache]\nmax_op_cache_size=500\n")
    ini = read_op_cache_ini(path)
    data = render_op_cache_ini(ini, {"max_op_cache_size": 800})
    path.write_bytes(b"[op_compiler_cache]\nmax_op_cache_size=600\n")  # someone else edits it
    with pytest.raises(FileChangedError, match="changed on disk"):
        save_op_cache_ini(path, data, ini.original)
    assert path.read_bytes() == b"[op_compiler_cache]\nmax_op_cache_size=600\n"
    assert not (tmp_path / "op_cache.ini.bak").exists() and _leftovers(tmp_path) == []


def test_a_file_removed_or_created_meanwhile_is_refused(tmp_path):
    path = tmp_path / "op_cache.ini"
    with pytest.raises(FileChangedError, match="removed"):
        save_op_cache_ini(path, b"x\n", b"old\n")
    path.write_bytes(b"someone else's\n")
    with pytest.raises(FileChangedError, match="exists already"):
        save_op_cache_ini(path, b"x\n", None)
    assert path.read_bytes() == b"someone else's\n"


def test_creating_a_file_uses_canns_mode(tmp_path):
    path = tmp_path / "op_cache.ini"
    result = save_op_cache_ini(path, b"[op_compiler_cache]\n", None)
    assert result.created and result.backup is None
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    with pytest.raises(InputError, match="directory does not exist"):
        save_op_cache_ini(tmp_path / "nope" / "op_cache.ini", b"x", None)


@pytest.mark.parametrize("broken", ["replace", "fsync", "write"])
def test_a_save_interrupted_midway_leaves_the_old_file_intact(tmp_path, monkeypatch, broken):
    path = tmp_path / "op_cache.ini"
    original = b"[op_compiler_cache]\nmax_op_cache_size=500\n"
    path.write_bytes(original)
    new = b"[op_compiler_cache]\nmax_op_cache_size=800\n"

    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")

    if broken == "replace":
        real = os.replace
        # Let the backup through, fail the real file's rename.
        monkeypatch.setattr(os, "replace", lambda src, dst: fail() if Path(dst) == path else real(src, dst))
    elif broken == "fsync":
        monkeypatch.setattr(os, "fsync", fail)
    else:
        real_fdopen = os.fdopen
        calls = []

        class HalfWriter:
            """Writes half of the data, then the disk fills up (on the second file: after the backup)."""

            def __init__(self, handle):
                self.handle = handle

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.handle.close()

            def write(self, data):
                calls.append(len(data))
                if len(calls) == 2:
                    self.handle.write(data[:len(data) // 2])
                    self.handle.flush()
                    fail()
                return self.handle.write(data)

            def __getattr__(self, name):
                return getattr(self.handle, name)

        monkeypatch.setattr(os, "fdopen", lambda fd, mode: HalfWriter(real_fdopen(fd, mode)))
    with pytest.raises(InputError, match="No space left"):
        save_op_cache_ini(path, new, original)
    assert path.read_bytes() == original
    assert _leftovers(tmp_path) == []


def test_save_follows_a_symlink_and_keeps_it(tmp_path):
    real = tmp_path / "real.ini"
    real.write_bytes(b"[op_compiler_cache]\n")
    link = tmp_path / "op_cache.ini"
    link.symlink_to(real)
    save_op_cache_ini(link, b"[op_compiler_cache]\nmax_op_cache_size=1\n", b"[op_compiler_cache]\n")
    assert link.is_symlink() and real.read_bytes().endswith(b"=1\n")


# ---------------------------------------------------------------------------------------------
# Properties: nothing crashes, an unchanged round trip is identical, an edit stays local
# ---------------------------------------------------------------------------------------------

TRICKY_LINES = [
    "[op_compiler_cache]", "[ op_compiler_cache ]", "  [op_compiler_cache]", "[op_compiler_cache", "[other]", "[]",
    "[[nested]]", "adk_version=8.5.0", "ops_version = 8.5.0", "max_op_cache_size=500", "max_op_cache_size = 800 # MB",
    "remain_cache_size_ratio=50", "remain_cache_size_ratio=", "=5", "max_op_cache_size", "# comment", "  # comment",
    "#配置文件格式，必须包含", "key=\"quoted #\"", "max_op_cache_size=\"500", "\ufeff[op_compiler_cache]", "   ", "",
    "\t\tremain_cache_size_ratio\t=\t70\t", "a=b=c", "MAX_OP_CACHE_SIZE=1",
]
ENDINGS = ["\n", "\r\n", "\r", ""]


@st.composite
def ini_bytes(draw):
    free = st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=30)
    lines = draw(st.lists(st.one_of(st.sampled_from(TRICKY_LINES), free), max_size=12))
    endings = draw(st.lists(st.sampled_from(ENDINGS), min_size=len(lines), max_size=len(lines)))
    text = "".join(line + end for line, end in zip(lines, endings, strict=True))
    data = text.encode("utf-8")
    if draw(st.booleans()):
        data = BOM + data
    return data


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_random_bytes_never_crash_and_round_trip(data):
    try:
        ini = parse_op_cache_ini(data, "random.ini")
    except InputError as exc:
        assert b"\x00" in data and "\n" not in str(exc)
        return
    assert render_op_cache_ini(ini, {}) == data
    for finding in ini.findings:
        assert finding.message("en") and finding.message("zh_CN")


def _rewritten_lines(old: list[bytes], new: list[bytes]) -> int | None:
    """The fewest old lines rewritten when `new` is `old` with lines inserted and some rewritten in
    place (every old line kept, in order, as one new line); None when `new` loses an old line.

    Not difflib: SequenceMatcher does not find the smallest diff when lines repeat (three identical
    lines with one inserted after the first came out as an insert and a delete)."""
    missing = len(old) + 1  # more than any real count: "cannot be aligned"
    # best[i][j]: fewest rewrites placing old[:i] on new[:j]
    best = [[0] * (len(new) + 1)] + [[missing] * (len(new) + 1) for _ in old]
    for i in range(1, len(old) + 1):
        for j in range(i, len(new) + 1):
            best[i][j] = min(best[i][j - 1], best[i - 1][j - 1] + (old[i - 1] != new[j - 1]))
    return None if best[len(old)][len(new)] >= missing else best[len(old)][len(new)]


def test_rewritten_lines_counts_what_changed():
    a, b, k = b"a\n", b"b\n", b"k\n"
    assert _rewritten_lines([a, a, a], [a, k, a, a]) == 0
    assert _rewritten_lines([a, b], [a, k]) == 1
    assert _rewritten_lines([a, b, a], [a, a]) is None
    assert _rewritten_lines([a, b], [b, a]) == 2


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ini_bytes(), st.integers(min_value=1, max_value=10**6))
@example(data=b"\xef\xbb\xbf[op_compiler_cache]\n" * 3, number=1)  # a BOM before each header line
def test_mutated_files_round_trip_and_edit_locally(data, number):
    ini = parse_op_cache_ini(data, "mutated.ini")
    assert render_op_cache_ini(ini, {}) == data
    out = render_op_cache_ini(ini, {"max_op_cache_size": number})
    again = parse_op_cache_ini(out, "edited.ini")
    entry = again.layout.values.get("max_op_cache_size")
    assert entry is not None and cann_stoi(entry.value).value == number
    # No line lost: lines inserted, and at most one existing line rewritten (plus, at most, a line end
    # added to the last line).
    rewritten = _rewritten_lines(_lines(data), _lines(out))
    assert rewritten is not None and rewritten <= 2


@pytest.mark.parametrize("name", GOLDEN)
def test_findings_render_in_both_languages(name):
    for finding in read_op_cache_ini(INI_DIR / name).findings:
        assert finding.message("en") != finding.message("zh_CN")
        assert "{" not in finding.message("en") and "{" not in finding.message("zh_CN")


@pytest.mark.parametrize("data", [b"[op_compiler_cache]", b"[op_compiler_cache]\n", b"# c\n[op_compiler_cache]\r\n",
                                  b"[op_compiler_cache]\n[op_compiler_cache]\nx\n", b"[op_compiler_cache]\n\n# end\n"])
def test_keys_go_under_a_header_that_has_none_never_under_a_second_one(data):
    ini = parse_op_cache_ini(data, "op_cache.ini")
    out = render_op_cache_ini(ini, {"adk_version": "9.0.0", "ops_version": "9.0.0", "max_op_cache_size": 600,
                                    "remain_cache_size_ratio": 60})
    assert out.count(b"[op_compiler_cache]") == data.count(b"[op_compiler_cache]")
    assert out.startswith(data.split(b"[op_compiler_cache]")[0] + b"[op_compiler_cache]")
    again = parse_op_cache_ini(out, "op_cache.ini")
    assert again.cann_view.counts
    assert {k: e.value.rstrip("\r") for k, e in again.cann_view.values.items()} == {
        "adk_version": "9.0.0", "ops_version": "9.0.0", "max_op_cache_size": "600", "remain_cache_size_ratio": "60"}
    assert out.endswith(b"\n") == data.endswith(b"\n")
