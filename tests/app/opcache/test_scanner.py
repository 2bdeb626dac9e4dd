"""The cache scanner: du's totals, hard links once, symlinks never followed, errors listed not
fatal, batches and Stop, CANN's json candidates, and the filesystem facts behind the warnings."""

import os
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from cann_config.app.errors import InputError
from cann_config.app.opcache.scanner import (
    MountInfo,
    mount_of,
    nfs_lock_problem,
    parse_mounts,
    scan_cache,
    scan_to_end,
)
from tests.bench.make_tree import make_tree

needs_du = pytest.mark.skipif(shutil.which("du") is None, reason="du is not installed")


def write(path: Path, size: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    return path


def du_bytes(path: Path, *flags: str) -> int:
    out = subprocess.run(["du", *flags, str(path)], capture_output=True, text=True, check=True).stdout
    return int(out.split()[0])


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def cache(tmp_path):
    """kernel_cache with op_cache.ini, two SoC dirs with nested dirs and known file sizes."""
    kc = tmp_path / "kernel_cache"
    write(kc / "op_cache.ini", 70)
    write(kc / "Ascend910B3" / "a.json", 100)
    write(kc / "Ascend910B3" / "a.o", 1000)
    write(kc / "Ascend910B3" / "sub" / "deep" / "b.o", 5000)
    write(kc / "Ascend310P3" / "c.o", 300)
    return kc


def test_sizes_per_soc_and_loose_files_apart(cache):
    usage = scan_to_end(cache)
    assert set(usage.socs) == {"Ascend910B3", "Ascend310P3"}
    b3 = usage.socs["Ascend910B3"]
    assert b3.files == 3 and b3.dirs == 3  # the SoC dir, sub, sub/deep
    assert b3.cann_bytes == 6100  # CANN counts regular files' st_size only
    dir_size = os.lstat(cache / "Ascend910B3").st_size
    assert b3.apparent_bytes == 6100 + 3 * dir_size
    assert usage.socs["Ascend310P3"].cann_bytes == 300
    # op_cache.ini and kernel_cache itself are not part of any SoC dir's usage
    assert usage.top.files == 1 and usage.top.cann_bytes == 70 and usage.top.dirs == 1
    assert usage.files == 5
    assert not usage.unreadable and not usage.stopped


@needs_du
def test_totals_equal_du_on_a_generated_tree(tmp_path):
    kc = make_tree(tmp_path, files=3000, dirs=30)
    (kc / "Ascend910B3" / "hard").mkdir()
    os.link(kc / "Ascend910B3" / "kernel_meta_00000" / "te_op_00000_0000.json", kc / "Ascend910B3" / "hard" / "x.json")
    os.symlink("kernel_meta_00000", kc / "Ascend910B3" / "link")
    usage = scan_to_end(kc)
    assert usage.files == 3001 + 1 + 1  # files + op_cache.ini + the hard link name + the symlink
    assert usage.apparent_bytes == du_bytes(kc, "-sb")
    assert usage.allocated_bytes == du_bytes(kc, "-sB1")


@needs_du
def test_hard_links_count_once_in_bytes_and_every_name_for_cann(cache):
    target = write(cache / "Ascend910B3" / "big.o", 10_000)
    os.link(target, cache / "Ascend910B3" / "sub" / "big_again.o")
    os.link(target, cache / "Ascend310P3" / "big_elsewhere.o")
    usage = scan_to_end(cache)
    b3, p3 = usage.socs["Ascend910B3"], usage.socs["Ascend310P3"]
    assert b3.cann_bytes == 6100 + 20_000  # GetDirectorySize adds each name
    assert b3.hard_links + p3.hard_links == 2
    assert usage.apparent_bytes == du_bytes(cache, "-sb")
    assert usage.allocated_bytes == du_bytes(cache, "-sB1")


def test_symlink_loops_are_not_followed(cache):
    soc = cache / "Ascend910B3"
    os.symlink("loop_b", soc / "loop_a")
    os.symlink("loop_a", soc / "loop_b")
    os.symlink("..", soc / "sub" / "up")  # a directory loop
    os.symlink("/", soc / "root")  # would leave the tree
    usage = scan_to_end(cache)
    b3 = usage.socs["Ascend910B3"]
    assert b3.symlinks == 4
    assert b3.files == 3 + 4
    assert b3.cann_bytes == 6100  # links are not regular files: CANN's count is unchanged
    assert not usage.unreadable


def test_an_unreadable_dir_is_listed_and_the_scan_goes_on(cache):
    write(cache / "Ascend910B3" / "locked" / "hidden.o", 4000)

    def listdir(fd):
        if os.readlink(f"/proc/self/fd/{fd}").endswith("/locked"):
            raise PermissionError(13, "Permission denied")
        return os.listdir(fd)

    usage = scan_to_end(cache, listdir=listdir)
    assert usage.unreadable == [(str(cache / "Ascend910B3" / "locked"), "Permission denied")]
    b3 = usage.socs["Ascend910B3"]
    assert b3.cann_bytes == 6100  # hidden.o not counted
    assert b3.dirs == 4  # the locked dir itself is counted, as du does
    assert usage.socs["Ascend310P3"].cann_bytes == 300


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 dir anyway")
def test_a_chmod_000_dir_is_unreadable_for_a_user(cache):
    locked = cache / "Ascend910B3" / "locked"
    write(locked / "hidden.o", 4000)
    locked.chmod(0)
    try:
        usage = scan_to_end(cache)
    finally:
        locked.chmod(0o755)
    assert [p for p, _ in usage.unreadable] == [str(locked)]


def test_an_entry_that_vanishes_is_listed(cache, monkeypatch):
    real_lstat = os.lstat

    def lstat(name, *, dir_fd=None):
        if name == "a.o":
            raise FileNotFoundError(2, "No such file or directory")
        return real_lstat(name, dir_fd=dir_fd)

    monkeypatch.setattr(os, "lstat", lstat)
    usage = scan_to_end(cache)
    monkeypatch.undo()
    assert usage.unreadable == [(str(cache / "Ascend910B3" / "a.o"), "No such file or directory")]
    assert usage.socs["Ascend910B3"].cann_bytes == 5100


def test_another_filesystem_is_not_entered(cache, monkeypatch):
    write(cache / "Ascend910B3" / "mnt" / "far.o", 9999)
    real_lstat = os.lstat

    def lstat(name, *, dir_fd=None):
        st = real_lstat(name, dir_fd=dir_fd)
        if name == "mnt":
            fields = {f: getattr(st, f) for f in dir(st) if f.startswith("st_")}
            return SimpleNamespace(**{**fields, "st_dev": st.st_dev + 1})
        return st

    monkeypatch.setattr(os, "lstat", lstat)
    usage = scan_to_end(cache)
    monkeypatch.undo()
    assert usage.other_fs == [str(cache / "Ascend910B3" / "mnt")]
    assert usage.socs["Ascend910B3"].cann_bytes == 6100


def test_files_of_other_users_are_counted(cache):
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    os.chown(cache / "Ascend910B3" / "a.o", 4321, 4321)
    os.chown(cache / "Ascend310P3" / "c.o", 4322, 4322)
    usage = scan_to_end(cache)
    assert usage.other_users_files == 2
    assert usage.other_uids == (4321, 4322)


def test_json_candidates_follow_canns_name_rules(tmp_path):
    soc = tmp_path / "kernel_cache" / "Ascend910B3"
    names = ["k.json", "k_mix_aic.json", "k_mix_aiv.json", "k_pre.json", ".json", "_mix_aic.json",
             "k.json.bak", "k.o"]
    for name in names:
        write(soc / "d" / name, 10)
    (soc / "dir.json").mkdir()  # a directory is never a candidate
    os.symlink("k.json", soc / "d" / "link.json")  # CANN collects any non-directory name
    usage = scan_to_end(tmp_path / "kernel_cache")
    found = sorted(Path(e.path).name for e in usage.socs["Ascend910B3"].json_candidates())
    # ".json" is too short; "_mix_aic.json" is exactly the suffix, which CANN's length check keeps.
    assert found == ["_mix_aic.json", "k.json", "k_pre.json", "link.json"]


def test_json_candidates_carry_access_time_and_size(cache):
    os.utime(cache / "Ascend910B3" / "a.json", (1_600_000_000, 1_600_000_000))
    (entry,) = scan_to_end(cache).socs["Ascend910B3"].json_candidates()
    assert entry.path == str(cache / "Ascend910B3" / "a.json")
    assert entry.atime == 1_600_000_000 and entry.size == 100


def test_batches_come_before_the_final_result(tmp_path):
    kc = make_tree(tmp_path, files=400, dirs=20)
    items = list(scan_cache(kc, batch_seconds=0))
    assert len(items) > 2
    *batches, final = items
    assert all(not b.done and b.usage is None for b in batches)
    assert [b.files for b in batches] == sorted(b.files for b in batches)
    assert final.done and final.usage is not None and final.files == 401
    assert set(final.socs) == set(final.usage.socs)
    for name, totals in final.socs.items():
        soc = final.usage.socs[name]
        assert totals == (soc.files, soc.apparent_bytes, soc.allocated_bytes, soc.cann_bytes)


def test_stop_between_batches_ends_the_scan(tmp_path):
    kc = make_tree(tmp_path, files=2000, dirs=40)
    fds_before = open_fds()
    asked = []

    def should_stop():
        asked.append(True)
        return len(asked) >= 2

    items = list(scan_cache(kc, batch_seconds=0, should_stop=should_stop))
    final = items[-1]
    assert final.done and final.stopped and final.usage.stopped
    assert len(asked) == 2 and len(items) == 3
    assert final.usage.files < 2001
    assert open_fds() == fds_before  # every directory fd was closed


def test_a_consumer_that_walks_away_leaks_no_fd(tmp_path):
    kc = make_tree(tmp_path, files=400, dirs=20)
    fds_before = open_fds()
    gen = scan_cache(kc, batch_seconds=0)
    next(gen)
    next(gen)
    gen.close()
    assert open_fds() == fds_before


def test_a_stop_is_polled_even_inside_one_huge_directory(tmp_path):
    kc = tmp_path / "kernel_cache"
    soc = kc / "Ascend910B3"
    soc.mkdir(parents=True)
    for i in range(5000):
        (soc / f"f{i}.o").write_bytes(b"x")
    items = list(scan_cache(kc, batch_seconds=0, should_stop=lambda: True))
    assert items[-1].stopped and items[-1].usage.socs["Ascend910B3"].files < 5000


def test_not_a_directory_is_an_input_error(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="not a directory"):
        next(scan_cache(tmp_path / "file"))
    with pytest.raises(InputError, match="cannot open"):
        next(scan_cache(tmp_path / "missing"))


def test_free_space_and_filesystem(cache):
    mounts = f"/dev/sda1 / ext4 rw 0 0\nserver:/export {cache.parent} nfs rw,vers=3,proto=tcp 0 0\n"
    usage = scan_to_end(cache, mounts_text=mounts)
    vfs = os.statvfs(cache)
    assert usage.free_bytes is not None
    assert abs(usage.free_bytes - vfs.f_bavail * vfs.f_frsize) < 64 * 1024 * 1024  # other writers
    assert usage.fs_type == "nfs" and usage.mount.mount_point == str(cache.parent)


MOUNTS = r"""/dev/vda / ext4 rw,relatime 0 0
tmpfs /dev/shm tmpfs rw 0 0
nas:/cache /mnt/cache nfs rw,relatime,vers=3,rsize=1048576 0 0
nas:/c4 /mnt/cache/v4 nfs4 rw,vers=4.2,local_lock=none 0 0
nas:/nl /mnt/nolock nfs4 rw,vers=4.1,local_lock=all 0 0
nas:/old /mnt/old nfs rw,nfsvers=3,nolock 0 0
/dev/sdb1 /mnt/with\040space xfs rw 0 0
"""


def test_mount_of_takes_the_longest_mount_point():
    assert mount_of("/mnt/cache/v4/kernel_cache", MOUNTS).fs_type == "nfs4"
    assert mount_of("/mnt/cache/kernel_cache", MOUNTS).fs_type == "nfs"
    assert mount_of("/mnt/cachex", MOUNTS).mount_point == "/"
    assert mount_of("/mnt/with space/kc", MOUNTS).fs_type == "xfs"
    assert mount_of("/x", "") is None


def test_nfs_lock_problems():
    def problem(path):
        return nfs_lock_problem(mount_of(path, MOUNTS))

    assert problem("/mnt/cache/kc") == "nfsv3"
    assert problem("/mnt/old/kc") == "nfsv3"
    assert problem("/mnt/cache/v4/kc") is None
    assert problem("/mnt/nolock/kc") == "nolock"
    assert problem("/home/u") is None
    odd = MountInfo("nas:/x", "/x", "nfs4", ("rw", "vers=3"))
    assert nfs_lock_problem(odd) == "nfsv3"
    assert nfs_lock_problem(MountInfo("nas:/x", "/x", "nfs", ("rw", "vers=4.2"))) is None


def test_parse_mounts_skips_short_lines():
    assert [m.mount_point for m in parse_mounts("garbage\n/dev/a /a ext4 rw 0 0\n")] == ["/a"]


def test_candidates_gathered_from_a_limit_are_those_gathered_always(tmp_path):
    """A scan told the limit starts gathering when a SoC dir reaches it, then lists the dirs it
    walked before for their jsons: the candidates are the same as a scan that gathers always."""
    kc = make_tree(tmp_path, files=2000, dirs=40)
    always = scan_to_end(kc)
    for name, soc in always.socs.items():
        half = soc.cann_bytes // 2
        late = list(scan_cache(kc, candidates_from=half))[-1].usage.socs[name]
        assert late.candidates_complete
        assert sorted(late.json_candidates()) == sorted(soc.json_candidates())
        assert late.totals() == soc.totals()
    never = list(scan_cache(kc, candidates_from=None))[-1].usage
    assert all(not s.candidates_complete and not s.jsons for s in never.socs.values())
    above = list(scan_cache(kc, candidates_from=10**12))[-1].usage
    assert all(not s.candidates_complete and not s.jsons for s in above.socs.values())
    assert {n: s.totals() for n, s in above.socs.items()} == {n: s.totals() for n, s in always.socs.items()}


def test_candidates_are_ordered_by_access_second_then_by_path(tmp_path):
    """CANN takes the oldest access time first (whole seconds); among one second the tool orders
    by path, which is not the order of (dir, name): "d-x/" sorts before "d/", and "a/z.json"
    after "a/b/c.json"."""
    soc = tmp_path / "kernel_cache" / "S"
    stamps = {"d/z.json": 1000.9, "d-x/a.json": 1000.1, "a/z.json": 1000.5, "a/b/c.json": 1000.0,
              "a/b/d_mix_aic.json": 10.0, "old.json": 999.99, "new.json": 1001.0, "d/a.json": 1000.3}
    for rel, stamp in stamps.items():
        write(soc / rel, 10)
        os.utime(soc / rel, (stamp, stamp))
    soc_usage = scan_to_end(tmp_path / "kernel_cache").socs["S"]
    order = [soc_usage.candidate(key) for key in soc_usage.ordered_candidates()]
    paths = [folder + "/" + name for _second, folder, name, _size in order]
    expected = sorted((rel for rel in stamps if "_mix_" not in rel), key=lambda rel: (int(stamps[rel]), str(soc / rel)))
    assert paths == [str(soc / rel) for rel in expected]
    assert [second for second, *_rest in order] == [999, 1000, 1000, 1000, 1000, 1000, 1001]
    assert expected[1:6] == ["a/b/c.json", "a/z.json", "d-x/a.json", "d/a.json", "d/z.json"]
    assert all(size == 10 for *_rest, size in order)


def test_candidate_keys_bisect_at_a_second(tmp_path):
    soc = tmp_path / "kernel_cache" / "S"
    for name, stamp in (("a.json", 50), ("b.json", 100), ("c.json", 100), ("d.json", 101)):
        write(soc / name, 1)
        os.utime(soc / name, (stamp, stamp))
    usage = scan_to_end(tmp_path / "kernel_cache").socs["S"]
    keys = usage.ordered_candidates()
    from bisect import bisect_left

    assert bisect_left(keys, usage.first_key_of_second(100)) == 1
    assert bisect_left(keys, usage.first_key_of_second(101)) == 3
    assert bisect_left(keys, usage.first_key_of_second(-5)) == 0
