"""Golden tests of CANN's access-time re-check (te_cache_space_manager.cc `GetFilesAccessTime`
keys each json by its atime and parses it with a plain read; `AgingCacheFileByAccessTime`
deletes a group only if a fresh stat still shows that atime): the prediction follows the mount's
atime flags and each json's times (app/opcache/atime.py, docs/cann/op-cache.md#access-time-re-check).

The tests on real mounts mount their own tmpfs (root only; skipped with the reason otherwise)
and check the prediction against the kernel itself: after predicting, they replay CANN's
stat / read / stat on every json and compare what the kernel did with what was predicted.
"""

import os
import subprocess
import time
from pathlib import Path

import pytest

from cann_config.app.opcache import atime
from cann_config.app.opcache.cleanup import cache_findings, predict_cleanup
from cann_config.app.opcache.scanner import MountInfo, scan_to_end

MiB = 1024 * 1024
DAY = 24 * 60 * 60


def mount(options: str, fs_type: str = "tmpfs") -> MountInfo:
    return MountInfo("dev", "/", fs_type, tuple(options.split(",")))


@pytest.mark.parametrize(("fs_type", "options", "rule"), [
    ("ext4", "rw,noatime", "noatime"),
    ("ext4", "rw,relatime,discard", "relatime"),
    ("tmpfs", "rw,size=8192k", "strictatime"),  # the kernel prints no flag for strict atime
    ("xfs", "rw,lazytime,relatime", "relatime"),  # lazytime only delays writing the times
    ("ext4", "ro,relatime", "noatime"),  # a read-only mount never updates atime
    ("ext4", "rw,nodiratime,relatime", "relatime"),  # directories only
    ("nfs4", "rw,relatime,vers=4.2", "nfs"),
    ("nfs", "rw,noatime,vers=3", "nfs"),
])
def test_the_rule_of_a_mount(fs_type, options, rule):
    assert atime.atime_rule(mount(options, fs_type)) == rule


def test_no_mount_information_is_an_unknown_rule():
    assert atime.atime_rule(None) == "unknown"


@pytest.mark.parametrize(("rule", "read_after_change", "age", "refreshes"), [
    ("noatime", False, 3600, False),
    ("relatime", False, 3600, True),  # atime <= mtime or ctime: a hit, or never read since written
    ("relatime", True, 3600, False),  # read after its last change, less than a day ago
    ("relatime", True, DAY - 1, False),
    ("relatime", True, DAY, True),  # a day old: any read refreshes it
    ("strictatime", True, 3600, True),
    ("nfs", False, 3600, False),  # predicted as noatime (not confirmed)
    ("unknown", False, 3600, False),
])
def test_when_canns_read_refreshes_the_access_time(rule, read_after_change, age, refreshes):
    now = 1_700_000_000
    assert atime.read_refreshes(rule, read_after_change, now - age, now) is refreshes


# -- the prediction on a tree whose mount is given (no root needed) --

def put(path: Path, data: bytes, times: tuple[int, int] | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if times is not None:
        os.utime(path, times)


def hit_tree(root: Path, now: int) -> Path:
    """Three kernels last hit an hour ago and more (a hit is utime(atime=now, mtime kept), which
    sets ctime to the real now: every atime is <= its ctime)."""
    soc = root / "kernel_cache" / "S"
    for i, age in enumerate((7_200, 5_400, 3_600)):
        put(soc / f"k{i}.json", b'{"binFileName": "k%d", "binFileSuffix": ".o"}' % i, (now - age, now - 2 * DAY))
        put(soc / f"k{i}.o", b"o" * MiB)
    return root / "kernel_cache"


@pytest.mark.parametrize(("line", "deleted"), [
    ("tmpfs / tmpfs rw,noatime 0 0", ["k0.json", "k1.json"]),
    ("tmpfs / tmpfs rw,relatime 0 0", []),
    ("tmpfs / tmpfs rw 0 0", []),
])
def test_relatime_and_strictatime_keep_what_canns_read_refreshes(tmp_path, line, deleted):
    now = int(time.time())
    usage = scan_to_end(hit_tree(tmp_path, now), mounts_text=line + "\n")
    pred = predict_cleanup(usage.socs["S"], 2, 60, now=now)
    # used 3 MiB + 132 B >= 2 MiB; target = used - 2 MiB x 60 % = 1.8 MiB + 132 B: two groups reach it.
    assert [Path(g.json_path).name for g in pred.delete] == deleted
    assert pred.to_json()["read_saved_groups"] == (0 if deleted else 3)
    assert pred.to_json()["delete_groups"] == len(deleted) and pred.target_reached is bool(deleted)
    codes = [f.code for f in cache_findings(usage, {"S": pred}, 2)]
    assert ("scan-cleanup-atime-refresh" in codes) is not bool(deleted)


def test_the_atime_finding_names_the_refresh_and_what_to_do(tmp_path):
    now = int(time.time())
    usage = scan_to_end(hit_tree(tmp_path, now), mounts_text="tmpfs / tmpfs rw,relatime 0 0\n")
    pred = predict_cleanup(usage.socs["S"], 2, 60, now=now)
    (found,) = [f for f in cache_findings(usage, {"S": pred}, 2) if f.code == "scan-cleanup-atime-refresh"]
    assert "refreshes their access times" in found.message("en") and "relatime" in found.message("en")
    assert "cann-config clean" in found.fix_text("en") and "noatime" in found.fix_text("en")
    assert "ASCEND_MAX_OP_CACHE_SIZE=-1" in found.fix_text("en")
    assert "访问时间" in found.message("zh_CN")


def test_nfs_is_predicted_by_the_keys_and_said_to_be_not_confirmed(tmp_path):
    now = int(time.time())
    usage = scan_to_end(hit_tree(tmp_path, now), mounts_text="srv:/c / nfs4 rw,relatime,vers=4.2 0 0\n")
    pred = predict_cleanup(usage.socs["S"], 2, 60, now=now)
    assert len(pred.delete) == 2 and pred.atime_rule == "nfs" and pred.to_json()["atime_rule_confirmed"] is False
    assert "scan-cleanup-atime-not-confirmed" in [f.code for f in cache_findings(usage, {"S": pred}, 2)]


def test_a_refreshed_json_is_decided_from_its_stat_alone_and_never_read(tmp_path):
    now = int(time.time())
    usage = scan_to_end(hit_tree(tmp_path, now), mounts_text="tmpfs / tmpfs rw,relatime 0 0\n")
    reads = []
    pred = predict_cleanup(usage.socs["S"], 2, 60, now=now, read_json=lambda path: reads.append(path))
    assert pred.read_saved == 3 and reads == []


def test_the_clean_rule_overrides_the_mount(tmp_path):
    """`cann-config clean` asks for what CANN means to delete: the keys alone."""
    now = int(time.time())
    usage = scan_to_end(hit_tree(tmp_path, now), mounts_text="tmpfs / tmpfs rw,relatime 0 0\n")
    pred = predict_cleanup(usage.socs["S"], 2, 60, now=now, atime_rule="noatime")
    assert [Path(g.json_path).name for g in pred.delete] == ["k0.json", "k1.json"]


# -- the kernel's own answer, on tmpfs mounts made here --

@pytest.fixture
def mounted(tmp_path):
    """A function mounting a fresh tmpfs with the given options at a dir of tmp_path."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs with chosen atime flags needs root")
    made: list[Path] = []

    def make(options: str) -> Path:
        where = tmp_path / f"mnt{len(made)}"
        where.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"{options},size=16m", "tmpfs", str(where)],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        made.append(where)
        return where

    yield make
    for where in made:
        subprocess.run(["umount", "-l", str(where)], check=False)


def kernel_tree(root: Path) -> Path:
    """Kernels in each state a cache holds, built in real time (ctime cannot be set):
    fresh   written, never read since                 atime == mtime == ctime
    read    written, then read (a plain read)         atime > mtime, ctime (relatime: kept after)
    hit     read, then hit (CANN's utime)             atime (whole seconds) <= ctime
    old     written, atime set two days back          atime <= ctime
    p_pre   a _pre.json: skipped by its name
    """
    soc = root / "kernel_cache" / "S"
    for name in ("fresh", "read", "hit", "old"):
        put(soc / f"{name}.json", b'{"binFileName": "%s", "binFileSuffix": ".o"}' % name.encode())
        put(soc / f"{name}.o", b"o" * MiB)
    put(soc / "p_pre.json", b"{}")
    now = int(time.time())
    os.utime(soc / "old.json", (now - 2 * DAY, now - 3 * DAY))
    time.sleep(0.05)  # the coarse clock moves on: the read's atime is later than the write's times
    (soc / "read.json").read_bytes()
    (soc / "hit.json").read_bytes()
    time.sleep(0.05)
    st = os.stat(soc / "hit.json")
    os.utime(soc / "hit.json", (int(time.time()), st.st_mtime))  # UpdateFileAccessTime
    return root / "kernel_cache"


def canns_read_and_recheck(path: Path) -> bool:
    """What CANN does to one json: key = stat's atime, parse it (a plain read), stat again;
    True when the atime still equals the key (CANN deletes the group). Compared in nanoseconds:
    CANN compares whole seconds, but its keys are at least 30 minutes old, so any refresh
    changes the second there, while here the tree is a moment old."""
    key = os.stat(path).st_atime_ns
    with open(path, "rb") as fh:  # std::ifstream: no O_NOATIME
        fh.read()
    return os.stat(path).st_atime_ns == key


@pytest.mark.real_mounts
@pytest.mark.parametrize(("options", "rule", "deleted"), [
    ("relatime", "relatime", {"read"}),
    ("noatime", "noatime", {"fresh", "read", "hit", "old"}),
    ("strictatime", "strictatime", set()),
])
def test_the_prediction_is_what_the_kernel_does(mounted, options, rule, deleted):
    cache = kernel_tree(mounted(options))
    soc_dir = cache / "S"
    times_before = {p.name: os.stat(p).st_atime_ns for p in soc_dir.iterdir()}
    # A start an hour later: every key is older than 30 minutes and younger than a day (old
    # is two days old); the target (used - 1 MiB x 1 %) is more than all groups together.
    usage = scan_to_end(cache)
    pred = predict_cleanup(usage.socs["S"], 1, 1, now=time.time() + 3_600)
    assert pred.atime_rule == rule
    # Looking changed no access time (scan with lstat, reads with O_NOATIME or none at all).
    assert {p.name: os.stat(p).st_atime_ns for p in soc_dir.iterdir()} == times_before
    predicted = {Path(g.json_path).stem for g in pred.delete}
    assert predicted == deleted
    assert pred.skipped_pre == 1 and pred.read_saved == 4 - len(deleted)
    # The kernel's answer: CANN's own stat / read / stat on every json the loop reaches.
    kernel = {name for name in ("fresh", "read", "hit", "old") if canns_read_and_recheck(soc_dir / f"{name}.json")}
    assert kernel == predicted
