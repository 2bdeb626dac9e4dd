"""Issue 14, "never confidently wrong", through the CLI: what CANN reads, what it runs with, what a
save writes. Each test runs `cann-config` in-process (app.cli.main) on files in tmp_path."""

import json
import shutil
from pathlib import Path

from cann_config.app.cli import main

DATA = Path(__file__).resolve().parents[2] / "data"
SCRIPT = DATA / "scripts" / "train_estimator.py"  # static_memory_policy=2


def diagnose_json(capsys, *args):
    code = main(["diagnose", "--json", "--lang", "en", *args])
    return code, json.loads(capsys.readouterr().out)


def found(report, code):
    return [f for f in report["findings"] if f["code"] == code]


# -- item 8: GE_USE_STATIC_MEMORY: the docs' conflict and the union GE runs with ----------------


def test_env_file_legacy_variable_with_script_policy_says_conflict_and_union(tmp_path, capsys):
    env = tmp_path / "job.env"
    env.write_text("export GE_USE_STATIC_MEMORY=3\n")
    _, report = diagnose_json(capsys, "--env-file", str(env), "--script", str(SCRIPT))
    (finding,) = found(report, "cache-env-static-memory-conflict")
    assert "must not be combined" in finding["message"] and "merges them" in finding["message"]
    assert finding["file"] == str(env) and finding["line"] == 1
    # env 3 (dynamic) + option 2 (static) behaves as 4 (docs/cann/memory.md#static-memory-union)
    assert report["effective"]["static_memory_policy"]["value"] == 4


def test_script_setting_both_gets_the_conflict_and_the_union(tmp_path, capsys):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT.read_text().replace(
        'os.environ["ASCEND_CACHE_PATH"] = "/fallback/cache"\n',
        'os.environ["ASCEND_CACHE_PATH"] = "/fallback/cache"\nos.environ["GE_USE_STATIC_MEMORY"] = "3"\n'))
    _, report = diagnose_json(capsys, "--env-file", str(_empty(tmp_path)), "--script", str(script))
    (finding,) = found(report, "cache-env-static-memory-conflict")
    assert "static_memory_policy=2" in finding["message"] and "must not be combined" in finding["message"]
    assert report["effective"]["static_memory_policy"]["value"] == 4


def _empty(tmp_path):
    path = tmp_path / "empty.env"
    path.write_text("")
    return path


# -- items 2 and 3: what `export op-cache-ini` writes -------------------------------------------


def export(capsysbinary, *args):
    code = main(["export", "op-cache-ini", "--lang", "en", *args])
    out, err = capsysbinary.readouterr()
    return code, out, err.decode()


def test_new_file_without_known_versions_is_refused_and_names_the_flags(capsysbinary, tmp_path):
    # Issue 24 item 6: a file CANN would ignore is never written with exit 0 (no file, no stdout).
    code, out, err = export(capsysbinary, "--set", "max_op_cache_size=1000")
    assert code == 1 and out == b""
    assert "Not saved: CANN would ignore the file" in err and "nothing exported" in err
    assert "--add-versions" in err and "--adk-version" in err and "--ops-version" in err
    assert "ASCEND_MAX_OP_CACHE_SIZE" in err and "env-bash" in err  # the environment route
    target = tmp_path / "op_cache.ini"
    code, out, err = export(capsysbinary, "--set", "max_op_cache_size=1000", "-o", str(target))
    assert code == 1 and not target.exists() and list(tmp_path.iterdir()) == []


def test_edit_of_a_file_with_a_foreign_section_is_refused_and_nothing_is_written(capsysbinary, tmp_path):
    ini = tmp_path / "op_cache.ini"
    original = (b"[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\nmax_op_cache_size=800\n"
                b"remain_cache_size_ratio=60\n[other]\nx=1\n")
    ini.write_bytes(original)
    code, out, err = export(capsysbinary, "--ini", str(ini), "--set", "max_op_cache_size=1000", "-o", str(ini))
    assert code == 1 and "Not saved: CANN would ignore the file" in err and "[other]" in err
    assert f"{ini}:6" in err
    assert ini.read_bytes() == original and sorted(p.name for p in tmp_path.iterdir()) == ["op_cache.ini"]
    code, out, _ = export(capsysbinary, "--ini", str(ini), "--set", "max_op_cache_size=1000")
    assert code == 1 and out == b""


def test_versions_given_on_the_command_line_make_a_file_cann_uses(capsysbinary, tmp_path):
    from cann_config.app.opcache.ini import parse_op_cache_ini

    code, out, err = export(capsysbinary, "--set", "max_op_cache_size=1000", "--adk-version", "8.5.0",
                            "--ops-version", "8.5.1")
    assert code == 0, err
    assert parse_op_cache_ini(out, "out").counts
    assert "CANN will ignore the saved file" not in err and "--add-versions" not in err
    code, _, err = export(capsysbinary, "--adk-version", "8.5.0")
    assert code == 2 and "go together" in err


def test_editing_only_the_max_also_writes_the_ratio_cann_uses_now(capsysbinary, tmp_path, monkeypatch):
    monkeypatch.delenv("ASCEND_REMAIN_CACHE_SIZE_RATIO", raising=False)
    ini = tmp_path / "op_cache.ini"
    ini.write_bytes(b"[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\nmax_op_cache_size=800\n")
    code, out, err = export(capsysbinary, "--ini", str(ini), "--set", "max_op_cache_size=1000")
    assert code == 0 and out.endswith(b"max_op_cache_size=1000\nremain_cache_size_ratio=50\n")
    assert "also writes remain_cache_size_ratio=50" in err


def test_output_onto_an_existing_file_edits_it_and_keeps_a_backup(capsysbinary, tmp_path):
    ini = tmp_path / "op_cache.ini"
    original = (b"# ours\n[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n"
                b"max_op_cache_size=800 # MB\nremain_cache_size_ratio=60\n")
    ini.write_bytes(original)
    code, out, err = export(capsysbinary, "--set", "remain_cache_size_ratio=70", "-o", str(ini))
    assert code == 0, err
    assert ini.read_bytes() == original.replace(b"ratio=60", b"ratio=70")  # versions, max, comments kept
    assert (tmp_path / "op_cache.ini.bak").read_bytes() == original


def test_output_onto_a_file_that_is_not_an_op_cache_ini_is_refused_untouched(capsysbinary, tmp_path):
    target = tmp_path / "op_cache.ini"
    target.write_bytes(b"\x00binary")
    code, _, err = export(capsysbinary, "--set", "remain_cache_size_ratio=70", "-o", str(target))
    assert code == 2 and err.count("\n") == 1 and str(target) in err
    assert target.read_bytes() == b"\x00binary"


def test_edit_never_activates_keys_outside_a_section(capsysbinary, tmp_path):
    ini = tmp_path / "op_cache.ini"
    original = b"remain_cache_size_ratio=80\n"
    ini.write_bytes(original)
    code, _, err = export(capsysbinary, "--ini", str(ini), "--set", "max_op_cache_size=1000", "-o", str(ini),
                          "--adk-version", "8.5.0", "--ops-version", "8.5.0")
    assert code == 2 and "remain_cache_size_ratio=80" in err and "outside any section" in err
    assert ini.read_bytes() == original


def test_edit_of_a_file_with_a_bom_or_cr_line_ends_is_refused_with_the_reason(capsysbinary, tmp_path):
    body = b"[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\nmax_op_cache_size=800\nremain_cache_size_ratio=60\n"
    for name, data, reason in (("bom.ini", b"\xef\xbb\xbf" + body, "UTF-8 BOM"),
                               ("cr.ini", body.replace(b"\n", b"\r"), "CR only")):
        ini = tmp_path / name
        ini.write_bytes(data)
        code, _, err = export(capsysbinary, "--ini", str(ini), "--set", "max_op_cache_size=1000", "-o", str(ini))
        # CANN would ignore the file written: refused like any such save (exit 1), nothing written
        assert code == 1 and reason in err and str(ini) in err and "CANN would ignore" in err, err
        assert ini.read_bytes() == data
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".bak")]


# -- item 1: an op_cache.ini that is not the one CANN reads ---------------------------------------

GOOD = (b"[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n"
        b"max_op_cache_size=400\nremain_cache_size_ratio=60\n")


def test_diagnose_ini_with_cache_dir_is_read_only_at_that_base_whatever_its_name(capsys, tmp_path, monkeypatch):
    # Issue 24 item 5: `--ini other.ini --cache-dir BASE`, or an op_cache.ini in another kernel_cache:
    # not read by CANN, its sizes not used, and the output names BASE/kernel_cache/op_cache.ini.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO"):
        monkeypatch.delenv(name, raising=False)
    base = tmp_path / "base"
    cann_path = base / "kernel_cache" / "op_cache.ini"
    other = tmp_path / "else" / "other.ini"
    in_other_kernel_cache = tmp_path / "else" / "kernel_cache" / "op_cache.ini"
    in_other_kernel_cache.parent.mkdir(parents=True)
    for given in (other, in_other_kernel_cache):
        given.write_bytes(GOOD.replace(b"=400", b"=600"))
        code, report = diagnose_json(capsys, "--ini", str(given), "--cache-dir", str(base))
        (finding,) = found(report, "cache-ini-not-read")
        assert finding["severity"] == "warning" and finding["file"] == str(given)
        assert str(cann_path) in finding["message"] and "--cache-dir" in finding["message"]
        ini = report["op_cache_ini"]
        assert (ini["read_by_cann"], ini["used_by_cann"], ini["reason"]) == (False, False, "not-read-by-cann")
        assert (ini["cann_path"], ini["base_from"]) == (str(cann_path), "--cache-dir")
        assert report["effective"]["max_op_cache_size"]["value"] == 500  # not the given file's 600
        assert report["effective"]["max_op_cache_size"]["source"] == "default"
        main(["diagnose", "--lang", "en", "--ini", str(given), "--cache-dir", str(base)])
        text = capsys.readouterr().out
        assert "(CANN uses it)" not in text and f"not read by CANN: it reads {cann_path}" in text
    # The file CANN reads at that base decides once it exists; given at its place, it is read.
    cann_path.parent.mkdir(parents=True)
    cann_path.write_bytes(GOOD)
    _, report = diagnose_json(capsys, "--ini", str(other), "--cache-dir", str(base))
    assert report["effective"]["max_op_cache_size"]["value"] == 400
    assert report["effective"]["max_op_cache_size"]["file"] == str(cann_path)
    _, report = diagnose_json(capsys, "--ini", str(cann_path), "--cache-dir", str(base))
    assert not found(report, "cache-ini-not-read") and report["op_cache_ini"]["used_by_cann"] is True


def test_diagnose_ini_without_a_comparable_base_says_how_it_was_taken(capsys, tmp_path):
    # An env file is another machine's environment: its paths are not compared with this one's.
    env = tmp_path / "job.env"
    env.write_text("export ASCEND_CACHE_PATH=/data/cache\n")
    copy = tmp_path / "from-customer.ini"
    copy.write_bytes(GOOD)
    _, report = diagnose_json(capsys, "--ini", str(copy), "--env-file", str(env))
    (finding,) = found(report, "cache-ini-taken-as-read")
    assert "/data/cache/kernel_cache/op_cache.ini" in finding["message"] and finding["severity"] == "info"
    assert report["op_cache_ini"]["read_by_cann"] is True and report["op_cache_ini"]["base_from"] == "given-environment"
    assert report["effective"]["max_op_cache_size"]["value"] == 400
    # No base known at all (no HOME, no ASCEND_CACHE_PATH in the file): taken from the file's place.
    env.write_text("export ASCEND_MAX_OP_CACHE_SIZE=700\n")
    placed = tmp_path / "cust" / "kernel_cache" / "op_cache.ini"
    placed.parent.mkdir(parents=True)
    placed.write_bytes(GOOD)
    _, report = diagnose_json(capsys, "--ini", str(placed), "--env-file", str(env))
    (finding,) = found(report, "cache-ini-base-from-location")
    assert str(tmp_path / "cust") in finding["message"]
    assert report["op_cache_ini"]["base_from"] == "ini-location" and report["op_cache_ini"]["used_by_cann"] is True
    assert report["effective"]["max_op_cache_size"]["value"] == 400


def test_diagnose_ini_elsewhere_is_not_read_and_its_values_are_not_used(capsys, tmp_path, monkeypatch):
    base = tmp_path / "cache"
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(base))
    monkeypatch.delenv("ASCEND_MAX_OP_CACHE_SIZE", raising=False)
    monkeypatch.delenv("ASCEND_REMAIN_CACHE_SIZE_RATIO", raising=False)
    elsewhere = tmp_path / "some" / "where" / "op_cache.ini"
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_bytes(GOOD)
    _, report = diagnose_json(capsys, "--ini", str(elsewhere))
    cann_path = str(base / "kernel_cache" / "op_cache.ini")
    (finding,) = found(report, "cache-ini-not-read")
    assert cann_path in finding["message"] and finding["file"] == str(elsewhere)
    assert report["op_cache_ini"]["used_by_cann"] is False and report["op_cache_ini"]["read_by_cann"] is False
    assert report["effective"]["max_op_cache_size"]["source"] == "default"
    assert report["effective"]["max_op_cache_size"]["value"] == 500
    main(["diagnose", "--lang", "en", "--ini", str(elsewhere)])
    text = capsys.readouterr().out
    assert "(CANN uses it)" not in text and f"not read by CANN: it reads {cann_path}" in text
    # The same file where CANN reads it: used, no such finding.
    (base / "kernel_cache").mkdir(parents=True)
    shutil.copy(elsewhere, cann_path)
    _, report = diagnose_json(capsys, "--ini", cann_path)
    assert not found(report, "cache-ini-not-read")
    assert report["effective"]["max_op_cache_size"] == {**report["effective"]["max_op_cache_size"],
                                                       "value": 400, "source": "op_cache.ini"}
    # And given elsewhere again: CANN's own file (now present) decides, not the given one.
    elsewhere.write_bytes(GOOD.replace(b"=400", b"=900"))
    _, report = diagnose_json(capsys, "--ini", str(elsewhere))
    assert report["effective"]["max_op_cache_size"]["value"] == 400
    assert report["effective"]["max_op_cache_size"]["file"] == cann_path


def test_the_report_says_not_read_as_diagnose_does(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ASCEND_CACHE_PATH", raising=False)
    other = tmp_path / "other.ini"
    other.write_bytes(GOOD)
    report = tmp_path / "report.html"
    main(["diagnose", "--lang", "en", "--ini", str(other), "--cache-dir", str(tmp_path / "base"),
          "--report", str(report)])
    text = report.read_text(encoding="utf-8")
    assert "CANN uses it" not in text and "not read by CANN" in text
    assert str(tmp_path / "base" / "kernel_cache" / "op_cache.ini") in text
