"""The cleanup prediction replays CANN's cleaner (te_cache_space_manager.cc) on a scanned tree;
every expected number below is worked out by hand from the file sizes the fixture writes.

These trees are scanned as if on a `noatime` mount (tests/conftest.py), where CANN deletes by the
access-time keys alone; what CANN's own read does on `relatime` and `strictatime` mounts is tested in
test_cleanup_atime.py."""

import json
import os
from pathlib import Path

import pytest

from cann_config.app.opcache.cleanup import (
    NOTE_BAD_JSON,
    NOTE_BIN_MISSING,
    NOTE_NO_BIN_NAME,
    NOTE_NOT_READ,
    _read_json,
    cache_findings,
    predict_cleanup,
    resolve_group,
)
from cann_config.app.opcache.scanner import JsonEntry, MountInfo, scan_to_end

NOW = 1_700_000_000

MiB = 1024 * 1024  # written out, not app.units.CANN_MB: the test states CANN's unit itself


def put(path: Path, data: bytes, atime: int | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if atime is not None:
        os.utime(path, (atime, atime))


def json100(doc: object) -> bytes:
    """A json document padded with spaces to exactly 100 bytes (sizes stay hand-computable)."""
    text = json.dumps(doc).encode()
    assert len(text) <= 100
    return text + b" " * (100 - len(text))


@pytest.fixture
def soc_dir(tmp_path):
    """One SoC dir; json sizes are 100 bytes each.

    group            json atime     files (bytes)                                        CANN bytes
    old_a            NOW-10000      old_a.json 100, old_a.o 400,000                        400,100
    k (jsonList)     NOW-9000       k.json 100, k_mix_aic.json 100, k_mix_aic.o 300,000,
                                    k_mix_aiv.json 100, k_mix_aiv.o 200,000                500,300
    p_pre            NOW-8000       p_pre.json 100 (alone)                                     100
    bad              NOW-7000       bad.json 100 (not JSON)                                    100
    recent           NOW-100        recent.json 100, recent.o 300,000                      300,100
    total used (CANN's count) = 1,200,700 bytes
    """
    root = tmp_path / "kernel_cache"
    soc = root / "Ascend910B3"
    meta = soc / "kernel_meta"
    put(meta / "old_a.json", json100({"binFileName": "old_a", "binFileSuffix": ".o"}), NOW - 10_000)
    put(meta / "old_a.o", b"o" * 400_000)
    put(meta / "k.json", json100({"jsonList": [{"jsonFileName": "k_mix_aic.json"},
                                               {"jsonFileName": "k_mix_aiv.json"}]}), NOW - 9_000)
    put(meta / "k_mix_aic.json", json100({"binFileName": "k_mix_aic", "binFileSuffix": ".o"}), NOW - 50)
    put(meta / "k_mix_aic.o", b"a" * 300_000)
    put(meta / "k_mix_aiv.json", json100({"binFileName": "k_mix_aiv", "binFileSuffix": ".o"}), NOW - 50)
    put(meta / "k_mix_aiv.o", b"v" * 200_000)
    put(soc / "p_pre.json", json100({"binFileName": "never_read", "binFileSuffix": ".o"}), NOW - 8_000)
    put(soc / "bad.json", b"{" + b"x" * 99, NOW - 7_000)
    put(soc / "recent.json", json100({"binFileName": "recent", "binFileSuffix": ".o"}), NOW - 100)
    put(soc / "recent.o", b"r" * 300_000)
    return root


def scanned(root: Path):
    return scan_to_end(root).socs["Ascend910B3"]


def names(groups):
    return [Path(g.json_path).name for g in groups]


def test_used_bytes_is_canns_count(soc_dir):
    assert scanned(soc_dir).cann_bytes == 1_200_700


def test_prediction_with_ratio_50_matches_the_hand_computation(soc_dir):
    pred = predict_cleanup(scanned(soc_dir), max_mb=1, ratio=50, now=NOW)
    # max = 1 MiB = 1,048,576 <= 1,200,700: triggers; keep = 1,048,576 * 50 // 100 = 524,288
    assert pred.triggers and pred.max_bytes == MiB and pred.keep_threshold_bytes == 524_288
    assert pred.target_bytes == 1_200_700 - 524_288 == 676_412
    # old_a (400,100) is not enough; with k (500,300) the count is 900,400 >= 676,412: stop.
    assert names(pred.delete) == ["old_a.json", "k.json"]
    assert pred.counted_bytes == pred.freed_bytes == 900_400
    assert pred.target_reached
    # mix jsons are not candidates of their own; recent.json is kept (used 100 s ago)
    assert pred.candidates == 5
    assert names(pred.kept_recent) == ["recent.json"] and pred.kept_recent_bytes == 300_100
    assert round(pred.percent_of_limit, 1) == 114.5  # above 100 % is normal


def test_group_members_follow_json_list_and_bin_names(soc_dir):
    pred = predict_cleanup(scanned(soc_dir), max_mb=1, ratio=50, now=NOW)
    old_a, k = pred.delete
    assert [Path(m.path).name for m in old_a.members] == ["old_a.json", "old_a.o"]
    assert [(Path(m.path).name, m.size) for m in k.members] == [
        ("k.json", 100), ("k_mix_aic.json", 100), ("k_mix_aic.o", 300_000),
        ("k_mix_aiv.json", 100), ("k_mix_aiv.o", 200_000)]
    assert k.atime == NOW - 9_000


def test_a_high_ratio_deletes_one_group(soc_dir):
    pred = predict_cleanup(scanned(soc_dir), max_mb=1, ratio=90, now=NOW)
    # keep = 1,048,576 * 90 // 100 = 943,718; target = 256,982 <= 400,100 (old_a alone)
    assert pred.target_bytes == 256_982
    assert names(pred.delete) == ["old_a.json"] and pred.counted_bytes == 400_100


def test_a_low_ratio_stops_at_the_first_recent_group(soc_dir):
    pred = predict_cleanup(scanned(soc_dir), max_mb=1, ratio=1, now=NOW)
    # keep = 10,485; target = 1,190,215; the old groups CANN deletes are 900,400: short of it.
    assert pred.target_bytes == 1_190_215
    # p_pre.json and bad.json are skipped: GetFilesAccessTime `continue`s before the insert, so
    # they are never deleted and never counted.
    assert names(pred.delete) == ["old_a.json", "k.json"]
    assert pred.counted_bytes == 900_400 and not pred.target_reached
    assert names(pred.kept_recent) == ["recent.json"]
    assert (pred.skipped_pre, pred.skipped_unparsed) == (1, 1)
    assert pred.bad_json == (str(soc_dir / "Ascend910B3" / "bad.json"),)


def test_below_the_limit_nothing_triggers(soc_dir):
    pred = predict_cleanup(scanned(soc_dir), max_mb=2, ratio=50, now=NOW)
    assert not pred.triggers and pred.delete == () and pred.target_bytes == 0
    assert pred.keep_threshold_bytes == MiB
    assert round(pred.percent_of_limit, 1) == 57.3


def test_exactly_at_the_limit_triggers(tmp_path):
    put(tmp_path / "kernel_cache" / "S" / "a.json", json100({"binFileName": "a", "binFileSuffix": ".o"}), NOW - 4000)
    put(tmp_path / "kernel_cache" / "S" / "a.o", b"x" * (MiB - 100))
    soc = scan_to_end(tmp_path / "kernel_cache").socs["S"]
    pred = predict_cleanup(soc, max_mb=1, ratio=100, now=NOW)
    # size >= max triggers; target = size - max * 100 / 100 = 0, and CANN still deletes the
    # first old group before it compares (the check follows the deletion).
    assert pred.triggers and pred.target_bytes == 0 and names(pred.delete) == ["a.json"]


def test_ageing_off_never_triggers(soc_dir):
    pred = predict_cleanup(scanned(soc_dir), max_mb=-1, ratio=50, now=NOW)
    assert not pred.ageing and not pred.triggers and pred.max_bytes is None
    assert pred.percent_of_limit is None


def test_the_thirty_minute_boundary(tmp_path):
    soc = tmp_path / "kernel_cache" / "S"
    put(soc / "edge.json", json100({"binFileName": "edge", "binFileSuffix": ".o"}), NOW - 1800)
    put(soc / "edge.o", b"x" * MiB)
    put(soc / "young.json", json100({"binFileName": "young", "binFileSuffix": ".o"}), NOW - 1799)
    put(soc / "young.o", b"x" * MiB)
    pred = predict_cleanup(scan_to_end(tmp_path / "kernel_cache").socs["S"], max_mb=1, ratio=1, now=NOW + 0.9)
    # diff < 1800 keeps a group: 1800 s old goes, 1799 s old stays (whole seconds, as CANN's time_t)
    assert names(pred.delete) == ["edge.json"] and names(pred.kept_recent) == ["young.json"]


def test_reading_jsons_leaves_their_access_time_alone(soc_dir):
    soc = scanned(soc_dir)
    before = {e.path: os.stat(e.path).st_atime for e in soc.json_candidates()}
    predict_cleanup(soc, max_mb=1, ratio=1, now=NOW)
    after = {p: os.stat(p).st_atime for p in before}
    assert after == before
    sub = soc_dir / "Ascend910B3" / "kernel_meta" / "k_mix_aic.json"
    assert os.stat(sub).st_atime == NOW - 50


def test_group_notes(tmp_path):
    d = tmp_path
    put(d / "nobin.json", json100({"blockDim": 1}))
    put(d / "missing.json", json100({"binFileName": "gone", "binFileSuffix": ".o"}))
    put(d / "list.json", json100({"jsonList": [{"jsonFileName": "absent.json"}, {"other": 1}]}))
    put(d / "array.json", b"[1, 2]")
    put(d / "typed.json", json100({"binFileName": 3, "binFileSuffix": ".o"}))

    def group(name):
        path = d / name
        return resolve_group(JsonEntry(str(path), NOW, path.stat().st_size))

    assert group("nobin.json").notes == (NOTE_NO_BIN_NAME,)
    assert group("missing.json").notes == (NOTE_BIN_MISSING,)
    assert group("list.json").notes == (NOTE_BIN_MISSING, NOTE_BAD_JSON)
    assert group("array.json").notes == (NOTE_NO_BIN_NAME,)
    assert group("typed.json").notes == (NOTE_BAD_JSON,)
    assert all(len(group(n).members) == 1 for n in ("nobin.json", "missing.json", "list.json", "typed.json"))


def test_a_json_that_would_lose_its_access_time_is_not_read(tmp_path):
    path = tmp_path / "k.json"
    put(path, json100({"binFileName": "k", "binFileSuffix": ".o"}))
    put(tmp_path / "k.o", b"x" * 10)
    assert _read_json(str(path)) == {"binFileName": "k", "binFileSuffix": ".o"}

    def refuse(_path):
        from cann_config.app.opcache import cleanup
        return cleanup._NOT_READ

    g = resolve_group(JsonEntry(str(path), NOW, 100), read_json=refuse)
    assert g.notes == (NOTE_NOT_READ,) and len(g.members) == 1


def test_a_symlinked_json_is_not_followed(tmp_path):
    put(tmp_path / "real.json", json100({"binFileName": "k", "binFileSuffix": ".o"}))
    os.symlink("real.json", tmp_path / "link.json")
    assert _read_json(str(tmp_path / "link.json")) is None


def finding_codes(findings):
    return sorted(f.code for f in findings)


def test_findings_over_limit_short_and_unparsed(soc_dir):
    usage = scan_to_end(soc_dir)
    preds = {name: predict_cleanup(soc, 1, 1, now=NOW) for name, soc in usage.socs.items()}
    found = cache_findings(usage, preds, 1)
    assert finding_codes(found) == ["scan-cleanup-short-recent", "scan-json-unparsed", "scan-over-limit"]
    over = next(f for f in found if f.code == "scan-over-limit")
    assert "115 %" in over.message("en") and over.severity == "info"
    assert "115 %" in over.message("zh_CN")


def test_findings_limit_above_free_space_nfs_and_other_users(soc_dir):
    usage = scan_to_end(soc_dir)
    usage.free_bytes = 100 * MiB
    usage.mount = MountInfo("nas:/c", "/c", "nfs", ("rw", "vers=3"))
    usage.socs["Ascend910B3"].other_users_files = 3
    usage.other_uids = (1001,)
    found = cache_findings(usage, {}, 500)
    assert finding_codes(found) == ["scan-limit-above-free", "scan-nfs-v3-locks", "scan-other-users"]
    assert all(f.severity == "warning" for f in found)
    assert "500 MB" in found[0].message("en") and "100 MB" in found[0].message("en")
    assert cache_findings(usage, {}, -1)[0].code != "scan-limit-above-free"


def test_findings_when_nothing_but_orphans_remain(tmp_path):
    put(tmp_path / "kernel_cache" / "S" / "orphan.bin", b"x" * (2 * MiB))
    usage = scan_to_end(tmp_path / "kernel_cache")
    preds = {"S": predict_cleanup(usage.socs["S"], 1, 50, now=NOW)}
    assert preds["S"].triggers and preds["S"].delete == ()
    assert "scan-cleanup-short-no-groups" in finding_codes(cache_findings(usage, preds, 1))


def test_repeated_predictions_read_each_json_once(soc_dir):
    soc = scanned(soc_dir)
    reads = []

    def counting(path):
        reads.append(path)
        return _read_json(path)

    first = predict_cleanup(soc, 1, 1, now=NOW, read_json=counting)
    count = len(reads)
    assert count > 0
    again = predict_cleanup(soc, 1, 1, now=NOW, read_json=counting)
    other = predict_cleanup(soc, 1, 90, now=NOW, read_json=counting)
    assert len(reads) == count  # the wizard recomputes on every limit change without re-reading
    assert again == first and names(other.delete) == ["old_a.json"]


def test_symlinks_are_reported_also_at_the_kernel_cache_level(tmp_path):
    kc = tmp_path / "kernel_cache"
    (tmp_path / "elsewhere").mkdir()
    put(kc / "S" / "a.o", b"x")
    os.symlink(tmp_path / "elsewhere", kc / "Ascend910B4")  # a SoC dir moved to another disk
    usage = scan_to_end(kc)
    assert "Ascend910B4" not in usage.socs
    (found,) = [f for f in cache_findings(usage, {}, 500) if f.code == "scan-symlinks"]
    assert "1 symbolic links" in found.message("en")


# ---------------------------------------------------------------------------------------------
# Bounding the prediction (should_stop)
# ---------------------------------------------------------------------------------------------


def stop_after(groups: int):
    """A should_stop that lets `groups` json groups be read, then says stop; it records its calls."""
    calls = []

    def should_stop():
        calls.append(1)
        return len(calls) > groups

    should_stop.calls = calls
    return should_stop


def test_a_stopped_prediction_says_so_and_keeps_what_it_read(soc_dir):
    # Reading order (oldest first): old_a, k, p_pre, bad, then the recent group.
    pred = predict_cleanup(scanned(soc_dir), 1, 1, now=NOW, should_stop=stop_after(2))
    assert pred.stopped and not pred.target_reached
    assert names(pred.delete) == ["old_a.json", "k.json"] and pred.kept_recent == ()
    assert pred.counted_bytes == 400_100 + 500_300
    assert pred.to_json()["stopped"] is True


def test_stopping_among_the_recent_groups_keeps_a_complete_delete_list(soc_dir):
    # old_a, k and bad.json are read before the 30-minute boundary; recent.json is the fourth
    pred = predict_cleanup(scanned(soc_dir), 1, 1, now=NOW, should_stop=stop_after(3))
    full = predict_cleanup(scanned(soc_dir), 1, 1, now=NOW)
    assert pred.stopped and not full.stopped and full.to_json()["stopped"] is False
    assert pred.delete == full.delete and pred.kept_recent == () and names(full.kept_recent) == ["recent.json"]


def test_should_stop_is_asked_once_per_group_read_and_never_for_groups_already_read(soc_dir):
    soc = scanned(soc_dir)
    ask = stop_after(100)
    first = predict_cleanup(soc, 1, 1, now=NOW, should_stop=ask)
    assert not first.stopped and len(ask.calls) == 4  # old_a, k, bad, recent: p_pre.json is never read
    # The same scan again (the wizard moving its limit): everything is cached, nothing is asked,
    # so even a should_stop that always says stop changes nothing.
    again = predict_cleanup(soc, 1, 1, now=NOW, should_stop=lambda: True)
    assert again == first


def test_nothing_is_asked_when_nothing_triggers(soc_dir):
    ask = stop_after(0)
    assert not predict_cleanup(scanned(soc_dir), 2, 50, now=NOW, should_stop=ask).stopped
    assert not predict_cleanup(scanned(soc_dir), -1, 50, now=NOW, should_stop=ask).stopped
    assert ask.calls == []


def test_a_stopped_prediction_is_a_warning_not_a_short_cleanup(soc_dir):
    usage = scan_to_end(soc_dir)
    preds = {name: predict_cleanup(soc, 1, 1, now=NOW, should_stop=stop_after(1)) for name, soc in usage.socs.items()}
    found = cache_findings(usage, preds, 1)
    assert finding_codes(found) == ["scan-cleanup-stopped", "scan-over-limit"]
    stopped = next(f for f in found if f.code == "scan-cleanup-stopped")
    assert stopped.severity == "warning" and "1 groups" in stopped.message("en") and stopped.fix_text("zh_CN")


def test_no_app_module_imports_another_modules_private_names():
    """Private helpers stay private: a module that needs one asks for a public API instead
    (the support bundle once imported app.opcache.cleanup._read_json to bound the prediction)."""
    import ast

    root = Path(__file__).resolve().parents[3] / "app"
    offenders = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cann_config.app"):
                offenders += [f"{path.relative_to(root)}: {node.module}.{a.name}" for a in node.names
                              if a.name.startswith("_") and not a.name.startswith("__")]
    # The C extension is a private module with one owner, which loads it (or not) for the others.
    offenders.remove("opcache/native.py: cann_config.app.opcache._native")
    assert offenders == []


# -- odd files: nothing but regular files is opened, nothing outside the SoC dir is followed --

def test_a_fifo_named_json_is_skipped_as_unparsed_and_never_blocks(tmp_path):
    soc = tmp_path / "kernel_cache" / "S"
    put(soc / "a.json", json100({"binFileName": "a", "binFileSuffix": ".o"}), NOW - 10_000)
    put(soc / "a.o", b"o" * (2 * MiB))
    os.mkfifo(soc / "pipe.json")
    os.utime(soc / "pipe.json", (NOW - 20_000, NOW - 20_000))  # older: read first
    assert _read_json(str(soc / "pipe.json")) is None  # returns at once: no writer needed
    usage = scan_to_end(tmp_path / "kernel_cache")
    pred = predict_cleanup(usage.socs["S"], 1, 1, now=NOW)
    by_json = {Path(g.json_path).name: g for g in pred.delete}
    assert "pipe.json" not in by_json and pred.skipped_unparsed == 1
    assert [Path(m.path).name for m in by_json["a.json"].members] == ["a.json", "a.o"]
    found = cache_findings(usage, {"S": pred}, 1)
    unparsed = next(f for f in found if f.code == "scan-json-unparsed")
    assert unparsed.file == str(soc / "pipe.json")


@pytest.mark.parametrize("with_c", [True, False], ids=["c-loops", "pure-python"])
def test_a_name_with_a_nul_ends_there_as_in_cann_and_never_raises(tmp_path, monkeypatch, with_c):
    """A json may spell a NUL ("\\u0000") in the names it gives; CANN passes its paths to the
    file system as C strings, so the name ends at the NUL. It once raised ValueError in the
    prediction (os.lstat refuses an embedded NUL) and `cann-config clean` showed a traceback."""
    from cann_config.app.opcache import native

    if not with_c:
        monkeypatch.setattr(native, "native", None)
    soc = tmp_path / "kernel_cache" / "S"
    put(soc / "a.json", b'{"binFileName": "a\\u0000ignored", "binFileSuffix": ".o"}', NOW - 30_000)
    put(soc / "a", b"x" * 10)  # the name CANN sees: "a" (and the suffix after the NUL is lost)
    put(soc / "m.json", b'{"jsonList": [{"jsonFileName": "sub.json\\u0000.txt"}]}', NOW - 20_000)
    put(soc / "sub.json", json100({"binFileName": "sub", "binFileSuffix": ".o"}))
    put(soc / "sub.o", b"o" * 20)
    put(soc / "big.bin", b"b" * (2 * MiB))
    pred = predict_cleanup(scan_to_end(soc.parent).socs["S"], 1, 1, now=NOW)
    by_json = {Path(g.json_path).name: g for g in pred.delete}
    assert [Path(m.path).name for m in by_json["a.json"].members] == ["a.json", "a"]
    assert [Path(m.path).name for m in by_json["m.json"].members] == ["m.json", "sub.json", "sub.o"]


def test_a_device_or_directory_named_json_is_not_read(tmp_path):
    os.mkdir(tmp_path / "dir.json")
    assert _read_json(str(tmp_path / "dir.json")) is None
    assert _read_json("/dev/null") is None  # a character device: refused before any read


def test_a_json_list_entry_out_of_the_soc_dir_is_never_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    os.mkfifo(outside / "p.json")
    put(outside / "secret.json", json100({"binFileName": "secret", "binFileSuffix": ".o"}))
    put(outside / "secret.o", b"s" * 100)
    soc = tmp_path / "kernel_cache" / "S"
    meta = soc / "meta"
    meta.mkdir(parents=True)
    os.symlink(outside, meta / "link")
    listed = ["../../../outside/p.json", "../../../outside/secret.json", "link/secret.json", "..", "ok_mix_aic.json"]
    put(meta / "k.json", json.dumps({"jsonList": [{"jsonFileName": n} for n in listed]}).encode(), NOW - 10_000)
    put(meta / "ok_mix_aic.json", json100({"binFileName": "ok", "binFileSuffix": ".o"}), NOW - 10_000)
    put(meta / "ok.o", b"k" * 10)
    put(meta / "orphan.bin", b"b" * (2 * MiB))  # over the limit; no group ever reaches the target
    put(meta / "up.json", json100({"binFileName": "../../../outside/secret", "binFileSuffix": ".o"}), NOW - 9_000)
    read = []

    def spy(path):
        read.append(path)
        return _read_json(path)

    usage = scan_to_end(tmp_path / "kernel_cache")
    pred = predict_cleanup(usage.socs["S"], 1, 1, now=NOW, read_json=spy)
    groups = {Path(g.json_path).name: g for g in pred.delete}
    assert [Path(m.path).name for m in groups["k.json"].members] == ["k.json", "ok_mix_aic.json", "ok.o"]
    assert NOTE_BAD_JSON in groups["k.json"].notes
    assert [Path(m.path).name for m in groups["up.json"].members] == ["up.json"]
    assert groups["up.json"].notes == (NOTE_BAD_JSON,)
    assert not [p for p in read if "outside" in p or "link" in p]
    assert all(str(outside) not in m.path for g in pred.delete for m in g.members)


def test_a_json_list_entry_in_a_subdir_of_the_soc_dir_is_followed(tmp_path):
    soc = tmp_path / "kernel_cache" / "S"
    put(soc / "a" / "k.json", json100({"jsonList": [{"jsonFileName": "../b/s.json"}]}), NOW - 10_000)
    put(soc / "b" / "s.json", json100({"binFileName": "s", "binFileSuffix": ".o"}), NOW - 10_000)
    put(soc / "a" / "s.o", b"x" * 10)
    put(soc / "orphan.bin", b"b" * (2 * MiB))
    usage = scan_to_end(tmp_path / "kernel_cache")
    pred = predict_cleanup(usage.socs["S"], 1, 1, now=NOW)
    k = next(g for g in pred.delete if g.json_path.endswith("k.json"))
    assert [m.path for m in k.members] == [str(soc / "a" / "k.json"), str(soc / "b" / "s.json"), str(soc / "a" / "s.o")]
    assert k.notes == ()


def test_a_json_is_read_only_as_far_as_it_is_long(tmp_path, monkeypatch):
    path = tmp_path / "k.json"
    put(path, json100({"binFileName": "k", "binFileSuffix": ".o"}))
    asked = []
    real_read = os.read

    def recording_read(fd, n):
        asked.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(os, "read", recording_read)
    assert _read_json(str(path)) == {"binFileName": "k", "binFileSuffix": ".o"}
    assert asked == [101]


def test_a_prediction_needs_the_candidates_of_its_limit(tmp_path):
    put(tmp_path / "kernel_cache" / "S" / "a.json", json100({}), NOW - 10_000)
    from cann_config.app.opcache.scanner import scan_cache

    usage = list(scan_cache(tmp_path / "kernel_cache", candidates_from=MiB))[-1].usage
    soc = usage.socs["S"]
    assert not soc.candidates_complete and soc.json_candidates() == []
    assert not predict_cleanup(soc, 1, 50, now=NOW).triggers  # under its limit: no candidate needed
    with pytest.raises(ValueError):  # over a limit the scan did not gather candidates for
        soc.cann_bytes = 2 * MiB
        predict_cleanup(soc, 1, 50, now=NOW)


# -- reading by directory, in steps (the speed of a cache over its limit, issue 16) --

def test_jsons_and_binaries_are_read_through_directory_fds(soc_dir, monkeypatch, pure_python):
    """No json or binary is looked up from the root: each dir is opened once from the SoC dir,
    and its files relative to it (path lookups dominated the prediction's time). (The C reader,
    app/opcache/_native.c, uses the same dir fds: openat and fstatat.)"""
    soc = scanned(soc_dir)
    by_path, by_fd = [], []
    real_open, real_lstat = os.open, os.lstat

    def spy_open(path, flags, mode=0o777, *, dir_fd=None):
        (by_path if dir_fd is None else by_fd).append(str(path))
        return real_open(path, flags, mode, dir_fd=dir_fd)

    def spy_lstat(path, *, dir_fd=None):
        (by_path if dir_fd is None else by_fd).append(str(path))
        return real_lstat(path, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", spy_open)
    monkeypatch.setattr(os, "lstat", spy_lstat)
    pred = predict_cleanup(soc, 1, 1, now=NOW)
    monkeypatch.undo()
    assert by_path == [str(soc_dir / "Ascend910B3")]  # the SoC dir, once
    assert "kernel_meta" in by_fd and "old_a.json" in by_fd and "old_a.o" in by_fd
    assert names(pred.delete) == ["old_a.json", "k.json"]


def test_reading_by_directory_gives_the_groups_reading_by_path_gives(tmp_path):
    """The same tree predicted through dir fds (the default) and by path (a caller's reader):
    identical groups, notes and counts, over many dirs and shared access seconds."""
    soc = tmp_path / "kernel_cache" / "S"
    for d in range(12):
        for k in range(9):
            stem = f"k{d}_{k}"
            folder = soc / f"m{d % 4}" / f"n{d}"
            stamp = NOW - 5_000 - (d * 7 + k) % 23  # many jsons share a second
            if k == 3:
                put(folder / f"{stem}.json", json100({"jsonList": [{"jsonFileName": f"{stem}_mix_aic.json"}]}), stamp)
                put(folder / f"{stem}_mix_aic.json", json100({"binFileName": stem, "binFileSuffix": ".bin"}), stamp)
                put(folder / f"{stem}.bin", b"b" * 3_000)
            elif k == 5:
                put(folder / f"{stem}.json", b"{", stamp)  # not JSON
            elif k == 7:  # a binary not named like its json, and a json naming nothing
                put(folder / f"{stem}.json", json100({"binFileName": f"o{stem}", "binFileSuffix": ".o"}), stamp)
                put(folder / f"o{stem}.o", b"o" * 20_000)
                put(folder / f"{stem}n.json", json100({"kernelName": stem}), stamp)
            else:
                put(folder / f"{stem}.json", json100({"binFileName": stem, "binFileSuffix": ".o"}), stamp)
                put(folder / f"{stem}.o", b"o" * (20_000 + d * 10 + k))
    put(soc / "recent.json", json100({"binFileName": "gone", "binFileSuffix": ".o"}), NOW - 10)
    usage = scan_to_end(tmp_path / "kernel_cache")
    for ratio in (1, 40, 90):
        by_fd = predict_cleanup(usage.socs["S"], 1, ratio, now=NOW)
        fresh = scan_to_end(tmp_path / "kernel_cache").socs["S"]
        by_path = predict_cleanup(fresh, 1, ratio, now=NOW, read_json=lambda path: _read_json(path))
        assert by_fd == by_path
    assert by_fd.triggers and by_fd.target_reached and 0 < len(by_fd.delete) < 100
    first = predict_cleanup(usage.socs["S"], 1, 1, now=NOW)
    assert first.bad_json and first.kept_recent[0].notes == (NOTE_BIN_MISSING,)


def test_a_step_past_the_target_changes_nothing_but_what_is_cached(soc_dir):
    """A step reads a few groups beyond the one that reaches the target; the prediction is the
    one of reading group by group, and a later prediction needing them reads nothing again."""
    soc = scanned(soc_dir)
    reads = []

    def counting(path):
        reads.append(Path(path).name)
        return _read_json(path)

    pred = predict_cleanup(soc, 1, 62, now=NOW, read_json=counting)
    # target = 1,200,700 - 650,117 = 550,583: old_a (400,100) then k (500,300) reach it.
    assert names(pred.delete) == ["old_a.json", "k.json"] and pred.counted_bytes == 900_400
    assert pred.target_reached and names(pred.kept_recent) == ["recent.json"]
    before = len(reads)
    again = predict_cleanup(soc, 1, 1, now=NOW, read_json=counting)
    assert names(again.delete) == ["old_a.json", "k.json"]
    assert reads.count("old_a.json") == 1 and len(reads) - before <= 1  # at most bad.json is new
    assert "p_pre.json" not in reads  # a _pre.json is skipped by its name: never read


def test_files_named_by_two_groups_are_freed_once(tmp_path):
    soc = tmp_path / "kernel_cache" / "S"
    put(soc / "a" / "x.json", json100({"binFileName": "shared", "binFileSuffix": ".o"}), NOW - 9_000)
    put(soc / "a" / "y.json", json100({"binFileName": "shared", "binFileSuffix": ".o"}), NOW - 8_000)
    put(soc / "a" / "shared.o", b"s" * 1_000)
    # b/l.json lists a/x.json (another dir): x.json is deleted by two groups, counted once.
    put(soc / "b" / "l.json", json100({"jsonList": [{"jsonFileName": "../a/x.json"}]}), NOW - 7_000)
    # Each named like its json, and still one file: "a" + ".b.o" and "a.b" + ".o".
    put(soc / "c" / "a.json", json100({"binFileName": "a", "binFileSuffix": ".b.o"}), NOW - 6_000)
    put(soc / "c" / "a.b.json", json100({"binFileName": "a.b", "binFileSuffix": ".o"}), NOW - 5_000)
    put(soc / "c" / "a.b.o", b"o" * 500)
    put(soc / "big.bin", b"b" * (2 * MiB))
    pred = predict_cleanup(scan_to_end(tmp_path / "kernel_cache").socs["S"], 1, 1, now=NOW)
    assert names(pred.delete) == ["x.json", "y.json", "l.json", "a.json", "a.b.json"]
    # counted as CANN counts: x 100 + shared.o 1,000; y 100 + shared.o 1,000; l 100 + a/x.json 100
    # (x's binary is looked for in l's dir, where there is none)
    assert pred.counted_bytes == 2_400 + 600 + 600
    assert pred.freed_bytes == 100 + 100 + 100 + 1_000 + 100 + 100 + 500


@pytest.mark.parametrize("data", [
    b'{"binFileName": "k", "binFileSuffix": ".o"}', b'  \n{"a": 1}\t\r\n', b"\xef\xbb\xbf{}", b"[1, 2]", b'"text"', b"3",
    b'{"a": 1, "a": 2}', "{\"名\": \"値\"}".encode(),
    b'{"pair": "\\ud83d\\ude00"}', b"[" * 100 + b"]" * 100,
])
def test_a_json_cann_parses_is_read_as_pythons_json_reads_it(data, tmp_path):
    path = tmp_path / "k.json"
    path.write_bytes(data)
    assert _read_json(str(path)) == json.loads(data.decode("utf-8-sig"))


def test_integers_beyond_64_bits_are_read_as_doubles(tmp_path):
    """As nlohmann::json reads them (a parsed json, not an unparsed one)."""
    path = tmp_path / "k.json"
    path.write_bytes(b'{"big": 18446744073709551616, "neg": -9223372036854775809, "max": 18446744073709551615}')
    assert _read_json(str(path)) == {"big": 2.0 ** 64, "neg": -(2.0 ** 63), "max": 18446744073709551615}


@pytest.mark.parametrize("data", [
    b"", b"   ", b"{", b"x{}", b"[1, 2", b'{"a": "}', b"{]", b"1.", b"-", b"tru", b"\xef\xbb\xbf", b"\xef\xbb\xbf \xef\xbb\xbf{}", b"\xff{}", b"\x00{}",
])
def test_what_is_not_json_is_unparsed(data, tmp_path):
    path = tmp_path / "k.json"
    path.write_bytes(data)
    assert _read_json(str(path)) is None


@pytest.mark.parametrize(("data", "value"), [
    (b"{} {}", {}), (b"{}x", {}), (b'{"binFileName": "k", "binFileSuffix": ".o"}\n\x00garbage\xff', {"binFileName": "k", "binFileSuffix": ".o"}),
    (b'{"a": "} ]"} tail', {"a": "} ]"}), (b'{"a": "\\"}"}x', {"a": '"}'}), (b"[1, [2]]]", [1, [2]]),
    (b" \t\r\n{} {", {}), (b"\xef\xbb\xbf{}x", {}), (b"12x", 12), (b"0.5.3", 0.5), (b"01", 0), (b"truex", True),
    (b'"s" 1', "s"),
])
def test_bytes_after_the_first_complete_value_are_ignored_as_canns_parse_ignores_them(data, value, tmp_path):
    """CANN reads a kernel json with `ifs >> json` (te_file_utils.cc GetJsonValueFromJsonFile):
    nlohmann's non-strict parse, which ends after the first complete value."""
    path = tmp_path / "k.json"
    path.write_bytes(data)
    assert _read_json(str(path)) == value


def test_a_json_with_trailing_bytes_is_deleted_with_its_binary(tmp_path):
    soc = tmp_path / "kernel_cache" / "S"
    put(soc / "k.json", b'{"binFileName": "k", "binFileSuffix": ".o"}\n}junk', NOW - 10_000)
    put(soc / "k.o", b"o" * (2 * MiB))
    pred = predict_cleanup(scan_to_end(tmp_path / "kernel_cache").socs["S"], 1, 50, now=NOW)
    assert [Path(m.path).name for g in pred.delete for m in g.members] == ["k.json", "k.o"]
    assert pred.skipped_unparsed == 0 and pred.target_reached


@pytest.mark.parametrize("data", [b'{"a": NaN}', b'{"a": -Infinity}', b'{"a": 1e400}', b'{"a": "\\ud800"}'])
def test_what_canns_json_library_rejects_is_unparsed_though_python_reads_it(data, tmp_path):
    """nlohmann::json rejects NaN/Infinity literals, overflowing numbers and lone surrogates;
    Python's json reads them, so the prediction does not use Python's json."""
    json.loads(data)  # Python's reading
    path = tmp_path / "k.json"
    path.write_bytes(data)
    assert _read_json(str(path)) is None


def test_steps_shrink_to_what_is_read_in_a_twentieth_of_a_second(tmp_path, monkeypatch):
    """A step asks should_stop for all its groups before reading them, so a slow disk gets small
    steps (a support bundle's deadline is passed by one short step at most); the prediction is
    the same whatever the steps."""
    from cann_config.app.opcache import cleanup

    soc = tmp_path / "kernel_cache" / "S"
    for k in range(700):
        put(soc / f"d{k % 7}" / f"k{k}.json", json100({"binFileName": f"k{k}", "binFileSuffix": ".o"}), NOW - 9_000 - k)
        put(soc / f"d{k % 7}" / f"k{k}.o", b"o" * 3_000)
    usage = scan_to_end(tmp_path / "kernel_cache")
    fast = predict_cleanup(usage.socs["S"], 1, 50, now=NOW)
    assert fast.target_reached and 100 < len(fast.delete) < 700

    ticks = iter(range(10**6))
    monkeypatch.setattr(cleanup.time, "monotonic", lambda: float(next(ticks)))  # every step "takes" 1 s
    steps = []
    real_read = cleanup._Steps.read

    def recording(self, todo):
        steps.append(sum(map(len, todo.values())))
        return real_read(self, todo)

    monkeypatch.setattr(cleanup._Steps, "read", recording)
    slow = predict_cleanup(scan_to_end(tmp_path / "kernel_cache").socs["S"], 1, 50, now=NOW, should_stop=lambda: False)
    assert slow == fast
    assert steps[0] == 256 and all(step <= 16 for step in steps[1:]) and len(steps) > 3
    steps.clear()  # nobody to say stop: the largest steps, whatever the clock says
    assert predict_cleanup(scan_to_end(tmp_path / "kernel_cache").socs["S"], 1, 50, now=NOW) == fast
    assert len(steps) <= 2
    usage.socs["S"].ordered_candidates()
    reader = cleanup._Steps(usage.socs["S"], cleanup.GroupStore(usage.socs["S"].jsons), cleanup._read_json,
                            lambda: False, 1, NOW)
    reader.read_groups, reader.read_seconds = 10_000, 1.0
    assert reader.step_limit() == 500
    reader.read_groups, reader.read_seconds = 10**9, 1.0
    assert reader.step_limit() == 8192
