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
  `*_mix_aiv.json`, keyed by their access time (whole seconds). A `*_pre.json` is skipped, and
  so is a json CANN cannot parse (nlohmann's non-strict parse: bytes after the first complete
  value are ignored): never deleted, never counted. Any other json forms a group with the files
  it names: with a `jsonList` each listed json (`jsonFileName`) and the binary each of those
  names; otherwise its binary `binFileName + binFileSuffix` (e.g. `Add_1a2b.o`), in the json's
  own directory;
- groups go in order of the key, oldest first. CANN stops at the first group accessed less than
  1800 s ago (a cache hit refreshes the access time, `TeFileUtils::UpdateFileAccessTime`), or as
  soon as the bytes it has deleted reach the target. Before deleting a group it `stat`s the json
  again and deletes it only if the access time still equals the key: its own parse read may
  have refreshed it, by the mount's atime rule (app.opcache.atime,
  docs/cann/op-cache.md#access-time-re-check); such a group is kept and not counted. It counts
  a deleted group's bytes from the sizes it read before deleting, so a file named by two groups
  is counted twice (the prediction does the same and reports the bytes really freed apart).

Where the prediction may differ from CANN (say so where it matters): CANN's json order among
equal access times is its directory-reading order (here: by path); CANN follows symlinks when it
measures and sizes files (here: symlinks are never followed, a symlink named `*.json` counts as
unparsed); a job hitting the cache while CANN cleans changes an access time in between; CANN joins a
`jsonList` name or a binary name to the json's directory as it is, so "../x.json" reaches out of
the cache (here such a name is not followed out of the SoC dir: the group keeps the json alone,
noted as bad-json); CANN would read a FIFO or device named `*.json` (here only regular files are
opened, without blocking: anything else counts as unparsed).

Cost: no read for a json decided from its `stat` (a `*_pre.json`, or one whose access time
CANN's read refreshes); one bounded read per other json (its `st_size`, at most MAX_JSON_BYTES) and
one lstat per file it names (none for a binary named like its json whose size the walk noted), all
relative to a directory fd (no path looked up from the root per file), taken directory by
directory in steps of CANN's order (_Steps), in threads with the C loops; memory in proportion to
the candidates (an int key per candidate, an int64 and a byte per plain group: GroupStore), never
to the files of the SoC dir.

Public API:
    predict_cleanup(soc, max_mb, ratio, now=None, *, read_json=..., should_stop=None, atime_rule=None,
                    threads=1, progress=None) -> CleanupPrediction
        its `delete` and `kept_recent` are GroupLists (keys into the scan's GroupStore, a Group
        made for each one asked for)
        `should_stop` bounds the prediction's time (a support bundle's limit, a GUI's cancel):
        asked before each json group is read, it ends the prediction with `stopped=True`
    resolve_group(entry) -> Group
    percent_of_limit(ageing, used_bytes, max_bytes) -> float | None
    cache_findings(usage, predictions, max_mb) -> list[Finding]
        = facts_findings(usage_facts(usage, predictions, max_mb))
    CacheFacts, SocFacts: a cache dir as the cleanup findings need it (a bundle builds them too)
    usage_facts(usage, predictions, max_mb) -> CacheFacts
    facts_findings(facts) -> list[Finding]       the one set of cleanup findings (`scan-*` codes)
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import errno
import os
import time
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from operator import itemgetter
from typing import Any, NamedTuple, cast, overload

from cann_config.app.findings import Finding, make_finding
from cann_config.app.opcache import atime as _atime
from cann_config.app.opcache import native as _native_module
from cann_config.app.opcache.scanner import (
    JSON_SUFFIX,
    WALK_BIN_SUFFIX,
    CacheUsage,
    JsonEntry,
    SocUsage,
    any_candidate,
    nfs_lock_problem,
)
from cann_config.app.units import CANN_MB, format_count, human_bytes

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
# A json CANN cannot parse (or that the tool does not open: not a regular file, a symlink, over
# MAX_JSON_BYTES): GetFilesAccessTime `continue`s before the insert, so it is never deleted and
# never counted (docs/cann/op-cache.md#cleanup). resolve_group still gives it as a group of itself.
NOTE_UNPARSED = "unparsed"
# Reading a file can refresh its access time (relatime refreshes it when atime <= ctime, which is
# the case right after CANN's own utime on a cache hit), and that would change the order CANN
# deletes in. So jsons are opened with O_NOATIME, which Linux allows to the file's owner and to
# root (CAP_FOWNER) only; another user's json is left unread rather than disturbed.
_NOT_READ = object()
_UNREAD = object()  # _resolve: the json is still to be read
_NOTES_UNPARSED = (NOTE_UNPARSED,)
_NOTES_NOT_READ = (NOTE_NOT_READ,)
# O_NONBLOCK: a FIFO (or a device) named *.json must not hang the scan; fstat then refuses
# anything but a regular file before a byte is read.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | getattr(os, "O_NOATIME", 0)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_S_IFMT = 0o170000
_S_IFREG = 0o100000
_S_IFDIR = 0o040000
# A step of a prediction (see _Steps) asks `should_stop` for each of its groups first, then
# reads them: given a `should_stop`, its size is bounded so that it reads for about _STEP_SECONDS
# at the rate measured so far, at most _STEP_MAX (a support bundle's deadline, on a slow network
# mount too, is passed by no more than that); without one, a step takes what the bytes still to
# delete need (a dir is opened once per step, and its jsons read in the order of its chunk).
_STEP_SECONDS = 0.05
_STEP_FIRST = 256
_STEP_MIN = 16
_STEP_MAX = 8192
_STEP_UNBOUNDED = 1 << 40


class GroupMember(NamedTuple):
    path: str
    size: int


class Group:
    """A json and the files CANN deletes with it.

    Kept compact, as a cache over its limit has a group per kernel: the json's directory (one
    string shared by the groups of a directory) and a flat tuple (name, size, name, size, ...)
    of the members relative to it, the json first; paths and GroupMember items are made when
    asked for.
    """

    __slots__ = ("folder", "files", "atime", "notes")

    def __init__(self, json_path: str, atime: int, members: tuple[GroupMember, ...],
                 notes: tuple[str, ...] = ()) -> None:
        folder = os.path.dirname(json_path)
        files: list[str | int] = []
        for member in members:
            files += (_relative(member.path, folder), member.size)
        self.folder, self.files, self.atime, self.notes = folder, tuple(files), atime, notes

    @classmethod
    def _of(cls, folder: str, files: tuple[str | int, ...], atime: int, notes: tuple[str, ...]) -> "Group":
        group = cls.__new__(cls)
        group.folder, group.files, group.atime, group.notes = folder, files, atime, notes
        return group

    @property
    def json_path(self) -> str:
        return _join(self.folder, self.files[0])  # type: ignore[arg-type]

    @property
    def members(self) -> tuple[GroupMember, ...]:
        return tuple(GroupMember(_join(self.folder, name), size)  # type: ignore[arg-type]
                     for name, size in zip(_names(self.files), self.files[1::2], strict=True))

    @property
    def bytes(self) -> int:
        """The bytes CANN counts for this group (its members' sizes)."""
        return sum(self.files[1::2])  # type: ignore[arg-type]

    def _key(self) -> tuple[Any, ...]:
        return (self.folder, tuple(_names(self.files)), self.files[1::2], self.atime, self.notes)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Group) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Group(json_path={self.json_path!r}, atime={self.atime}, members={self.members!r}, notes={self.notes!r})"

    def to_json(self) -> dict[str, Any]:
        return {"json": self.json_path, "atime": self.atime, "bytes": self.bytes,
                "files": [m.path for m in self.members], "notes": list(self.notes)}


class _StemSuffix(str):
    """A member named like its json, "<json stem><this suffix>" (`k.json` -> `k.o`): one shared
    object per suffix instead of a name per group."""


_STEMS: dict[str, _StemSuffix] = {}
_JSON_LEN = len(JSON_SUFFIX)


def _names(files: tuple[str | int, ...]) -> list[str]:
    """The member names of a group's `files`, stems spelled out."""
    stem = str(files[0])[:-len(JSON_SUFFIX)]
    # Even places hold names, odd ones sizes (Group.files).
    return [stem + name if type(name) is _StemSuffix else name for name in cast("tuple[str, ...]", files[0::2])]


def _sizes(files: tuple[str | int, ...]) -> tuple[int, ...]:
    """The member sizes of a group's `files` (its odd places)."""
    return cast("tuple[int, ...]", files[1::2])


def _join(folder: str, name: str) -> str:
    return folder + "/" + name if "/" not in name else os.path.normpath(folder + "/" + name)


def _relative(path: str, folder: str) -> str:
    rest = path[len(folder) + 1:]
    return rest if path.startswith(folder + "/") and "/" not in rest else os.path.relpath(path, folder)


def percent_of_limit(ageing: bool, used_bytes: int, max_bytes: int | None) -> float | None:
    """A SoC dir's usage against its limit; above 100 is normal (compilation never stops at the
    limit, docs/cann/op-cache.md#cleanup); None when ageing is off."""
    if not ageing or not max_bytes:
        return None
    return used_bytes * 100.0 / max_bytes


class CleanupPrediction(NamedTuple):
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
    delete: Sequence[Group] = ()  # a GroupList: each Group made when asked for
    kept_recent: Sequence[Group] = ()  # accessed in the last 30 minutes: CANN keeps them
    counted_bytes: int = 0  # what CANN believes it deleted (decides when it stops)
    freed_bytes: int = 0  # distinct files deleted
    target_reached: bool = False
    candidates: int = 0  # json groups in the SoC dir
    bad_json: tuple[str, ...] = ()
    not_read: tuple[str, ...] = ()
    # `should_stop` ended the prediction before it had read every group it needed: `delete`,
    # `kept_recent` and the counts cover only the groups read, so this is not what CANN does.
    stopped: bool = False
    # app.opcache.atime: whether CANN's own read refreshes a json's access time on this mount.
    atime_rule: str = "unknown"
    # Groups CANN's loop reaches (older than 30 minutes) and keeps because its own read of the
    # json changed the access time it keyed the json by (the re-stat differs).
    read_saved: int = 0
    skipped_pre: int = 0  # `*_pre.json` files the loop passed (never deleted, never counted)
    skipped_unparsed: int = 0  # jsons the loop passed because CANN cannot parse them

    @property
    def percent_of_limit(self) -> float | None:
        return percent_of_limit(self.ageing, self.used_bytes, self.max_bytes)

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
            "atime_rule": self.atime_rule,
            "atime_rule_confirmed": self.atime_rule in _atime.CONFIRMED_RULES,
            "read_saved_groups": self.read_saved,
            "skipped_pre_jsons": self.skipped_pre,
            "skipped_unparsed_jsons": self.skipped_unparsed,
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
    return _read_open_json(fd)


def _read_json_at(dir_fd: int, name: str) -> Any:
    """_read_json of `name` in the directory `dir_fd` (no path lookup from the root)."""
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    except PermissionError as exc:
        return _NOT_READ if exc.errno == errno.EPERM else None
    except OSError:
        return None
    return _read_open_json(fd)


def _read_open_json(fd: int) -> Any:
    """Read and parse the open json `fd`, then close it (see _read_json)."""
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
    return _decode_json(data)


def _decode_json(data: bytes) -> Any:
    """The document in `data`, or None when CANN's JSON library would not parse it.

    CANN parses kernel jsons with nlohmann::json (`json::parse`), which skips a UTF-8 BOM at the
    start and rejects what is not JSON: NaN and Infinity literals, numbers that overflow a
    double, lone UTF-16 surrogates, invalid UTF-8; it reads integers beyond 64 bits as doubles.
    orjson follows the same rules (Python's json accepts the first three) and parses kernel
    jsons about twice as fast, the largest cost of predicting a cache over its limit
    (tests/bench/bench_scan.py). orjson refuses nesting deeper than 1024, where nlohmann has no
    limit: such a json counts as unparsed here (no kernel json nests so deep).
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return _loads(data)
    except ValueError:  # orjson.JSONDecodeError
        pass
    # CANN reads with `ifs >> json`, nlohmann's non-strict parse: the first complete value counts
    # and whatever follows it is never looked at (te_file_utils.cc GetJsonValueFromJsonFile).
    first = _first_value(data)
    if first is None or len(first) == len(data.rstrip(_JSON_SPACE)):
        return None
    try:
        return _loads(first)
    except ValueError:
        return None


# nlohmann's lexer skips these between tokens; its non-strict parse ends after the first value.
_JSON_SPACE = b" \t\n\r"


def _first_value(data: bytes) -> bytes | None:
    """`data` up to the end of its first JSON value (not validated: orjson does that), or None
    when no value could end there. A bracketed value ends at the bracket that closes the first
    one, strings skipped whole; a scalar ends where the JSON grammar of its first byte ends."""
    import re

    start = len(data) - len(data.lstrip(_JSON_SPACE))
    if start >= len(data):
        return None
    if data[start] in b"{[":
        depth = 0
        for token in re.finditer(rb'"(?:[^"\\]|\\.)*"|[\[{\]}]|"', data[start:], re.DOTALL):
            text = token.group()
            if text == b'"':
                return None  # a string that never closes
            if text in (b"{", b"["):
                depth += 1
            elif text in (b"}", b"]"):
                depth -= 1
                if depth == 0:
                    return data[:start + token.end()]
        return None
    scalar = re.compile(rb'"(?:[^"\\]|\\.)*"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?|true|false|null',
                        re.DOTALL).match(data, start)
    return data[:scalar.end()] if scalar else None


def _first_loads(data: bytes) -> Any:
    """orjson.loads, imported at the first json read (it imports dataclasses, ~14 ms that a
    scan under its limit never needs)."""
    global _loads
    from orjson import loads

    _loads = loads
    return loads(data)


_loads: Callable[[bytes], Any] = _first_loads


def _size_of(path: str) -> int | None:
    """lstat size of a file; None when missing or a directory (CANN skips those)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return None if st.st_mode & _S_IFMT == _S_IFDIR else st.st_size


def _size_at(dir_fd: int, name: str) -> int | None:
    """_size_of of `name` in the directory `dir_fd`."""
    try:
        st = os.lstat(name, dir_fd=dir_fd)
    except OSError:
        return None
    return None if st.st_mode & _S_IFMT == _S_IFDIR else st.st_size


def _inside(folder: str, name: str, boundary: str) -> str | None:
    """`name` as a path relative to `folder` when `folder/name` stays inside `boundary` (the SoC
    dir), else None.

    A plain name stays in `folder`, which the walk reached without following a symlink. A name
    with "/" (a subdir, "..", an absolute-looking path) is followed only when its directory,
    resolved, is the boundary or below it.

    A name with a NUL (a json may spell one, "\u0000") ends there: CANN hands its paths to the
    file system as C strings (docs/cann/op-cache.md#cleanup, [inference]).
    """
    name = name.partition("\0")[0]
    if "/" not in name:
        return None if name in (".", "..") else name
    path = os.path.normpath(folder + "/" + name)
    real_dir = os.path.realpath(os.path.dirname(path))
    real_boundary = os.path.realpath(boundary)
    if real_dir != real_boundary and not real_dir.startswith(real_boundary.rstrip("/") + "/"):
        return None
    return _relative(path, folder)


class _Folder:
    """Where a json's group is read: its directory, through the directory's fd when there is one
    (no path lookup per file; opened without following a symlink, like the walk), by path for a
    name with "/" or when no fd could be opened. `read_json` is the reader a caller gave."""

    __slots__ = ("path", "fd", "read_json", "by_fd")

    def __init__(self, path: str, fd: int, read_json: Callable[[str], Any]) -> None:
        self.path, self.fd, self.read_json = path, fd, read_json
        self.by_fd = fd >= 0 and read_json is _read_json

    def read(self, rel: str) -> Any:
        if self.by_fd and "/" not in rel:
            return _read_json_at(self.fd, rel)
        return self.read_json(_join(self.path, rel))

    def size(self, rel: str) -> int | None:
        if self.fd >= 0 and "/" not in rel:
            return _size_at(self.fd, rel)
        return _size_of(_join(self.path, rel))


def _binary_of(where: _Folder, info: Any, files: list[str | int], notes: list[str], boundary: str,
               json_name: str = "") -> None:
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
    rel = _inside(where.path, name + suffix, boundary)
    if rel is None:
        notes.append(NOTE_BAD_JSON)  # names a file outside the SoC dir: not followed
        return
    size = where.size(rel)
    if size is None:
        notes.append(NOTE_BIN_MISSING)
    elif json_name.endswith(JSON_SUFFIX) and name == json_name[:-len(JSON_SUFFIX)] and "/" not in suffix:
        files += (_stem_suffix(suffix), size)
    else:
        files += (rel, size)


def _stem_suffix(suffix: str) -> _StemSuffix:
    stem = _STEMS.get(suffix)
    if stem is None:
        stem = _STEMS[suffix] = _StemSuffix(suffix)
    return stem


def _resolve_folder(where: _Folder, todo: list[tuple[str, int, int]], boundary: str) -> list[Group]:
    """The groups of the jsons `todo` ((name, access second, size from the walk)) in `where`.

    The hot loop of a prediction without the C loops (and the way of what they leave): the
    common json (naming its binary, which exists, in its own dir) read through the dir fd in one
    `read` of the size the walk saw plus one byte (no `fstat`: a json that is not exactly that
    size now, is not a regular file, or does not parse strictly, goes the general way,
    `_resolve`, which reads it again with every check)."""
    if not where.by_fd:
        return [_resolve(where, name, atime, size, boundary) for name, atime, size in todo]
    dir_fd, folder = where.fd, where.path
    of = Group._of
    os_open, os_read, os_close, lstat = os.open, os.read, os.close, os.lstat
    groups: list[Group] = []
    append = groups.append
    for name, atime, size in todo:
        if name.endswith(PRE_JSON_SUFFIX) or size > MAX_JSON_BYTES:
            append(_resolve(where, name, atime, size, boundary))
            continue
        try:
            fd = os_open(name, _READ_FLAGS, dir_fd=dir_fd)
        except OSError:
            append(_resolve(where, name, atime, size, boundary))
            continue
        try:
            data = os_read(fd, size + 1)
        except OSError:
            data = b""
        finally:
            os_close(fd)
        info: Any = None
        if len(data) == size:
            try:
                info = _loads(data)
            except ValueError:
                info = None
        if type(info) is dict and "jsonList" not in info:
            bin_name, suffix = info.get("binFileName"), info.get("binFileSuffix")
            if type(bin_name) is str and type(suffix) is str:
                rel = bin_name + suffix
                if "/" not in rel and rel != "." and rel != ".." and "\0" not in rel:
                    try:
                        st = lstat(rel, dir_fd=dir_fd)
                    except OSError:
                        st = None
                    if st is not None and st.st_mode & _S_IFMT != _S_IFDIR:
                        if bin_name == name[:-_JSON_LEN] and name.endswith(JSON_SUFFIX):
                            append(of(folder, (name, size, _stem_suffix(suffix), st.st_size), atime, ()))
                        else:
                            append(of(folder, (name, size, rel, st.st_size), atime, ()))
                        continue
            append(_resolve(where, name, atime, size, boundary, info))
        elif info is None:
            append(_resolve(where, name, atime, size, boundary))
        else:
            append(_resolve(where, name, atime, size, boundary, info))
    return groups


def _resolve(where: _Folder, name: str, atime: int, size: int, boundary: str, info: Any = _UNREAD) -> Group:
    """The group of the json `name` in `where` (GetFilesAccessTime); see resolve_group. `info`:
    the json, when the caller has read it."""
    folder = where.path
    if name.endswith(PRE_JSON_SUFFIX):
        return Group._of(folder, (name, size), atime, ())
    if info is _UNREAD:
        info = where.read(name)
    if info is _NOT_READ:
        return Group._of(folder, (name, size), atime, _NOTES_NOT_READ)
    if info is None:
        return Group._of(folder, (name, size), atime, _NOTES_UNPARSED)
    files: list[str | int] = [name, size]
    notes: list[str] = []
    if not isinstance(info, dict) or "jsonList" not in info:
        _binary_of(where, info, files, notes, boundary, name)
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
            rel = _inside(folder, sub_name, boundary)
            if rel is None:
                notes.append(NOTE_BAD_JSON)  # a listed json outside the SoC dir: not followed
                continue
            sub_size = where.size(rel)
            if sub_size is None:
                notes.append(NOTE_BIN_MISSING)
            else:
                files += (rel, sub_size)
            sub_info = where.read(rel) if sub_size is not None else None
            if sub_info is _NOT_READ:
                notes.append(NOTE_NOT_READ)
                continue
            if sub_info is None:
                continue
            # The binaries of listed jsons sit in the main json's directory (jsonFileDirPath).
            _binary_of(where, sub_info, files, notes, boundary)
    return Group._of(folder, tuple(files), atime, tuple(dict.fromkeys(notes)) if notes else ())


def resolve_group(entry: JsonEntry, read_json: Callable[[str], Any] = _read_json,
                  soc_dir: str | None = None) -> Group:
    """The files CANN deletes with the json `entry` (GetFilesAccessTime).

    Names in the json are followed only inside `soc_dir` (default: the json's own directory).
    """
    folder, name = os.path.split(entry.path)
    return _resolve(_Folder(folder, -1, read_json), name, int(entry.atime), entry.size,
                    folder if soc_dir is None else soc_dir)


# A GroupStore item: a plain group's binary size (>= 0), else one of these (app/opcache/_native.c
# uses the same numbers).
BIN_UNREAD = -1
BIN_OTHER = -2  # its Group in GroupStore.others
BIN_UNPARSED = -3  # its Group in GroupStore.others, a json CANN cannot parse: never deleted nor counted
# A step's mark per key (select): read its group, a `_pre.json` passed, a group CANN's read saves.
MARK_READ, MARK_PRE, MARK_SAVED = 0, 1, 2
# The access-time rules as the C loops take them: no read saves a group, app.opcache.atime's
# relatime rule (read_refreshes), every read saves it (strictatime).
_RULE_NONE_SAVES, _RULE_RELATIME, _RULE_ALL_SAVED = 0, 1, 2
_MAX_SUFFIXES = 255  # a suffix id is a byte


class GroupStore:
    """The groups of one SoC dir's candidates as predictions read them, kept on the scan
    (SocUsage.group_cache) so that the next prediction reads no json again: the wizard predicts
    anew at every change of the limit.

    Compact, as a cache over its limit has a group per kernel. Per chunk of the walk's jsons
    (SocUsage.jsons), per json: `bins`, an int64, BIN_UNREAD until read, then for a plain group
    (the json and the binary named like it, "<json stem><suffix>", no note) the binary's size,
    its suffix being `suffixes[sfx[chunk][position]]`; any other group is a Group in `others` by
    its slot (the low bits of its key, chunk << pos_bits | position), marked BIN_OTHER or
    BIN_UNPARSED, with its bytes in `other_bytes`. A Group of a plain one is made when asked for
    (`group`).
    """

    __slots__ = ("bins", "sfx", "suffixes", "others", "other_bytes")

    def __init__(self, jsons: list[tuple[str, list[str], array, array]]) -> None:
        self.bins = [array("q", [BIN_UNREAD]) * len(names) for _folder, names, _atimes, _sizes in jsons]
        self.sfx = [bytearray(len(names)) for _folder, names, _atimes, _sizes in jsons]
        self.suffixes: list[_StemSuffix] = []
        self.others: dict[int, Group] = {}
        self.other_bytes: dict[int, int] = {}

    def put(self, slot: int, chunk: int, pos: int, group: Group) -> None:
        """Keep `group`, the group of the json at `pos` of `chunk` (key bits `slot`)."""
        files, suffixes = group.files, self.suffixes
        if not group.notes and len(files) == 4 and type(files[2]) is _StemSuffix and (
                files[2] in suffixes or len(suffixes) < _MAX_SUFFIXES):
            if files[2] not in suffixes:
                suffixes.append(files[2])
            self.sfx[chunk][pos] = suffixes.index(files[2])
            self.bins[chunk][pos] = files[3]  # type: ignore[assignment]
            return
        self.others[slot] = group
        self.other_bytes[slot] = group.bytes
        self.bins[chunk][pos] = BIN_UNPARSED if NOTE_UNPARSED in group.notes else BIN_OTHER

    def group(self, soc: SocUsage, key: int) -> Group:
        """The Group of the candidate `key` (SocUsage.ordered_candidates), which has been read."""
        slot = key & soc._low_mask
        chunk, pos = slot >> soc._pos_bits, key & soc._pos_mask
        code = self.bins[chunk][pos]
        if code < 0:
            return self.others[slot]
        folder, names, _atimes, sizes = soc.jsons[chunk]
        return Group._of(folder, (names[pos], sizes[pos], self.suffixes[self.sfx[chunk][pos]], code),
                         key >> soc._shift, ())


def _store_of(soc: SocUsage) -> GroupStore:
    store = soc.group_cache
    if not isinstance(store, GroupStore):
        store = soc.group_cache = GroupStore(soc.jsons)
    return store


class GroupList(Sequence[Group]):
    """The groups of a prediction, in CANN's order, kept as their keys: a Group is made only when
    one is asked for (a cache over its limit may delete a hundred thousand; `scan` counts them,
    `clean` and the wizard's list go through them). Equal to a tuple or list of the same groups."""

    __slots__ = ("_soc", "_store", "_keys")

    def __init__(self, soc: SocUsage, store: GroupStore, keys: list[int]) -> None:
        self._soc, self._store, self._keys = soc, store, keys

    def __len__(self) -> int:
        return len(self._keys)

    @overload
    def __getitem__(self, index: int) -> Group: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Group, ...]: ...

    def __getitem__(self, index: int | slice) -> Group | tuple[Group, ...]:
        if isinstance(index, slice):
            return tuple(self._store.group(self._soc, key) for key in self._keys[index])
        return self._store.group(self._soc, self._keys[index])

    def __iter__(self) -> Iterator[Group]:
        group, soc = self._store.group, self._soc
        return (group(soc, key) for key in self._keys)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (tuple, list, GroupList)):
            return len(self) == len(other) and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"GroupList({list(self)!r})"


class _Steps:
    """A prediction's steps through one SoC dir's candidates, in CANN's order: `select` (a mark per
    key, the unread jsons among them), `read` (those jsons, into the GroupStore) and `account`
    (CANN's loop over the step). With the C loops (app/opcache/_native.c select_step, read_groups,
    account) a step makes no Python object per plain group and reads in `threads` threads; the
    Python ways below give the same answers (tests/app/opcache/test_native.py).

    Reading is by directory: each dir is opened from the SoC dir one component at a time without
    following a symlink, and its jsons are read through that fd (no path looked up per file).
    """

    def __init__(self, soc: SocUsage, store: GroupStore, read_json: Callable[[str], Any],
                 should_stop: Callable[[], bool] | None, threads: int, now_s: int) -> None:
        self.soc, self.store = soc, store
        self.soc_dir = str(soc.path)
        self.layout = (soc._shift, soc._pos_bits, soc._pos_mask)
        self.read_json, self.should_stop, self.now_s = read_json, should_stop, now_s
        self.threads = max(1, threads)
        # The C loops read only with the tool's own reader: a reader a caller gave is called here.
        self.native = _native_module.native if read_json is _read_json else None
        # The walk's sizes of the binaries named like their jsons (scanner.WALK_BIN_SUFFIX), per chunk.
        self.walk_bins = soc.json_bins if len(soc.json_bins) == len(soc.jsons) else [None] * len(soc.jsons)
        self.stopped = False
        self.root: int | None = None  # the SoC dir's fd, opened at the first read
        self.read_seconds = 0.0
        self.read_groups = 0

    def step_limit(self) -> int:
        """How many groups the next step may read: _STEP_SECONDS at the rate measured so far when
        someone may say stop, else no limit."""
        if self.should_stop is None:
            return _STEP_UNBOUNDED
        if not self.read_groups or self.read_seconds <= 0:
            return _STEP_FIRST
        return max(_STEP_MIN, min(_STEP_MAX, int(_STEP_SECONDS * self.read_groups / self.read_seconds)))

    def select(self, keys: list[int], pos: int, end: int, want: int, rule: int) -> tuple[bytes, dict[int, list[int]]]:
        """The next step from keys[pos] before keys[end]: a MARK_* per key until `want` keys are to
        be read, and the unread ones among those ({chunk: [position]}). `should_stop` is asked
        before each unread one; the first True ends the step (and the prediction) before it."""
        soc, store = self.soc, self.store
        if self.native is not None:
            marks: bytes
            marks, todo, self.stopped = self.native.select_step(
                keys, pos, end, want, self.layout, soc.jsons, store.bins, soc.read_marks, rule, self.now_s,
                _atime.RELATIME_MAX_AGE_SECONDS, PRE_JSON_SUFFIX, self.should_stop, self.stopped)
            return marks, todo
        shift, pos_bits, pos_mask = self.layout
        low_mask, jsons, bins, should_stop = (1 << shift) - 1, soc.jsons, store.bins, self.should_stop
        found = bytearray()
        unread: dict[int, list[int]] = {}
        reading = 0
        for key in keys[pos:end]:
            if reading >= want:
                break
            chunk, at = (key & low_mask) >> pos_bits, key & pos_mask
            if jsons[chunk][1][at].endswith(PRE_JSON_SUFFIX):
                found.append(MARK_PRE)
                continue
            if rule == _RULE_ALL_SAVED or (rule == _RULE_RELATIME and _atime.read_refreshes(
                    _atime.RULE_RELATIME, bool(soc.read_marks[chunk][at]), key >> shift, self.now_s)):
                found.append(MARK_SAVED)
                continue
            if bins[chunk][at] == BIN_UNREAD:
                if not self.stopped and should_stop is not None and should_stop():
                    self.stopped = True
                if self.stopped:
                    break
                unread.setdefault(chunk, []).append(at)
            reading += 1
            found.append(MARK_READ)
        return bytes(found), unread

    def read(self, todo: dict[int, list[int]]) -> None:
        """Read the groups of `todo` ({chunk: [position]}) into the store."""
        if not todo:
            return
        started = time.monotonic()
        soc, store = self.soc, self.store
        if self.root is None:
            self.root = _open_dir(self.soc_dir, None) if self.read_json is _read_json else -1
        left: dict[int, list[int]] = todo
        if self.native is not None and self.root >= 0:
            records, pairs, fresh = self.native.read_groups(self.root, self.soc_dir, todo, soc.jsons, store.bins,
                                                            store.sfx, store.suffixes, self.threads, _READ_FLAGS,
                                                            MAX_JSON_BYTES, self.walk_bins, WALK_BIN_SUFFIX)
            store.suffixes += map(_stem_suffix, fresh)
            pos_bits, jsons = soc._pos_bits, soc.jsons
            for chunk, at, members in records:
                folder, names, atimes, sizes = jsons[chunk]
                store.put(chunk << pos_bits | at, chunk, at,
                          Group._of(folder, (names[at], sizes[at], *members), int(atimes[at]), ()))
            left = {}
            for chunk, at in pairs:
                left.setdefault(chunk, []).append(at)
        self._read_here(left)
        self.read_seconds += time.monotonic() - started
        self.read_groups += sum(map(len, todo.values()))

    def _read_here(self, todo: dict[int, list[int]]) -> None:
        """The Python way (`_resolve_folder`), a dir at a time."""
        soc, store, root, soc_dir = self.soc, self.store, self.root, self.soc_dir
        pos_bits = soc._pos_bits
        for chunk, positions in todo.items():
            folder, names, atimes, sizes = soc.jsons[chunk]
            fd = _open_dir(folder[len(soc_dir) + 1:], root) if root is not None and root >= 0 else -1
            try:
                groups = _resolve_folder(_Folder(folder, fd, self.read_json),
                                         [(names[at], int(atimes[at]), sizes[at]) for at in positions], soc_dir)
            finally:
                if fd >= 0 and fd != root:
                    os.close(fd)
            for at, group in zip(positions, groups, strict=True):
                store.put(chunk << pos_bits | at, chunk, at, group)

    def account(self, keys: list[int], pos: int, marks: bytes, counted: int, target: int, delete: list[int],
                unparsed: list[int], others: list[int]) -> tuple[int, int, bool, int, int]:
        """CANN's loop over a read step from keys[pos] (AgingCacheFileByAccessTime): a `_pre.json`
        and a group its read saves are passed (counted apart), a json it cannot parse is skipped
        (`unparsed`), every other group is deleted (`delete`; `others` too when not plain) and its
        bytes counted, until the bytes counted reach `target`. Returns (keys gone through, the bytes
        counted, whether they reached the target, `_pre.json`s passed, groups saved)."""
        store = self.store
        if self.native is not None:
            result: tuple[int, int, bool, int, int] = self.native.account(
                keys, pos, marks, self.layout, self.soc.jsons, store.bins, store.other_bytes, counted, target,
                delete, unparsed, others)
            return result
        shift, pos_bits, pos_mask = self.layout
        low_mask, jsons, bins, other_bytes = (1 << shift) - 1, self.soc.jsons, store.bins, store.other_bytes
        pre = saved = 0
        for i, mark in enumerate(marks):
            if mark == MARK_PRE:
                pre += 1
                continue
            if mark == MARK_SAVED:
                saved += 1
                continue
            key = keys[pos + i]
            chunk, at = (key & low_mask) >> pos_bits, key & pos_mask
            code = bins[chunk][at]
            if code == BIN_UNPARSED:
                unparsed.append(key)
                continue
            if code >= 0:
                counted += jsons[chunk][3][at] + code
            elif code == BIN_OTHER:
                counted += other_bytes[key & low_mask]
                others.append(key)
            else:  # not read (asked to stop): the step ends here
                return i, counted, False, pre, saved
            delete.append(key)
            if counted >= target:
                return i + 1, counted, True, pre, saved
        return len(marks), counted, False, pre, saved

    def close(self) -> None:
        if self.root is not None and self.root >= 0:
            os.close(self.root)
        self.root = None


def _open_dir(rel: str, root: int | None) -> int:
    """An fd of the dir `rel` below `root` (the SoC dir itself when `root` is None), one
    component at a time without following a symlink; -1 when it cannot be opened (the groups
    are then read by path, as a missing file gives a bad-json or bin-missing note)."""
    if root is None:
        try:
            return os.open(rel, _DIR_FLAGS)
        except OSError:
            return -1
    if not rel:
        return root
    fd = root
    try:
        for part in rel.split("/"):
            parent = fd
            try:
                fd = os.open(part, _DIR_FLAGS, dir_fd=parent)
            finally:
                if parent != root:
                    os.close(parent)
    except OSError:
        return -1
    return fd


def predict_cleanup(soc: SocUsage, max_mb: int, ratio: int, now: float | None = None, *,
                    read_json: Callable[[str], Any] = _read_json,
                    should_stop: Callable[[], bool] | None = None,
                    atime_rule: str | None = None, threads: int = 1,
                    progress: Callable[[int], None] | None = None) -> CleanupPrediction:
    """What CANN would delete from `soc` at a compiler start at time `now` (default: now).

    `max_mb` and `ratio` are the effective `max_op_cache_size` and `remain_cache_size_ratio`
    (app.opcache.resolution); `max_mb == -1` means no ageing. `atime_rule` (app.opcache.atime):
    whether CANN's own read of a json refreshes its access time and so saves its group; by
    default the rule of the SoC dir's filesystem (`soc.mount`). `cann-config clean` passes
    "noatime": what CANN means to delete. `threads`: how many threads read a step's jsons (with
    the C loops; app.opcache.parallel.worker_count says how many cores are free); the answer is
    the same. `progress` is told after each step how many groups the prediction has gone through
    (a terminal's progress line; unlike `should_stop` it leaves the steps at their largest).

    In CANN's order (oldest access first, stopping at the first json used in the last 30
    minutes or when the bytes counted reach the target), each json is decided from its `stat`
    alone where it can be: a `*_pre.json` is skipped, a json whose access time CANN's read
    refreshes is kept (its group is never read here); only the others are read (O_NOATIME):
    a json CANN cannot parse is skipped, the rest are deleted and their bytes counted
    (docs/cann/op-cache.md#cleanup). The groups of the last 30 minutes are read too (`kept_recent`).

    Reading the kernel jsons is the only slow part (a cache of a few hundred thousand kernels
    takes seconds). `should_stop` is asked before each group whose jsons have not been read yet
    (groups read by an earlier prediction on the same scan cost nothing and are not asked
    about); when it answers True the prediction ends there with `stopped=True`, and `delete`,
    `kept_recent` and the counts cover only the groups read so far. Groups are read a step at a
    time (_Steps): a step asks first, for groups it reads in about _STEP_SECONDS, then reads them.
    """
    used = soc.cann_bytes
    rule = atime_rule if atime_rule is not None else _atime.atime_rule(getattr(soc, "mount", None))
    if max_mb == AGEING_OFF:
        return CleanupPrediction(soc.name, max_mb, ratio, used, ageing=False, max_bytes=None,
                                 keep_threshold_bytes=None, triggers=False, target_bytes=0, atime_rule=rule)
    max_bytes = max_mb * CANN_MB
    keep = max_bytes * ratio // PERCENT_UNIT
    if used < max_bytes:
        return CleanupPrediction(soc.name, max_mb, ratio, used, ageing=True, max_bytes=max_bytes,
                                 keep_threshold_bytes=keep, triggers=False, target_bytes=0, atime_rule=rule)
    if not soc.candidates_complete:
        raise ValueError(f"the scan of {soc.path} did not gather the cleanup candidates for this limit")
    target = used - keep
    now_s = int(time.time() if now is None else now)
    # A multimap keyed by st_atime (whole seconds), oldest first; ties by path here.
    keys = soc.ordered_candidates()
    # CANN stops at the first group accessed in the last 30 minutes: those come last in this
    # order, from `recent` on (an access time of now - 1799 s or later).
    recent = bisect_left(keys, soc.first_key_of_second(now_s - MIN_CACHE_AGING_SECONDS + 1))
    store = _store_of(soc)
    steps = _Steps(soc, store, read_json, should_stop, threads, now_s)
    saving = (_RULE_ALL_SAVED if rule == _atime.RULE_STRICTATIME else
              _RULE_RELATIME if rule == _atime.RULE_RELATIME else _RULE_NONE_SAVES)
    delete: list[int] = []  # keys, in CANN's order
    others: list[int] = []  # the keys of `delete` whose group is not plain
    unparsed: list[int] = []
    kept: list[int] = []
    counted = skipped_pre = saved = 0
    try:
        pos = 0
        reached = False  # CANN compares after each deletion: a target of 0 still deletes one group
        while pos < recent and not reached and not steps.stopped:
            if progress is not None:
                progress(len(delete) + len(unparsed) + skipped_pre + saved)
            # As many groups to read as the bytes still to delete need, by the mean group so far
            # (the SoC dir's mean before the first): few are read beyond the one reaching the target.
            mean = counted / len(delete) if delete else used / len(keys)
            estimate = int((target - counted) / max(mean, 1.0) * 1.05) + 8
            marks, todo = steps.select(keys, pos, recent, min(steps.step_limit(), estimate), saving)
            steps.read(todo)
            consumed, counted, reached, passed_pre, passed_saved = steps.account(
                keys, pos, marks, counted, target, delete, unparsed, others)
            skipped_pre += passed_pre
            saved += passed_saved
            pos += consumed
        # The groups of the last 30 minutes, which CANN keeps: read for the wizard's list.
        pos = recent
        low_mask, pos_bits, pos_mask, bins = soc._low_mask, soc._pos_bits, soc._pos_mask, store.bins
        while pos < len(keys) and not steps.stopped:
            if progress is not None:
                progress(len(delete) + len(unparsed) + skipped_pre + saved + len(kept))
            marks, todo = steps.select(keys, pos, len(keys), steps.step_limit(), _RULE_NONE_SAVES)
            steps.read(todo)
            for key, mark in zip(keys[pos:pos + len(marks)], marks, strict=True):
                if mark != MARK_PRE:
                    code = bins[(key & low_mask) >> pos_bits][key & pos_mask]
                    (unparsed if code == BIN_UNPARSED else kept).append(key)
            pos += len(marks)
    finally:
        steps.close()
    if progress is not None:
        progress(len(delete) + len(unparsed) + skipped_pre + saved + len(kept))
    noted = [store.others[key & low_mask] for key in (*others, *kept) if key & low_mask in store.others]
    bad = (*(store.group(soc, key).json_path for key in unparsed),
           *(g.json_path for g in noted if NOTE_BAD_JSON in g.notes))
    not_read = tuple(g.json_path for g in noted if NOTE_NOT_READ in g.notes)
    return CleanupPrediction(soc.name, max_mb, ratio, used, ageing=True, max_bytes=max_bytes,
                             keep_threshold_bytes=keep, triggers=True, target_bytes=target,
                             delete=GroupList(soc, store, delete), kept_recent=GroupList(soc, store, kept),
                             counted_bytes=counted, freed_bytes=_freed_bytes(soc, store, delete, others, counted),
                             target_reached=counted >= target, candidates=len(keys), bad_json=bad,
                             not_read=not_read, stopped=steps.stopped, atime_rule=rule, read_saved=saved,
                             skipped_pre=skipped_pre, skipped_unparsed=len(unparsed))


def _suffix_may_end_a_json(suffix: str) -> bool:
    """Whether "<stem><suffix>" can end with ".json", so a plain group's binary may be another
    json of its dir."""
    return suffix.endswith(JSON_SUFFIX) or JSON_SUFFIX.endswith(suffix)


def _freed_bytes(soc: SocUsage, store: GroupStore, delete: list[int], others: list[int], counted: int) -> int:
    """The bytes of the distinct files the groups `delete` name (a file named by two groups counts
    once; CANN counts it twice, `counted`).

    The plain groups of a dir name different files when they share one suffix that cannot make
    a json's name (their jsons differ, so do "<stem><suffix>"); then only the other groups'
    (`others`) members can repeat a name: among themselves, or a plain group's, which they can
    only when one is a name a plain group's json or binary could have. When neither, the bytes
    freed are the bytes counted; else the groups are counted name by name (_distinct_bytes)."""
    low_mask = soc._low_mask
    groups = [store.others[key & low_mask] for key in others]
    suffixes = [str(suffix) for suffix in store.suffixes]
    if len(suffixes) <= 1 and not any(map(_suffix_may_end_a_json, suffixes)):
        members = [name for group in groups for name in group.files[2::2]]
        if not _may_name_plain_files(members, suffixes):
            named = [(group.folder, name) for group in groups for name in group.files[0::2]]
            if len(set(named)) == len(named):
                return counted
            return counted - sum(store.other_bytes[key & low_mask] for key in others) + _distinct_bytes(groups)
    return _distinct_bytes(list(GroupList(soc, store, delete)))


def _may_name_plain_files(names: list[Any], suffixes: list[str]) -> bool:
    """Whether a name of `names` (the members of groups that are not plain, after their jsons) may
    be a plain group's json or binary: a candidate json's name, or one ending with a plain suffix
    whose stem is a candidate's (or, to be safe, any spelled relative to its json's stem)."""
    if any(type(name) is _StemSuffix for name in names) or "/" in "\0".join(names):
        return True
    if any_candidate([name for name in names if name.endswith(JSON_SUFFIX)]):
        return True
    return any(any_candidate([name[:len(name) - len(suffix)] + JSON_SUFFIX for name in names if name.endswith(suffix)])
               for suffix in suffixes)


_first, _second, _third, _fourth = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(3)


def _distinct_bytes(groups: list[Group]) -> int:
    """The bytes of the distinct files of `groups` (a file named by two groups counts once).

    One directory at a time, so no more than one directory's names are spelled out at once."""
    by_folder: dict[str, list[Group]] = {}
    elsewhere: dict[str, list[tuple[str, int]]] = {}  # members named with "/" (other dirs)
    for group in groups:
        in_folder = by_folder.get(group.folder)
        if in_folder is None:
            in_folder = by_folder[group.folder] = []
        in_folder.append(group)
        files = group.files
        # A json and the binary named like it (nearly every group) name nothing in another dir.
        if (len(files) != 4 or type(files[2]) is not _StemSuffix) and any(
                "/" in name for name in files[0::2] if type(name) is str):
            for name, size in zip(_names(group.files), _sizes(group.files), strict=True):
                if "/" in name:
                    folder, base = os.path.split(_join(group.folder, name))
                    elsewhere.setdefault(folder, []).append((base, size))
    freed = 0
    for folder in {*by_folder, *elsewhere}:
        groups = by_folder.get(folder, [])
        if len(groups) > 8 and folder not in elsewhere:
            # Nearly every dir: most groups a json and the binary named like it, one suffix not
            # ".json", so their names are all different: summed in C; the other groups' names
            # are then counted unless one of those already is (the general way below).
            plain = [group.files for group in groups if len(group.files) == 4 and type(group.files[2]) is _StemSuffix]
            suffixes = set(map(_third, plain))
            if len(suffixes) == 1:
                suffix = str(suffixes.pop())
                if not _suffix_may_end_a_json(suffix):
                    rest = [group for group in groups
                            if not (len(group.files) == 4 and type(group.files[2]) is _StemSuffix)]
                    jsons = set(map(_first, plain))
                    freed += sum(map(_second, plain)) + sum(map(_fourth, plain))
                    seen: set[str] = set()
                    for group in rest:
                        for name, size in zip(_names(group.files), _sizes(group.files), strict=True):
                            if "/" in name or name in seen or name in jsons or (  # "/": counted in its dir
                                    name.endswith(suffix) and name[:-len(suffix)] + JSON_SUFFIX in jsons):
                                continue
                            seen.add(name)
                            freed += size
                    continue
        names: list[str] = []
        sizes: list[int] = []
        for group in by_folder.get(folder, ()):
            files = group.files
            if len(files) == 4 and type(files[2]) is _StemSuffix:  # a json and its binary: nearly all
                json_name, stem_size, binary, binary_size = cast("tuple[str, int, str, int]", files)
                names.append(json_name)
                names.append(json_name[:-_JSON_LEN] + binary)
                sizes.append(stem_size)
                sizes.append(binary_size)
            else:
                names += _names(files)
                sizes += _sizes(files)
        if elsewhere and any("/" in name for name in names):
            kept = [i for i, name in enumerate(names) if "/" not in name]
            names, sizes = [names[i] for i in kept], [sizes[i] for i in kept]
        freed += _distinct_sum(names, sizes, elsewhere.get(folder, ()))
    return freed


def _distinct_sum(names: list[str], sizes: list[int], more: Any) -> int:
    """The sum of `sizes`, each name counted once (then the (name, size) pairs of `more`)."""
    seen = set(names)
    if len(seen) == len(names) and not more:
        return sum(sizes)
    seen = set()
    total = 0
    for name, size in (*zip(names, sizes, strict=True), *more):
        if name not in seen:
            seen.add(name)
            total += size
    return total


def _percent(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


class SocFacts(NamedTuple):
    """One SoC dir as the cleanup findings need it: what a local prediction holds and what a
    support bundle records, so both are judged by the one rule set (docs/cann/op-cache.md#cleanup)."""

    name: str
    path: str  # the SoC dir, for the finding's location
    ageing: bool
    triggers: bool
    used_bytes: int
    max_bytes: int | None
    target_bytes: int
    deleted_bytes: int  # what CANN counts as deleted (CleanupPrediction.counted_bytes)
    target_reached: bool
    delete_groups: int
    kept_recent_groups: int
    stopped: bool = False  # the prediction ended before it had read every group it needed
    unparsed_jsons: int = 0
    first_unparsed: str | None = None
    unread_jsons: int = 0
    first_unread: str | None = None
    atime_rule: str | None = None  # app.opcache.atime; None in bundles made before it was recorded
    read_saved_groups: int = 0  # groups CANN's own read saves (CleanupPrediction.read_saved)

    @property
    def percent_of_limit(self) -> float | None:
        return percent_of_limit(self.ageing, self.used_bytes, self.max_bytes)

    @classmethod
    def of_prediction(cls, pred: CleanupPrediction, path: str) -> "SocFacts":
        return cls(pred.soc, path, pred.ageing, pred.triggers, pred.used_bytes, pred.max_bytes, pred.target_bytes,
                   pred.counted_bytes, pred.target_reached, len(pred.delete), len(pred.kept_recent), pred.stopped,
                   len(pred.bad_json), pred.bad_json[0] if pred.bad_json else None,
                   len(pred.not_read), pred.not_read[0] if pred.not_read else None, pred.atime_rule, pred.read_saved)


class CacheFacts(NamedTuple):
    """A cache dir as the cleanup findings need it, from a local scan (`usage_facts`) or from a
    support bundle's recorded scan (app.support.bundle). A detail a bundle of an older format did
    not record is None and is shown as "?"."""

    kernel_cache: str
    max_mb: int | None  # the effective max_op_cache_size (-1: ageing off; None: not known)
    stopped: bool = False  # the walk stopped before the end: the numbers cover part of the cache
    files: int = 0
    free_bytes: int | None = None
    nfs_problem: str | None = None  # nfs_lock_problem(): "nfsv3" | "nolock"
    mount_point: str | None = None
    fs_type: str | None = None
    mount_options: str | None = None
    other_users_files: int = 0
    other_uids: str | None = None
    unreadable: int = 0
    first_unreadable: str | None = None
    first_unreadable_reason: str | None = None
    other_filesystems: int = 0
    first_other_filesystem: str | None = None
    symlinks: int = 0  # the top dir's and the SoC dirs' (a symlinked SoC dir counts too)
    socs: tuple[SocFacts, ...] = ()


def usage_facts(usage: CacheUsage, predictions: Mapping[str, CleanupPrediction], max_mb: int) -> CacheFacts:
    """The facts of a local scan and its predictions (keyed by SoC name)."""
    mount = usage.mount
    first = usage.unreadable[0] if usage.unreadable else (None, None)
    return CacheFacts(
        kernel_cache=str(usage.kernel_cache), max_mb=max_mb, stopped=usage.stopped, files=usage.files,
        free_bytes=usage.free_bytes, nfs_problem=nfs_lock_problem(mount),
        mount_point=mount.mount_point if mount else None, fs_type=mount.fs_type if mount else None,
        mount_options=",".join(mount.options) if mount else None,
        other_users_files=usage.other_users_files, other_uids=", ".join(str(u) for u in usage.other_uids),
        unreadable=len(usage.unreadable), first_unreadable=first[0], first_unreadable_reason=first[1],
        other_filesystems=len(usage.other_fs), first_other_filesystem=usage.other_fs[0] if usage.other_fs else None,
        symlinks=usage.top.symlinks + sum(s.symlinks for s in usage.socs.values()),
        socs=tuple(SocFacts.of_prediction(pred, str(usage.kernel_cache / name)) for name, pred in predictions.items()))


def _known(value: object) -> str:
    return "?" if value is None else str(value)


def cache_findings(usage: CacheUsage, predictions: Mapping[str, CleanupPrediction], max_mb: int) -> list[Finding]:
    """What a user needs to know about this cache, beyond the numbers."""
    return facts_findings(usage_facts(usage, predictions, max_mb))


def facts_findings(facts: CacheFacts) -> list[Finding]:
    """The cleanup findings (`scan-*`) of a cache dir: the one place these rules are written, for
    `scan`, `diagnose --bundle`, `fleet` and the wizard alike."""
    found: list[Finding] = []
    where = facts.kernel_cache
    max_mb = facts.max_mb
    if facts.stopped:
        found.append(make_finding("scan-stopped", file=where, files=format_count(facts.files)))
    # The limit is per SoC dir, and CANN cleans only at compiler start (docs/cann/op-cache.md#cleanup).
    if (max_mb is not None and max_mb != AGEING_OFF and max_mb > 0 and facts.free_bytes is not None
            and max_mb * CANN_MB > facts.free_bytes):
        found.append(make_finding("scan-limit-above-free", file=where, limit=human_bytes(max_mb * CANN_MB),
                                  max_mb=max_mb, free=human_bytes(facts.free_bytes)))
    if facts.nfs_problem is not None:
        code = "scan-nfs-v3-locks" if facts.nfs_problem == "nfsv3" else "scan-nfs-local-locks"
        found.append(make_finding(code, file=where, mount=_known(facts.mount_point), fs_type=_known(facts.fs_type),
                                  options=_known(facts.mount_options)))
    if facts.other_users_files:
        found.append(make_finding("scan-other-users", file=where, files=format_count(facts.other_users_files),
                                  uids=_known(facts.other_uids)))
    if facts.unreadable:
        found.append(make_finding("scan-unreadable", file=where, count=format_count(facts.unreadable),
                                  first=_known(facts.first_unreadable), reason=_known(facts.first_unreadable_reason)))
    if facts.other_filesystems:
        found.append(make_finding("scan-other-filesystem", file=where, count=format_count(facts.other_filesystems),
                                  first=_known(facts.first_other_filesystem)))
    # CANN follows symlinks when it measures; the scan does not.
    if facts.symlinks:
        found.append(make_finding("scan-symlinks", file=where, count=format_count(facts.symlinks)))
    for soc in facts.socs:
        name, soc_dir = soc.name, soc.path
        percent = soc.percent_of_limit
        if soc.triggers and percent is not None:
            found.append(make_finding("scan-over-limit", file=soc_dir, soc=name, percent=_percent(percent),
                                      used=human_bytes(soc.used_bytes), limit=human_bytes(soc.max_bytes or 0)))
            if soc.stopped:
                # A partial prediction: "short of the target" would be a guess, so say what is known.
                found.append(make_finding("scan-cleanup-stopped", file=soc_dir, soc=name,
                                          groups=format_count(soc.delete_groups), deleted=human_bytes(soc.deleted_bytes)))
            elif not soc.target_reached and soc.read_saved_groups:
                # CANN's own parse read refreshed the access times it keyed the jsons by, so its
                # re-check keeps those groups (docs/cann/op-cache.md#access-time-re-check).
                found.append(make_finding("scan-cleanup-atime-refresh", file=soc_dir, soc=name,
                                          target=human_bytes(soc.target_bytes), deleted=human_bytes(soc.deleted_bytes),
                                          saved=format_count(soc.read_saved_groups), rule=_known(soc.atime_rule)))
            elif not soc.target_reached:
                # Either the rest was used in the last 30 minutes, or the rest is not in any json
                # group (CANN deletes only json groups; other files stay).
                code = "scan-cleanup-short-recent" if soc.kept_recent_groups else "scan-cleanup-short-no-groups"
                found.append(make_finding(code, file=soc_dir, soc=name, target=human_bytes(soc.target_bytes),
                                          deleted=human_bytes(soc.deleted_bytes), recent=soc.kept_recent_groups))
        if soc.triggers and soc.atime_rule == _atime.RULE_NFS:
            found.append(make_finding("scan-cleanup-atime-not-confirmed", file=soc_dir, soc=name,
                                      rule=_known(facts.fs_type)))
        if soc.unparsed_jsons:
            found.append(make_finding("scan-json-unparsed", file=soc.first_unparsed or soc_dir, soc=name,
                                      count=format_count(soc.unparsed_jsons)))
        if soc.unread_jsons:
            found.append(make_finding("scan-json-not-read", file=soc.first_unread or soc_dir, soc=name,
                                      count=format_count(soc.unread_jsons)))
    return found
