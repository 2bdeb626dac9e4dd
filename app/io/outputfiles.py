"""The one guarded way out: every file the tool writes is written here.

Every save (export `-o`, the op_cache.ini edit with its backup, a report, a support bundle, a
profile, the wizard's saves) goes through `write_output` (docs/architecture.md#input-and-output):

- only regular files are written: a FIFO, socket or device node at the target (as root,
  `-o /dev/null` would otherwise replace the real one) is refused with one line and never opened,
  so a FIFO cannot make a save hang; `-` (and `/dev/stdout`) mean standard output;
- a target the user may not write (no write bit, as 0444, or no access) is refused unless
  `force`; the target's mode (and owner, where allowed) is kept, a new file gets `new_mode`;
- atomic: a temporary file in the same directory, fsync, rename over the target, fsync of the
  directory: a reader never sees half a file, a crash leaves the old file or the new one;
- serialised: writers of one target take an flock on a lock file beside it
  (`.<name>.<hash>.lock`, removed again after the save). Only this tool's writers take it. CANN
  rewrites op_cache.ini's version lines itself and locks `op_cache_file_del` while it cleans the
  cache (docs/cann/op-cache.md); that lock is CANN's and is never taken here, so a save can never
  make a compile wait;
- checked: under the lock the file on disk is compared with what was read (`expected`): a file
  changed since (by another save, an editor, CANN) is refused with FileChangedError and nothing is
  lost; a file removed since is not created again; `expected=ABSENT` creates only a new file;
- tidy: temporary files of this target that a killed writer left behind (`kill -9` mid-save)
  are removed under the lock, where no live writer of this target can own one.

On NFS without a lock daemon flock fails with ENOLCK: the save goes on without the lock (the
comparison with `expected` still runs) rather than not at all.

Public API:
    write_output(path, data, *, expected=ANY, force=False, new_mode=None, backup=None,
                 lock_timeout=10.0) -> WriteResult
    ANY, ABSENT                          what `expected` may be besides the bytes that were read
    is_stdout(path) -> bool              `-`, /dev/stdout, /dev/fd/1, /proc/self/fd/1
    FileChangedError (InputError)        the disk does not hold what was read: nothing written
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import contextlib
import errno
import fcntl
import os
import re
import stat
import sys
import time
from pathlib import Path
from typing import NamedTuple

from cann_config.app.errors import InputError, Message, os_reason
from cann_config.app.io.inputfiles import describe_kind, read_input_bytes

ANY = "any"  # overwrite whatever regular file is there (the user named the target)
ABSENT = "absent"  # create a new file; refuse when one appeared meanwhile
STDOUT_NAMES = ("-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")
# What a fingerprint check reads back at most: far more than any file this tool writes.
MAX_COMPARE_BYTES = 64 << 20
_LOCK_POLL = 0.02


class FileChangedError(InputError):
    """The file on disk is not the one that was read: nothing was written."""


class WriteResult(NamedTuple):
    path: Path  # as the caller named it ("-" for standard output)
    written: bool  # False when the file already held exactly these bytes
    created: bool
    backup: Path | None
    mode: int | None


def is_stdout(path: str | os.PathLike[str]) -> bool:
    """Whether `path` names standard output rather than a file."""
    return os.fspath(path) in STDOUT_NAMES


def _stamp(name: str) -> str:
    """A short, per-target name part: long names stay under NAME_MAX, and two targets that share
    a long prefix never share a lock or clean each other's temporary files."""
    import hashlib  # here, where a file is written: reading commands import this module too

    return name[:64] + "." + hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]


def _temp_prefix(name: str) -> str:
    return f".{_stamp(name)}."


def _lock_name(name: str) -> str:
    return f".{_stamp(name)}.lock"


def _error(code: str, path: Path, exc: OSError | None = None, **params: object) -> InputError:
    if exc is not None:
        params["detail"] = os_reason(exc)
    return InputError(Message(code, **params), path)


def _target_of(path: Path) -> Path:
    """The file a save replaces: a symlink is followed (the link stays, its target changes)."""
    try:
        if path.is_symlink():
            return Path(os.path.realpath(path))
    except OSError as exc:
        raise _error("core-output-cannot-write", path, exc) from None
    return path


def _lstat(target: Path, shown: Path) -> os.stat_result | None:
    try:
        return os.lstat(target)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise _error("core-output-cannot-write", shown, exc) from None
    except ValueError:
        raise _error("core-output-cannot-write", shown, detail=Message("core-os-nul-in-path")) from None


def _check_kind(info: os.stat_result | None, shown: Path) -> None:
    if info is None or stat.S_ISREG(info.st_mode):
        return
    if stat.S_ISDIR(info.st_mode):
        raise _error("core-output-directory", shown)
    raise _error("core-output-special", shown, kind=describe_kind(info.st_mode))


def _writable(target: Path, info: os.stat_result) -> bool:
    """Whether the user may write `target`: a write bit set (root's override does not count: a
    0444 file says "do not change me") and write access."""
    return bool(info.st_mode & 0o222) and os.access(target, os.W_OK)


@contextlib.contextmanager
def _locked(directory: Path, name: str, shown: Path, timeout: float):
    """Hold the flock of `name`'s lock file in `directory`; the lock file is removed afterwards."""
    lock_path = directory / _lock_name(name)
    deadline = time.monotonic() + timeout
    fd = None
    while True:
        try:
            fd = os.open(lock_path, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o644)
        except OSError as exc:
            raise _error("core-output-cannot-write", shown, exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            fd = None
            if exc.errno == errno.ENOLCK:
                break  # no lock service (NFSv3 without lockd): go on with the fingerprint check alone
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise _error("core-output-cannot-write", shown, exc) from None
            if time.monotonic() >= deadline:
                raise _error("core-output-busy", shown, seconds=f"{timeout:g}") from None
            time.sleep(_LOCK_POLL)
            continue
        # The previous holder may have removed the file we opened: lock the one at the path.
        try:
            same = os.path.samestat(os.fstat(fd), os.lstat(lock_path))
        except OSError:
            same = False
        if same:
            break
        os.close(fd)
        fd = None
    try:
        yield
    finally:
        if fd is not None:
            with contextlib.suppress(OSError):
                os.unlink(lock_path)
            os.close(fd)


def _remove_stale_temps(directory: Path, name: str) -> None:
    """Remove temporary files of `name` a killed writer left (called under the lock).

    Ours are `.<stamp>.<random>.tmp`; older versions of the tool wrote `.<name>.<8 random>.tmp`.
    Only regular files owned by this user are removed, never a symlink's target.
    """
    ours = re.compile(re.escape(_temp_prefix(name)) + r"[A-Za-z0-9_]+\.tmp")
    older = re.compile(re.escape(f".{name}.") + r"[A-Za-z0-9_]{8}\.tmp")
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        if not (ours.fullmatch(entry.name) or older.fullmatch(entry.name)):
            continue
        with contextlib.suppress(OSError):
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid():
                os.unlink(entry.path)


def _current_bytes(target: Path, shown: Path) -> bytes | None:
    """What the target holds now (None when nothing is there), read without blocking."""
    if _lstat(target, shown) is None:
        return None
    try:
        data, _ = read_input_bytes(target, Message("core-kind-saved-file"), MAX_COMPARE_BYTES)
    except InputError as exc:
        if exc.code == "core-input-special":
            raise _error("core-output-special", shown, kind=exc.message.params.get("kind")) from None
        raise
    return data


def _write_temp(directory: Path, target: Path, data: bytes, mode: int, owner: tuple[int, int] | None) -> str:
    """`data` in a new temporary file beside `target`, on the disk (fsync); its path. Nothing is
    left behind when it raises (a full disk, a quota)."""
    import tempfile  # here, not at the top: tempfile imports shutil (with bz2, lzma) and random,
    # which commands that only read (diagnose, scan) import this module without needing

    fd, temp = tempfile.mkstemp(dir=directory, prefix=_temp_prefix(target.name), suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            if owner is not None:
                with contextlib.suppress(OSError):  # only root can give a file away; the mode is what matters
                    os.fchown(handle.fileno(), *owner)
            os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return temp


def _commit(temp: str, directory: Path, target: Path) -> None:
    """Rename the written temporary file over `target`, and make the rename itself durable."""
    try:
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    # The rename itself must reach the disk: fsync the directory that holds the new entry.
    with contextlib.suppress(OSError):
        dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _atomic_replace(directory: Path, target: Path, data: bytes, mode: int, owner: tuple[int, int] | None) -> None:
    _commit(_write_temp(directory, target, data, mode, owner), directory, target)


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_output(path: str | os.PathLike[str], data: bytes, *, expected: bytes | str = ANY, force: bool = False,
                 new_mode: int | None = None, backup: Path | None = None, lock_timeout: float = 10.0) -> WriteResult:
    """Write `data` to `path` (see the module docstring); nothing is written when it raises.

    `expected`: ANY (replace whatever regular file is there), ABSENT (only create), or the bytes
    that were read (replace only if the file still holds them). `backup`: a path that receives
    the previous content first (same mode), under the same lock. Raises FileChangedError when the
    disk disagrees with `expected`, InputError naming the file for everything else.
    """
    shown = Path(path)
    if is_stdout(path):
        stream = sys.stdout.buffer
        sys.stdout.flush()
        stream.write(data)
        stream.flush()
        return WriteResult(shown, True, False, None, None)
    target = _target_of(shown)
    info = _lstat(target, shown)
    _check_kind(info, shown)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        if not stat.S_ISDIR(os.stat(directory).st_mode):
            raise _error("core-output-no-directory", shown, directory=directory)
    except (FileNotFoundError, NotADirectoryError):
        raise _error("core-output-no-directory", shown, directory=directory) from None
    except OSError as exc:
        raise _error("core-output-cannot-write", shown, exc) from None
    try:
        with _locked(directory, target.name, shown, lock_timeout):
            _remove_stale_temps(directory, target.name)
            info = _lstat(target, shown)  # again, under the lock
            _check_kind(info, shown)
            current: bytes | None = None
            if expected is ABSENT or isinstance(expected, bytes):
                current = _current_bytes(target, shown)
                if expected is ABSENT and current is not None:
                    raise FileChangedError.from_code("core-output-exists", shown)
                if isinstance(expected, bytes) and current is None:
                    raise FileChangedError.from_code("core-output-removed", shown)
                if isinstance(expected, bytes) and current != expected:
                    raise FileChangedError.from_code("core-output-changed", shown)
            mode = new_mode if new_mode is not None else _default_mode()
            owner = None
            if info is not None:
                if not force and not _writable(target, info):
                    raise _error("core-output-read-only", shown, mode=f"{stat.S_IMODE(info.st_mode):04o}")
                mode = stat.S_IMODE(info.st_mode)
                owner = (info.st_uid, info.st_gid)
                if current is not None and current == data:
                    return WriteResult(shown, False, False, None, mode)
            saved_backup = None
            # The new content is on the disk before the backup is touched: a save that fails for
            # want of space keeps both the file and the previous backup as they were.
            temp = _write_temp(directory, target, data, mode, owner)
            try:
                if backup is not None and info is not None:
                    previous = current if current is not None else _current_bytes(target, shown)
                    if previous is not None:
                        _atomic_replace(backup.parent, backup, previous, mode, owner)
                        saved_backup = backup
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
            _commit(temp, directory, target)
    except OSError as exc:
        raise _error("core-output-cannot-write", shown, exc) from None
    return WriteResult(shown, True, info is None, saved_backup, mode)
