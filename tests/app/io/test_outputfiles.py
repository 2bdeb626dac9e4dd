"""The one writer: regular files only, atomic, locked, refusing what changed on disk, tidy after a kill."""

from __future__ import annotations

import os
import re
import signal
import socket
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cann_config.app.errors import InputError
from cann_config.app.io.outputfiles import (
    ABSENT,
    FileChangedError,
    _lock_name,
    _temp_prefix,
    is_stdout,
    write_output,
)

ROOT = Path(__file__).resolve().parents[3]


def leftovers(directory: Path) -> list[str]:
    """Temporary and lock files a save left behind."""
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


def test_writes_a_new_file_with_the_umask_mode(tmp_path):
    target = tmp_path / "out.py"
    result = write_output(target, b"x = 1\n")
    assert target.read_bytes() == b"x = 1\n" and result.created and result.written
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert leftovers(tmp_path) == []


def test_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    target = tmp_path / "out.py"
    target.write_bytes(b"old")
    target.chmod(0o600)
    write_output(target, b"new")
    assert target.read_bytes() == b"new" and stat.S_IMODE(target.stat().st_mode) == 0o600


@pytest.mark.parametrize("make,kind", [
    (lambda p: os.mkfifo(p), "is a FIFO (named pipe), not a regular file"),
    (lambda p: os.mknod(p, 0o666 | stat.S_IFCHR, os.makedev(1, 3)), "is a character device, not a regular file"),
    (lambda p: p.symlink_to("/dev/null"), "is a character device, not a regular file"),
    (lambda p: socket.socket(socket.AF_UNIX).bind(str(p)), "is a socket, not a regular file"),
    (lambda p: p.mkdir(), "is a directory"),
])
def test_never_replaces_anything_but_a_regular_file(tmp_path, make, kind):
    target = tmp_path / "target"
    make(target)
    before = os.lstat(target)
    with pytest.raises(InputError, match=re.escape(kind)) as info:
        write_output(target, b"data")
    assert str(info.value).startswith(f"{target}: ") and "\n" not in str(info.value)
    after = os.lstat(target)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert os.lstat("/dev/null").st_mode & stat.S_IFCHR


def test_a_read_only_file_is_refused_unless_forced(tmp_path):
    target = tmp_path / "keep.txt"
    target.write_bytes(b"keep")
    target.chmod(0o444)
    with pytest.raises(InputError, match=r"is read-only \(mode 0444\).*--force"):
        write_output(target, b"new")
    assert target.read_bytes() == b"keep"
    write_output(target, b"new", force=True)
    assert target.read_bytes() == b"new" and stat.S_IMODE(target.stat().st_mode) == 0o444


def test_a_symlink_is_followed_and_stays(tmp_path):
    real = tmp_path / "real.ini"
    real.write_bytes(b"old")
    link = tmp_path / "link.ini"
    link.symlink_to(real)
    write_output(link, b"new")
    assert link.is_symlink() and real.read_bytes() == b"new"


def test_stdout_names(capfdbinary):
    assert all(is_stdout(name) for name in ("-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"))
    assert not is_stdout("./-x")
    write_output("/dev/stdout", b"to stdout\n")
    write_output("-", b"again\n")
    assert capfdbinary.readouterr().out == b"to stdout\nagain\n"


def test_the_fingerprint_check(tmp_path):
    target = tmp_path / "op_cache.ini"
    target.write_bytes(b"v1")
    with pytest.raises(FileChangedError, match="changed on disk since it was read"):
        write_output(target, b"v3", expected=b"v0")
    assert target.read_bytes() == b"v1"
    write_output(target, b"v2", expected=b"v1")
    assert target.read_bytes() == b"v2"
    with pytest.raises(FileChangedError, match="exists already"):
        write_output(target, b"new", expected=ABSENT)


def test_a_removed_file_is_not_created_again(tmp_path):
    target = tmp_path / "op_cache.ini"
    with pytest.raises(FileChangedError, match="was removed since it was read"):
        write_output(target, b"v2", expected=b"v1")
    assert not target.exists() and leftovers(tmp_path) == []


def test_a_file_replaced_by_a_fifo_is_refused_without_blocking(tmp_path):
    target = tmp_path / "op_cache.ini"
    os.mkfifo(target)
    with pytest.raises(InputError, match="FIFO"):
        write_output(target, b"v2", expected=b"v1")
    assert stat.S_ISFIFO(os.lstat(target).st_mode)


def test_a_backup_of_the_previous_content(tmp_path):
    target = tmp_path / "op_cache.ini"
    target.write_bytes(b"v1")
    target.chmod(0o640)
    result = write_output(target, b"v2", expected=b"v1", backup=tmp_path / "op_cache.ini.bak")
    assert result.backup == tmp_path / "op_cache.ini.bak"
    assert (tmp_path / "op_cache.ini.bak").read_bytes() == b"v1"
    assert stat.S_IMODE((tmp_path / "op_cache.ini.bak").stat().st_mode) == 0o640


def test_long_names_and_missing_directories_are_one_line(tmp_path):
    name = "x" * 250  # a valid name: the temporary file beside it must not be too long either
    write_output(tmp_path / name, b"ok")
    assert (tmp_path / name).read_bytes() == b"ok"
    with pytest.raises(InputError, match="File name too long"):
        write_output(tmp_path / ("x" * 300), b"no")
    with pytest.raises(InputError, match="the directory does not exist"):
        write_output(tmp_path / "nope" / "f", b"no")


def test_stale_temporary_files_are_removed_but_not_others(tmp_path):
    target = tmp_path / "op_cache.ini"
    target.write_bytes(b"v1")
    stale = tmp_path / (_temp_prefix("op_cache.ini") + "abc123.tmp")
    older = tmp_path / ".op_cache.ini.k2j4h5g6.tmp"  # what earlier versions left after a kill
    other = tmp_path / (_temp_prefix("other.ini") + "abc123.tmp")
    for path in (stale, older, other):
        path.write_bytes(b"half")
    write_output(target, b"v2")
    assert not stale.exists() and not older.exists() and other.exists()


# ---------------------------------------------------------------------------------------------
# Two processes, and a kill -9
# ---------------------------------------------------------------------------------------------

SAVER = textwrap.dedent("""
    import sys
    from cann_config.app.io.outputfiles import FileChangedError
    from cann_config.app.opcache.ini import read_op_cache_ini, save_op_cache_ini

    path, who, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for i in range(rounds):
        ini = read_op_cache_ini(path)
        data = ini.original + f"#edit_{who}_{i}\\n".encode()
        try:
            save_op_cache_ini(path, data, ini.original, backup=False)
        except FileChangedError:
            print(f"changed {who} {i}", flush=True)
        else:
            print(f"saved {who} {i}", flush=True)
""")


def _python_env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path / ".pyc")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def test_two_processes_saving_at_once_lose_no_update(tmp_path):
    """Two processes each read op_cache.ini, add a line and save it, 40 times at once. Every save
    either lands or is refused as changed on disk, and the final file holds every line whose
    save reported success (issue 15: without the lock and the check, 23 of 60 runs lost one)."""
    work = tmp_path / "cache"
    work.mkdir()
    ini = work / "op_cache.ini"
    ini.write_bytes(b"[op_compiler_cache]\nmax_op_cache_size=500\nremain_cache_size_ratio=80\n")
    rounds = 40
    env = _python_env(tmp_path)
    procs = [subprocess.Popen([sys.executable, "-c", SAVER, str(ini), who, str(rounds)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env, text=True) for who in ("a", "b")]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outputs]
    lines = [line for out, _ in outputs for line in out.splitlines()]
    assert len(lines) == 2 * rounds
    saved = [line.split()[1:] for line in lines if line.startswith("saved ")]
    final = ini.read_text()
    lost = [f"edit_{who}_{i}" for who, i in saved if f"#edit_{who}_{i}\n" not in final]
    assert lost == [], f"{len(lost)} saves reported success but are not in the file"
    assert final.count("edit_") == len(saved)  # nothing refused slipped in either
    assert leftovers(work) == []


KILLED_SAVER = textwrap.dedent("""
    import os, sys, time
    from cann_config.app.io import outputfiles

    def stuck(src, dst):  # the temporary file is written: hang just before the rename
        print("writing", flush=True)
        time.sleep(600)

    outputfiles.os.replace = stuck
    outputfiles.write_output(sys.argv[1], b"half-saved", expected=open(sys.argv[1], "rb").read())
""")


def test_a_save_killed_midway_leaves_the_file_and_is_tidied_by_the_next(tmp_path):
    work = tmp_path / "cache"
    work.mkdir()
    ini = work / "op_cache.ini"
    ini.write_bytes(b"[op_compiler_cache]\nmax_op_cache_size=500\n")
    proc = subprocess.Popen([sys.executable, "-c", KILLED_SAVER, str(ini)], stdout=subprocess.PIPE,
                            env=_python_env(tmp_path), text=True)
    try:
        assert proc.stdout.readline() == "writing\n"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stdout.close()
    assert ini.read_bytes() == b"[op_compiler_cache]\nmax_op_cache_size=500\n"
    left = leftovers(work)
    assert any(name.endswith(".tmp") for name in left) and _lock_name("op_cache.ini") in left
    # The kernel released the dead writer's lock: the next save goes through and tidies up.
    write_output(ini, b"[op_compiler_cache]\nmax_op_cache_size=600\n",
                 expected=b"[op_compiler_cache]\nmax_op_cache_size=500\n")
    assert ini.read_bytes().endswith(b"600\n") and leftovers(work) == []


def test_a_save_waits_for_another_and_gives_up_with_one_line(tmp_path):
    import fcntl

    target = tmp_path / "op_cache.ini"
    target.write_bytes(b"v1")
    lock = tmp_path / _lock_name("op_cache.ini")
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(InputError, match="another save of this file did not finish within 0.2 s"):
            write_output(target, b"v2", lock_timeout=0.2)
    assert target.read_bytes() == b"v1"


@pytest.fixture
def tiny_disk(tmp_path):
    """A 64 KiB tmpfs of our own (root only): a real full disk, not a simulated one."""
    mount_point = tmp_path / "tiny"
    mount_point.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount_point)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def _fill(directory: Path, leave: int) -> None:
    """Fill the filesystem of `directory` until about `leave` bytes are free."""
    free = os.statvfs(directory).f_bavail * os.statvfs(directory).f_frsize
    (directory / "filler").write_bytes(b"x" * max(0, free - leave))


def test_a_save_that_fails_for_space_keeps_the_file_and_the_older_backup(tiny_disk):
    from cann_config.app.opcache.ini import save_op_cache_ini

    ini = tiny_disk / "op_cache.ini"
    first = b"[op_compiler_cache]\nmax_op_cache_size=500\n"
    second = b"[op_compiler_cache]\nmax_op_cache_size=600\n"
    ini.write_bytes(first)
    save_op_cache_ini(ini, second, first)
    assert (tiny_disk / "op_cache.ini.bak").read_bytes() == first
    # Room for a backup of `second` (one 4 KiB page), not for the much larger new content.
    _fill(tiny_disk, 8 << 10)
    third = b"[op_compiler_cache]\n" + b"# a long comment\n" * 4000
    with pytest.raises(InputError) as caught:
        save_op_cache_ini(ini, third, second)
    assert str(ini) in str(caught.value)
    assert ini.read_bytes() == second
    assert (tiny_disk / "op_cache.ini.bak").read_bytes() == first  # the older backup is kept
    assert leftovers(tiny_disk) == []
