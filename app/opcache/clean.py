"""Delete what CANN's cleaner means to delete, under CANN's own lock (`cann-config clean`).

On most Linux machines CANN's own cleanup deletes little or nothing: its parse read refreshes the
access times it keyed the jsons by, and its re-check then keeps the groups
(docs/cann/op-cache.md#access-time-re-check). This module does what CANN means to do: the
prediction of app.opcache.cleanup with the keys alone (`atime_rule="noatime"`: oldest access
first, never a group used in the last 30 minutes, `*_pre.json` and unparsable jsons left alone,
down to max x ratio / 100), deleted the way CANN deletes:

- under CANN's lock `<SoC dir>/op_cache_file_del.lock` (hicann/ge `te_cache_utils.cc`
  `LockAndOpenCacheFile`: `fopen(..., "a+")`, `chmod 0640`, a non-blocking `fcntl(F_SETLK)`
  write lock over the whole file; `te_cache_space_manager.cc` `CacheSpaceInitialize` skips the
  cleanup when another process holds it), taken the same way, and refused when held;
- the json's access time re-checked before its group is deleted (`AgingCacheFileByAccessTime`):
  a job that hit the kernel since the prediction keeps it;
- regular files only (`TeFileUtils::DeleteFile` checks `lstat`), each unlinked relative to its
  directory, opened from the SoC dir one component at a time without following a symlink, so
  nothing outside the SoC dir is reached.
"""

import errno
import fcntl
import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import NamedTuple

from cann_config.app.opcache.cleanup import Group

LOCK_NAME = "op_cache_file_del.lock"  # te_cache_space_manager.cc: delCacheLockName + ".lock"
LOCK_MODE = 0o640  # te_fusion_util_constants.h FILE_AUTHORITY
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class LockHeld(Exception):
    """Another process holds CANN's delete lock of a SoC dir (or it cannot be taken)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(path)
        self.path, self.reason = path, reason


@contextmanager
def canns_delete_lock(soc_dir: str) -> Iterator[str]:
    """Hold CANN's delete lock of `soc_dir` (yields its path); LockHeld when another process
    holds it or it cannot be opened. The lock file is created when missing, as CANN does."""
    path = os.path.join(soc_dir, LOCK_NAME)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW, LOCK_MODE)
    except OSError as exc:
        raise LockHeld(path, exc.strerror or type(exc).__name__) from None
    try:
        try:
            # fcntl.lockf is fcntl(F_SETLK) with a whole-file F_WRLCK: the lock CANN takes.
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            held = exc.errno in (errno.EACCES, errno.EAGAIN)
            raise LockHeld(path, "held" if held else (exc.strerror or type(exc).__name__)) from None
        yield path
    finally:
        os.close(fd)  # closing releases the lock


class CleanResult(NamedTuple):
    """What a clean of one SoC dir deleted."""

    deleted_groups: int
    deleted_files: int
    freed_bytes: int
    changed_groups: tuple[str, ...]  # json paths whose access time changed since the prediction
    failed: tuple[tuple[str, str], ...]  # (path, reason) of files that could not be deleted


def delete_groups(soc_dir: str, groups: Iterable[Group]) -> CleanResult:
    """Delete `groups` (a prediction's `delete`, inside `soc_dir`), each only if its json's
    access time still equals its key. The caller holds canns_delete_lock(soc_dir)."""
    root = os.open(soc_dir, _DIR_FLAGS)
    deleted_groups = deleted_files = freed = 0
    changed: list[str] = []
    failed: list[tuple[str, str]] = []
    dirs: dict[str, int] = {"": root}
    try:
        for group in groups:
            members = group.members
            json_rel = _inside(soc_dir, members[0].path)
            json_dir = _dir_fd(dirs, root, os.path.dirname(json_rel)) if json_rel is not None else -1
            try:
                if json_dir < 0 or json_rel is None:
                    raise FileNotFoundError(errno.ENOENT, "not inside the SoC dir")
                st = os.stat(os.path.basename(json_rel), dir_fd=json_dir, follow_symlinks=False)
            except OSError:
                changed.append(group.json_path)  # gone since the prediction
                continue
            if int(st.st_atime) != group.atime:
                changed.append(group.json_path)
                continue
            deleted_groups += 1
            for member in members:
                rel = _inside(soc_dir, member.path)
                folder = _dir_fd(dirs, root, os.path.dirname(rel)) if rel is not None else -1
                if rel is None or folder < 0:
                    failed.append((member.path, "outside the SoC dir or not reachable without a symlink"))
                    continue
                name = os.path.basename(rel)
                try:
                    st = os.stat(name, dir_fd=folder, follow_symlinks=False)
                    if not stat.S_ISREG(st.st_mode):
                        continue  # TeFileUtils::DeleteFile: regular files only
                    os.unlink(name, dir_fd=folder)
                except FileNotFoundError:
                    continue  # named by an earlier group too, or gone
                except OSError as exc:
                    failed.append((member.path, exc.strerror or type(exc).__name__))
                    continue
                deleted_files += 1
                freed += st.st_size
    finally:
        for fd in dirs.values():
            if fd >= 0:
                os.close(fd)
    return CleanResult(deleted_groups, deleted_files, freed, tuple(changed), tuple(failed))


def _inside(soc_dir: str, path: str) -> str | None:
    """`path` relative to `soc_dir` when it lies below it (lexically), else None."""
    rel = os.path.relpath(os.path.normpath(path), os.path.normpath(soc_dir))
    return None if rel == "." or rel.startswith("../") or rel == ".." or os.path.isabs(rel) else rel


def _dir_fd(dirs: dict[str, int], root: int, rel: str) -> int:
    """An fd of the dir `rel` below the SoC dir, opened one component at a time without following
    a symlink (kept in `dirs`); -1 when it cannot be opened."""
    found = dirs.get(rel)
    if found is not None:
        return found
    parent = _dir_fd(dirs, root, os.path.dirname(rel)) if os.path.dirname(rel) else root
    fd = -1
    if parent >= 0:
        try:
            fd = os.open(os.path.basename(rel), _DIR_FLAGS, dir_fd=parent)
        except OSError:
            fd = -1
    dirs[rel] = fd
    return fd
