"""What CANN's cache cleaner would delete at the next compiler start, predicted from a scan.

Users see a cache over its limit and ask "will CANN delete my kernels, and which?". CANN cleans
only at op-compiler initialisation, per SoC dir (docs/cann/op-cache.md#cleanup;
hicann/ge `te_cache_space_manager.cc` `CacheSpaceInitialize`, `DelCacheFileByAccessTime`,
`GetFilesAccessTime`, `AgingCacheFileByAccessTime`), and this module replays those rules on the
`SocUsage` that `app.opcache.scanner` measured:

- ageing is off when `max_op_cache_size` is -1; otherwise cleaning triggers when the SoC dir's
  size is >= max. The size is CANN's own measure, `SocUsage.cann_bytes` (regular files'
  `st_size`, every hard-link name, directories not counted; `TeFileUtils::GetDirectorySize`),
  not du's, and max is in MiB: `SIZE_MB_UNIT = 1048576` in the source (app.units.CANN_MB), so "500 MB" is
  500 x 1024 x 1024 bytes;
- CANN then deletes `size - max x ratio / 100` bytes (C integer arithmetic: the division
  truncates); `max x ratio / 100` is the keep threshold;
- candidates are the `*.json` files under the SoC dir (recursively) except `*_mix_aic.json` and
  `*_mix_aiv.json`. Each forms a group with the files it names: a `*_pre.json` stands alone; a
  json with a `jsonList` brings each listed json (`jsonFileName`) and the binary each of those
  names; any other json brings its binary `binFileName + binFileSuffix` (e.g. `Add_1a2b.o`), in
  the json's own directory. A json that cannot be parsed is a group of itself (CANN logs a
  warning and keeps only the json's size);
- groups go in order of the json's access time (whole seconds), oldest first. CANN stops at the
  first group accessed less than 1800 s ago (a cache hit refreshes the access time,
  `TeFileUtils::UpdateFileAccessTime`), or as soon as the bytes it has deleted reach the target.
  It counts a group's bytes from the sizes it read before deleting, so a file named by two
  groups is counted twice (the prediction does the same and reports the bytes really freed
  apart).

Where the prediction may differ from CANN (say so where it matters): CANN's json order among
equal access times is its directory-reading order (here: by path); CANN follows symlinks when it
measures and sizes files (here: symlinks are never followed); CANN re-checks a json's access time
just before deleting and skips the group if it changed (a job running meanwhile); CANN joins a
`jsonList` name or a binary name to the json's directory as it is, so "../x.json" reaches out of
the cache (here such a name is not followed out of the SoC dir: the group keeps the json alone,
noted as bad-json); CANN would read a FIFO or device named `*.json` (here only regular files are
opened, without blocking: anything else is a bad-json group of itself).

Cost: one bounded read per json (its `st_size`, at most MAX_JSON_BYTES), and memory in
proportion to the candidates (compact tuples per group), never to the files of the SoC dir.

Public API:
    predict_cleanup(soc, max_mb, ratio, now=None, *, read_json=..., should_stop=None) -> CleanupPrediction
        `should_stop` bounds the prediction's time (a support bundle's limit, a GUI's cancel):
        asked before each json group is read, it ends the prediction with `stopped=True`
    resolve_group(entry) -> Group
    cache_findings(usage, predictions, max_mb) -> list[Finding]
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from json import JSONDecodeError
from json import loads as json_loads
from typing import Any, NamedTuple

from cann_config.app.findings import Finding, make_finding
from cann_config.app.opcache.scanner import CacheUsage, JsonEntry, SocUsage, nfs_lock_problem
from cann_config.app.units import CANN_MB, human_bytes

AGEING_OFF = -1
# te_cache_space_manager.cc: SIZE_MB_UNIT = 1048576 (app.units.CANN_MB), PERCENT_UNIT = 100,
# MIN_CACHE_AGING_TIME = 1800 (seconds), kPreCompileFileSuffix = "_pre.json".
PERCENT_UNIT = 100
MIN_CACHE_AGING_SECONDS = 1800
PRE_JSON_SUFFIX = "_pre.json"
# Kernel jsons are a few KiB; a bigger "json" is not read (it is a group of itself, noted).
MAX_JSON_BYTES = 64 * 1024 * 1024

# Why a group holds fewer files than its json names (Group.note).
NOTE_BAD_JSON = "bad-json"  # not readable, not JSON, or not the shape CANN expects
NOTE_NO_BIN_NAME = "no-bin-name"  # a json without binFileName/binFileSuffix (CANN warns)
NOTE_BIN_MISSING = "bin-missing"  # the named binary (or listed json) does not exist
NOTE_NOT_READ = "not-read"  # another user's json: reading it would refresh its access time
# Reading a file can refresh its access time (relatime refreshes it when atime <= ctime, which is
# the case right after CANN's own utime on a cache hit), and that would change the order CANN
# deletes in. So jsons are opened with O_NOATIME, which Linux allows to the file's owner and to
# root (CAP_FOWNER) only; another user's json is left unread rather than disturbed.
_NOT_READ = object()
# O_NONBLOCK: a FIFO (or a device) named *.json must not hang the scan; fstat then refuses
# anything but a regular file before a byte is read.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | getattr(os, "O_NOATIME", 0)
_S_IFMT = 0o170000
_S_IFREG = 0o100000
_S_IFDIR = 0o040000


class GroupMember(NamedTuple):
    path: str
    size: int


class Group(NamedTuple):
    """A json and the files CANN deletes with it (a tuple: a cache over its limit has many)."""

    json_path: str
    atime: int
    members: tuple[GroupMember, ...]
    notes: tuple[str, ...] = ()

    @property
    def bytes(self) -> int:
        """The bytes CANN counts for this group (its members' sizes)."""
        return sum(m.size for m in self.members)

    def to_json(self) -> dict[str, Any]:
        return {"json": self.json_path, "atime": self.atime, "bytes": self.bytes,
                "files": [m.path for m in self.members], "notes": list(self.notes)}


@dataclass(frozen=True)
class CleanupPrediction:
    """What CANN's cleaner would do to one SoC dir at the next compiler start."""

    soc: str
    max_mb: int
    ratio: int
    used_bytes: int  # CANN's measure of the SoC dir (SocUsage.cann_bytes)
    ageing: bool  # False when max_op_cache_size is -1
    max_bytes: int | None
    keep_threshold_bytes: int | None  # max x ratio / 100
    triggers: bool
    target_bytes: int  # used - keep threshold, when it triggers; else 0
    delete: tuple[Group, ...] = ()
    kept_recent: tuple[Group, ...] = ()  # accessed in the last 30 minutes: CANN keeps them
    counted_bytes: int = 0  # what CANN believes it deleted (decides when it stops)
    freed_bytes: int = 0  # distinct files deleted
    target_reached: bool = False
    candidates: int = 0  # json groups in the SoC dir
    bad_json: tuple[str, ...] = field(default_factory=tuple)
    not_read: tuple[str, ...] = field(default_factory=tuple)
    # `should_stop` ended the prediction before it had read every group it needed: `delete`,
    # `kept_recent` and the counts cover only the groups read, so this is not what CANN does.
    stopped: bool = False

    @property
    def percent_of_limit(self) -> float | None:
        """Usage against the limit; above 100 is normal (compilation never stops at the limit)."""
        if not self.ageing or not self.max_bytes:
            return None
        return self.used_bytes * 100.0 / self.max_bytes

    @property
    def kept_recent_bytes(self) -> int:
        return sum(g.bytes for g in self.kept_recent)

    def to_json(self, with_groups: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ageing": self.ageing,
            "max_mb": self.max_mb,
            "ratio": self.ratio,
            "used_bytes": self.used_bytes,
            "max_bytes": self.max_bytes,
            "percent_of_limit": None if self.percent_of_limit is None else round(self.percent_of_limit, 1),
            "keep_threshold_bytes": self.keep_threshold_bytes,
            "triggers": self.triggers,
            "target_bytes": self.target_bytes,
            "delete_groups": len(self.delete),
            "delete_bytes": self.counted_bytes,
            "freed_bytes": self.freed_bytes,
            "target_reached": self.target_reached,
            "kept_recent_groups": len(self.kept_recent),
            "kept_recent_bytes": self.kept_recent_bytes,
            "candidate_groups": self.candidates,
            "unparsed_jsons": len(self.bad_json),
            "unread_jsons": len(self.not_read),
            "stopped": self.stopped,
        }
        if with_groups:
            data["delete"] = [g.to_json() for g in self.delete]
            data["kept_recent"] = [g.to_json() for g in self.kept_recent]
        return data


def _read_json(path: str) -> Any:
    """The parsed json; None when it cannot be used; _NOT_READ when reading would touch its atime.

    Opens only a regular file (never a FIFO, device or socket, and never blocks), never follows
    a symlink, never changes the file's access time, and reads no more than the file holds.
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except PermissionError as exc:
        return _NOT_READ if exc.errno == errno.EPERM else None
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        size = st.st_size
        if st.st_mode & _S_IFMT != _S_IFREG or size > MAX_JSON_BYTES:
            return None
        data = os.read(fd, size + 1)
        while len(data) < size:  # a short read: the rest
            more = os.read(fd, size + 1 - len(data))
            if not more:
                break
            data += more
        while size < len(data) <= MAX_JSON_BYTES:  # it grew since fstat: read on in bounded steps
            more = os.read(fd, 65536)
            if not more:
                break
            data += more
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > MAX_JSON_BYTES:
        return None
    try:
        return json_loads(data)
    except (JSONDecodeError, UnicodeDecodeError, ValueError, RecursionError):
        return None


def _size_of(path: str) -> int | None:
    """lstat size of a file; None when missing or a directory (CANN skips those)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return None if st.st_mode & _S_IFMT == _S_IFDIR else st.st_size


def _inside(folder: str, name: str, boundary: str) -> str | None:
    """`folder/name` when it stays inside `boundary` (the SoC dir), else None.

    A plain name stays in `folder`, which the walk reached without following a symlink. A name
    with "/" (a subdir, "..", an absolute-looking path) is followed only when its directory,
    resolved, is the boundary or below it.
    """
    if "/" not in name:
        return None if name in (".", "..") else folder + "/" + name
    path = os.path.normpath(folder + "/" + name)
    real_dir = os.path.realpath(os.path.dirname(path))
    real_boundary = os.path.realpath(boundary)
    if real_dir != real_boundary and not real_dir.startswith(real_boundary.rstrip("/") + "/"):
        return None
    return path


def _binary_of(folder: str, info: Any, members: list[GroupMember], notes: list[str], boundary: str) -> None:
    # AddBinFileInfoFromJson: <json dir>/<binFileName><binFileSuffix>, only when both keys exist.
    # Confirmed in te_cache_space_manager.cc and in kernel jsons written by CANN's op compilers
    # (e.g. {"binFileName": "te_op_add", "binFileSuffix": ".o", "blockDim": ..., "kernelName": ...}).
    if not isinstance(info, dict) or "binFileName" not in info or "binFileSuffix" not in info:
        notes.append(NOTE_NO_BIN_NAME)
        return
    name, suffix = info["binFileName"], info["binFileSuffix"]
    if not isinstance(name, str) or not isinstance(suffix, str):
        # nlohmann's get<std::string>() would throw here (inference: CANN's cleaner fails on this json).
        notes.append(NOTE_BAD_JSON)
        return
    path = _inside(folder, name + suffix, boundary)
    if path is None:
        notes.append(NOTE_BAD_JSON)  # names a file outside the SoC dir: not followed
        return
    size = _size_of(path)
    if size is None:
        notes.append(NOTE_BIN_MISSING)
    else:
        members.append(GroupMember(path, size))


def resolve_group(entry: JsonEntry, read_json: Callable[[str], Any] = _read_json,
                  soc_dir: str | None = None) -> Group:
    """The files CANN deletes with the json `entry` (GetFilesAccessTime).

    Names in the json are followed only inside `soc_dir` (default: the json's own directory).
    """
    members = [GroupMember(entry.path, entry.size)]
    notes: list[str] = []
    atime = int(entry.atime)
    if entry.path.endswith(PRE_JSON_SUFFIX):
        return Group(entry.path, atime, tuple(members))
    info = read_json(entry.path)
    if info is _NOT_READ:
        return Group(entry.path, atime, tuple(members), (NOTE_NOT_READ,))
    if info is None:
        return Group(entry.path, atime, tuple(members), (NOTE_BAD_JSON,))
    folder = os.path.dirname(entry.path)
    boundary = folder if soc_dir is None else soc_dir
    if not isinstance(info, dict) or "jsonList" not in info:
        _binary_of(folder, info, members, notes, boundary)
    else:
        listed = info["jsonList"]
        if not isinstance(listed, list):
            notes.append(NOTE_BAD_JSON)
            listed = []
        for item in listed:
            sub_name = item.get("jsonFileName") if isinstance(item, dict) else None
            if not isinstance(sub_name, str):
                notes.append(NOTE_BAD_JSON)
                continue
            sub_path = _inside(folder, sub_name, boundary)
            if sub_path is None:
                notes.append(NOTE_BAD_JSON)  # a listed json outside the SoC dir: not followed
                continue
            size = _size_of(sub_path)
            if size is None:
                notes.append(NOTE_BIN_MISSING)
            else:
                members.append(GroupMember(sub_path, size))
            sub_info = read_json(sub_path) if size is not None else None
            if sub_info is _NOT_READ:
                notes.append(NOTE_NOT_READ)
                continue
            if sub_info is None:
                continue
            # The binaries of listed jsons sit in the main json's directory (jsonFileDirPath).
            _binary_of(folder, sub_info, members, notes, boundary)
    return Group(entry.path, atime, tuple(members), tuple(dict.fromkeys(notes)) if notes else ())


def predict_cleanup(soc: SocUsage, max_mb: int, ratio: int, now: float | None = None, *,
                    read_json: Callable[[str], Any] = _read_json,
                    should_stop: Callable[[], bool] | None = None) -> CleanupPrediction:
    """What CANN would delete from `soc` at a compiler start at time `now` (default: now).

    `max_mb` and `ratio` are the effective `max_op_cache_size` and `remain_cache_size_ratio`
    (app.opcache.resolution); `max_mb == -1` means no ageing.

    Reading the kernel jsons is the only slow part (a cache of a few hundred thousand kernels
    takes seconds). `should_stop` is asked before each group whose jsons have not been read yet
    (groups read by an earlier prediction on the same scan cost nothing and are not asked
    about); when it answers True the prediction ends there with `stopped=True`, and `delete`,
    `kept_recent` and the counts cover only the groups read so far.
    """
    used = soc.cann_bytes
    if max_mb == AGEING_OFF:
        return CleanupPrediction(soc.name, max_mb, ratio, used, ageing=False, max_bytes=None,
                                 keep_threshold_bytes=None, triggers=False, target_bytes=0)
    max_bytes = max_mb * CANN_MB
    keep = max_bytes * ratio // PERCENT_UNIT
    if used < max_bytes:
        return CleanupPrediction(soc.name, max_mb, ratio, used, ageing=True, max_bytes=max_bytes,
                                 keep_threshold_bytes=keep, triggers=False, target_bytes=0)
    if not soc.candidates_complete:
        raise ValueError(f"the scan of {soc.path} did not gather the cleanup candidates for this limit")
    target = used - keep
    now_s = int(time.time() if now is None else now)
    # A multimap keyed by st_atime (whole seconds), oldest first; ties by path here.
    candidates = sorted(soc.json_candidates(), key=lambda e: (int(e.atime), e.path))
    cache = soc.group_cache
    soc_dir = str(soc.path)
    stopped = False

    def resolve(entry: JsonEntry) -> Group | None:
        """The entry's group; None once `should_stop` has said stop."""
        nonlocal stopped
        group = cache.get(entry.path)
        if group is None:
            if stopped or (should_stop is not None and should_stop()):
                stopped = True
                return None
            group = cache[entry.path] = resolve_group(entry, read_json, soc_dir)
        return group

    def resolve_all(entries: list[JsonEntry]) -> list[Group]:
        groups = []
        for entry in entries:
            group = resolve(entry)
            if group is None:
                break
            groups.append(group)
        return groups

    delete: list[Group] = []
    kept: list[Group] | None = None
    counted = 0
    for index, entry in enumerate(candidates):
        if now_s - int(entry.atime) < MIN_CACHE_AGING_SECONDS:
            # Sorted by access time: every later group is recent too.
            kept = resolve_all(candidates[index:])
            break
        group = resolve(entry)
        if group is None:
            break
        delete.append(group)
        counted += group.bytes
        if counted >= target:
            break
    if kept is None:
        kept = [] if stopped else resolve_all(
            [e for e in candidates if now_s - int(e.atime) < MIN_CACHE_AGING_SECONDS])
    freed = sum({m.path: m.size for g in delete for m in g.members}.values())
    bad = tuple(g.json_path for g in (*delete, *kept) if NOTE_BAD_JSON in g.notes)
    not_read = tuple(g.json_path for g in (*delete, *kept) if NOTE_NOT_READ in g.notes)
    return CleanupPrediction(soc.name, max_mb, ratio, used, ageing=True, max_bytes=max_bytes,
                             keep_threshold_bytes=keep, triggers=True, target_bytes=target,
                             delete=tuple(delete), kept_recent=tuple(kept), counted_bytes=counted,
                             freed_bytes=freed, target_reached=counted >= target,
                             candidates=len(candidates), bad_json=bad, not_read=not_read, stopped=stopped)


def _percent(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def cache_findings(usage: CacheUsage, predictions: Mapping[str, CleanupPrediction], max_mb: int) -> list[Finding]:
    """What a user needs to know about this cache, beyond the numbers."""
    found: list[Finding] = []
    where = str(usage.kernel_cache)
    if usage.stopped:
        found.append(make_finding("scan-stopped", file=where, files=usage.files))
    if max_mb != AGEING_OFF and usage.free_bytes is not None and max_mb * CANN_MB > usage.free_bytes:
        found.append(make_finding("scan-limit-above-free", file=where, limit=human_bytes(max_mb * CANN_MB),
                                  max_mb=max_mb, free=human_bytes(usage.free_bytes)))
    problem = nfs_lock_problem(usage.mount)
    if problem is not None and usage.mount is not None:
        code = "scan-nfs-v3-locks" if problem == "nfsv3" else "scan-nfs-local-locks"
        found.append(make_finding(code, file=where, mount=usage.mount.mount_point, fs_type=usage.mount.fs_type,
                                  options=",".join(usage.mount.options)))
    if usage.other_users_files:
        found.append(make_finding("scan-other-users", file=where, files=usage.other_users_files,
                                  uids=", ".join(str(u) for u in usage.other_uids)))
    if usage.unreadable:
        first_path, first_reason = usage.unreadable[0]
        found.append(make_finding("scan-unreadable", file=where, count=len(usage.unreadable),
                                  first=first_path, reason=first_reason))
    if usage.other_fs:
        found.append(make_finding("scan-other-filesystem", file=where, count=len(usage.other_fs),
                                  first=usage.other_fs[0]))
    # A symlinked SoC dir counts here too: CANN opens it (and measures its target), the scan does not.
    symlinks = usage.top.symlinks + sum(s.symlinks for s in usage.socs.values())
    if symlinks:
        found.append(make_finding("scan-symlinks", file=where, count=symlinks))
    for name, pred in predictions.items():
        soc_dir = str(usage.kernel_cache / name)
        percent = pred.percent_of_limit
        if pred.triggers and percent is not None:
            found.append(make_finding("scan-over-limit", file=soc_dir, soc=name, percent=_percent(percent),
                                      used=human_bytes(pred.used_bytes), limit=human_bytes(pred.max_bytes or 0)))
            if pred.stopped:
                # A partial prediction: "short of the target" would be a guess, so say what is known.
                found.append(make_finding("scan-cleanup-stopped", file=soc_dir, soc=name,
                                          groups=len(pred.delete), deleted=human_bytes(pred.counted_bytes)))
            elif not pred.target_reached:
                # Either the rest was used in the last 30 minutes, or the rest is not in any json
                # group (CANN deletes only json groups; other files stay).
                code = "scan-cleanup-short-recent" if pred.kept_recent else "scan-cleanup-short-no-groups"
                found.append(make_finding(code, file=soc_dir, soc=name, target=human_bytes(pred.target_bytes),
                                          deleted=human_bytes(pred.counted_bytes), recent=len(pred.kept_recent)))
        if pred.bad_json:
            found.append(make_finding("scan-json-unparsed", file=pred.bad_json[0], soc=name,
                                      count=len(pred.bad_json)))
        if pred.not_read:
            found.append(make_finding("scan-json-not-read", file=pred.not_read[0], soc=name,
                                      count=len(pred.not_read)))
    return found
