"""`cann-config clean`: the dry run lists what the prediction deletes on a noatime mount, `--yes`
deletes exactly those files under CANN's lock (op_cache_file_del.lock), a held lock or a racing
clean deletes nothing twice, and nothing outside the SoC dir is reached."""

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cann_config.app.cli import main
from cann_config.app.opcache.clean import LOCK_NAME, delete_groups
from cann_config.app.opcache.cleanup import Group, GroupMember, predict_cleanup
from cann_config.app.opcache.scanner import scan_to_end

ENV_VARS = ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO",
            "ACL_OP_COMPILER_CACHE_DIR", "ACL_OP_COMPILER_CACHE_MODE", "ASCEND_WORK_PATH")
KB = 1000


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ASCEND_MAX_OP_CACHE_SIZE", "1")
    monkeypatch.setenv("ASCEND_REMAIN_CACHE_SIZE_RATIO", "50")


def put(path: Path, data: bytes, atime: float | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if atime is not None:
        os.utime(path, (atime, atime - 3600))


def kernel(folder: Path, stem: str, size: int, atime: float) -> None:
    put(folder / f"{stem}.o", b"o" * size)
    put(folder / f"{stem}.json", json.dumps({"binFileName": stem, "binFileSuffix": ".o"}).encode(), atime)


@pytest.fixture
def cache(tmp_path):
    """A SoC dir of 1 MiB limit, ratio 50 (keep 524,288 B): six old kernels of 300 kB (oldest
    first), a jsonList kernel in a subdir, a _pre.json, an unparsable json, a recent kernel, and
    a binary that is a symlink to a file outside the cache."""
    now = time.time()
    soc = tmp_path / "base" / "kernel_cache" / "S"
    for i in range(6):
        kernel(soc, f"old{i}", 300 * KB, now - 20_000 + i * 100)
    meta = soc / "kernel_meta"
    put(meta / "m_mix_aic.json", json.dumps({"binFileName": "m_mix_aic", "binFileSuffix": ".o"}).encode())
    put(meta / "m_mix_aic.o", b"a" * 200 * KB)
    put(meta / "m.json", json.dumps({"jsonList": [{"jsonFileName": "m_mix_aic.json"}]}).encode(), now - 19_950)
    put(soc / "p_pre.json", b"{}", now - 30_000)
    put(soc / "bad.json", b"{not json", now - 30_000)
    kernel(soc, "recent", 300 * KB, now - 60)
    put(tmp_path / "outside.o", b"x" * 100 * KB)
    os.symlink(tmp_path / "outside.o", soc / "link.o")
    put(soc / "link.json", json.dumps({"binFileName": "link", "binFileSuffix": ".o"}).encode(), now - 19_990)
    return tmp_path / "base"


def tree(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under `root` with its size and atime, from lstat only (a read would refresh atimes)."""
    found = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            st = os.lstat(os.path.join(folder, name))
            found[os.path.relpath(os.path.join(folder, name), root)] = (st.st_size, st.st_atime_ns)
    return found


def clean(capsys, *args):
    code = main(["clean", "--json", *args])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


def predicted(base: Path):
    soc = scan_to_end(base / "kernel_cache").socs["S"]
    return predict_cleanup(soc, 1, 50, atime_rule="noatime")


def test_the_dry_run_lists_the_prediction_and_deletes_nothing(cache, capsys):
    before = tree(cache)
    code, data, _err = clean(capsys, "--cache-dir", str(cache))
    assert code == 0 and data["dry_run"] is True
    expected = predicted(cache)
    listed = [g["json"] for g in data["socs"]["S"]["groups"]]
    assert listed == [g.json_path for g in expected.delete] and len(listed) >= 3
    assert data["socs"]["S"]["cleanup"]["delete_bytes"] == expected.counted_bytes
    # CANN's order, oldest first; _pre.json, bad.json and recent.json are never listed
    names = [Path(p).name for p in listed]
    assert names == ["old0.json", "link.json", "m.json", *(f"old{i}.json" for i in range(1, 6))]
    assert tree(cache) == before and not (cache / "kernel_cache" / "S" / LOCK_NAME).exists()


def test_the_text_dry_run_names_each_json_and_says_how_to_delete(cache, capsys):
    assert main(["clean", "--cache-dir", str(cache)]) == 0
    out = capsys.readouterr().out
    for group in predicted(cache).delete:
        assert group.json_path in out
    assert "--yes" in out and LOCK_NAME in out


def test_yes_deletes_exactly_the_predicted_files_under_canns_lock(cache, capsys):
    expected = predicted(cache)
    before = tree(cache)
    members = {os.path.relpath(m.path, cache) for g in expected.delete for m in g.members}
    code, data, err = clean(capsys, "--cache-dir", str(cache), "--yes")
    assert code == 0, err
    after = tree(cache)
    gone = set(before) - set(after)
    # the symlink link.o is a member, but CANN deletes regular files only: it stays, and so does its target
    assert gone == members - {"kernel_cache/S/link.o"}
    assert "kernel_cache/S/link.o" in after and (cache.parent / "outside.o").exists()
    result = data["socs"]["S"]["result"]
    assert result["deleted_groups"] == len(expected.delete) and result["changed"] == [] and result["failed"] == []
    assert result["freed_bytes"] == sum(before[p][0] for p in gone)
    lock = cache / "kernel_cache" / "S" / LOCK_NAME
    assert lock.exists() and stat.S_IMODE(lock.stat().st_mode) & 0o137 == 0  # created 0640 (less with a umask)
    # a second clean has nothing left to delete: the SoC dir is under its limit
    code, data, _err = clean(capsys, "--cache-dir", str(cache), "--yes")
    assert code == 0 and data["socs"]["S"]["cleanup"]["triggers"] is False and tree(cache) == after | {
        f"kernel_cache/S/{LOCK_NAME}": tree(cache)[f"kernel_cache/S/{LOCK_NAME}"]}


def test_a_group_used_since_it_was_listed_is_kept(cache):
    expected = predicted(cache)
    first = expected.delete[0]
    os.utime(first.json_path, (time.time(), time.time()))  # a cache hit meanwhile (UpdateFileAccessTime)
    result = delete_groups(str(cache / "kernel_cache" / "S"), expected.delete)
    assert result.changed_groups == (first.json_path,) and result.deleted_groups == len(expected.delete) - 1
    assert all(os.path.lexists(m.path) for m in first.members)


def test_nothing_is_reached_through_a_symlinked_dir(tmp_path):
    soc = tmp_path / "kernel_cache" / "S"
    (tmp_path / "elsewhere").mkdir()
    put(tmp_path / "elsewhere" / "k.json", b"{}")
    put(tmp_path / "elsewhere" / "k.o", b"o" * 10)
    soc.mkdir(parents=True)
    os.symlink(tmp_path / "elsewhere", soc / "sub")
    atime = int(os.stat(tmp_path / "elsewhere" / "k.json").st_atime)
    group = Group(str(soc / "sub" / "k.json"), atime, (GroupMember(str(soc / "sub" / "k.json"), 2),
                                                        GroupMember(str(soc / "sub" / "k.o"), 10)))
    result = delete_groups(str(soc), (group,))
    assert result.deleted_files == 0 and (tmp_path / "elsewhere" / "k.o").exists()
    outside = Group(str(soc / "k.json"), atime, (GroupMember(str(tmp_path / "elsewhere" / "k.o"), 10),))
    assert delete_groups(str(soc), (outside,)).deleted_files == 0 and (tmp_path / "elsewhere" / "k.o").exists()


def test_keep_mb_cleans_with_ageing_off(cache, capsys, monkeypatch):
    monkeypatch.setenv("ASCEND_MAX_OP_CACHE_SIZE", "-1")
    code, data, _err = clean(capsys, "--cache-dir", str(cache))
    assert code == 0 and data["socs"]["S"]["groups"] == []
    code, data, _err = clean(capsys, "--cache-dir", str(cache), "--keep-mb", "0")
    names = {Path(g["json"]).name for g in data["socs"]["S"]["groups"]}
    assert names == {"link.json", "m.json", *(f"old{i}.json" for i in range(6))}  # never recent, pre or bad


def test_bad_keep_mb_is_usage_exit_2(cache, capsys):
    assert main(["clean", "--cache-dir", str(cache), "--keep-mb", "-3"]) == 2
    assert "--keep-mb" in capsys.readouterr().err


def test_no_cache_is_nothing_to_clean(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["clean", "--cache-dir", str(tmp_path / "empty")]) == 0
    assert "nothing to clean" in capsys.readouterr().out


# -- races: CANN's lock is a non-blocking fcntl write lock, per process --

HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o640)
fcntl.lockf(fd, fcntl.LOCK_EX)  # what CANN's LockAndOpenCacheFile takes (F_SETLK, F_WRLCK, whole file)
print("held", flush=True)
sys.stdin.read()
"""


def test_a_held_lock_refuses_and_deletes_nothing(cache, capsys):
    lock = cache / "kernel_cache" / "S" / LOCK_NAME
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        before = tree(cache)
        code, data, err = clean(capsys, "--cache-dir", str(cache), "--yes")
        assert code == 1 and str(lock) in err and data["lock_held"] == str(lock)
        assert data["socs"]["S"]["result"] is None and tree(cache) == before
    finally:
        holder.communicate("")
    assert main(["clean", "--cache-dir", str(cache), "--yes"]) == 0  # released: it cleans now


def test_two_cleans_racing_delete_each_file_once(cache):
    expected = predicted(cache)
    members = {m.path for g in expected.delete for m in g.members} - {str(cache / "kernel_cache" / "S" / "link.o")}
    before = tree(cache)
    cmd = [sys.executable, "-m", "cann_config.app", "--lang", "en", "clean", "--cache-dir", str(cache), "--yes",
           "--json"]
    runs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [run.communicate(timeout=60) for run in runs]
    codes = [run.returncode for run in runs]
    for (_out, err), code in zip(outs, codes, strict=True):
        assert "Traceback" not in err
        assert code == 0 or (code == 1 and LOCK_NAME in err), err
    assert 0 in codes
    gone = set(before) - set(tree(cache))
    assert {str(cache / p) for p in gone} == members
    # each file was deleted by one clean: the bytes they say they freed add up to the files gone
    results = [json.loads(out)["socs"]["S"]["result"] for (out, _err), code in zip(outs, codes, strict=True)
               if code == 0]
    assert sum(r["freed_bytes"] for r in results if r) == sum(before[p][0] for p in gone)


def test_ties_in_access_time_go_by_path_in_the_prediction_the_dry_run_and_the_clean(tmp_path, capsys):
    """Issue 30: CANN keys groups by atime in a std::multimap, so groups of one second keep its
    readdir order, which the tool cannot know; it orders them by path ([inference],
    docs/cann/op-cache.md#cleanup). The prediction, the dry run and the clean use that one order:
    with the target reached inside a run of ties, the same groups go in all three."""
    now = time.time()
    soc = tmp_path / "base" / "kernel_cache" / "S"
    tied = now - 20_000
    # Written in an order that is neither the path's nor (on most filesystems) readdir's.
    for stem, folder in (("z9", soc), ("a1", soc / "sub"), ("m5", soc), ("b2", soc / "a"), ("c3", soc)):
        kernel(folder, stem, 300 * KB, tied)
    kernel(soc, "older", 300 * KB, tied - 100)
    expected = predicted(tmp_path / "base")
    order = [str(Path(g.json_path).relative_to(soc)) for g in expected.delete]
    # 1.8 MB over a 1 MiB limit at ratio 50: 1.28 MB to delete, five 300 kB groups
    assert order == ["older.json", "a/b2.json", "c3.json", "m5.json", "sub/a1.json"]
    code, data, _err = clean(capsys, "--cache-dir", str(tmp_path / "base"))
    assert [g["json"] for g in data["socs"]["S"]["groups"]] == [g.json_path for g in expected.delete]
    code, data, _err = clean(capsys, "--cache-dir", str(tmp_path / "base"), "--yes")
    assert code == 0 and data["socs"]["S"]["result"]["deleted_groups"] == 5
    left = sorted(str(p.relative_to(soc)) for p in soc.rglob("*.json"))
    assert left == ["z9.json"]  # the last of the tie by path stays
