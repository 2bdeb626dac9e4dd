"""What the operator-compile cache holds on disk, measured without freezing anything.

The disk-usage gauge and `cann-config scan` need, for `<base>/kernel_cache/`, the usage of each
SoC dir (CANN's size limit applies to each SoC dir separately;
docs/cann/op-cache.md#size-limit-and-keep-ratio), the free space of the filesystem and what kind of filesystem it is.
A cache can hold hundreds of thousands of files, possibly on a network mount, so the walk is a
generator: a GUI worker pulls `ScanProgress` batches (one every `batch_seconds`) and forwards
them; `should_stop` is polled between batches, so Stop takes effect at once. The last item is
always final (`done=True`) and carries the `CacheUsage`.

How it walks (the rules of baobab/ncdu/du, docs/architecture.md#scanning):
- one `lstat` per entry at most: `os.listdir` on a directory file descriptor, then
  `os.lstat(name, dir_fd=fd)`, which is `fstatat(dirfd, name, AT_SYMLINK_NOFOLLOW)` like
  `du`'s fts: no full-path lookups and no DirEntry objects (measured on 200,000 files, bare
  walks: 1.38x `du -sb` this way, 1.59x with `os.scandir(fd)`, 1.77x with path-based scandir);
  where the C loops are built (app/opcache/native.py), a chunk of plain files is stat-ed and
  summed in C (`_read_plain_chunk`, ~1.3x `du -sb` for the bare walk);
- symlinks are never followed (directories are opened with O_NOFOLLOW relative to their parent);
- the walk never leaves the filesystem of the kernel_cache dir (a subdir with another st_dev is
  listed in `other_fs` and skipped, like `du -x`);
- hard links are counted once by (st_dev, st_ino) for the byte totals;
- apparent bytes are `st_size`, allocated bytes `st_blocks * 512`, directories included, so the
  totals equal `du -sbx` and `du -sxB1` of the same dir;
- an entry that cannot be read is counted and listed with the reason; it never stops the walk.

Besides du's numbers every SoC dir carries `cann_bytes`, the size CANN itself compares with
`max_op_cache_size`: `TeFileUtils::GetDirectorySize` (hicann/ge `te_file_utils.cc`) adds the
`st_size` of every regular file under the SoC dir, each hard-link name again, directories not at
all. It also records the cleanup candidates CANN would collect (`*.json` except `*_mix_aic.json`
and `*_mix_aiv.json`, `te_cache_space_manager.cc` `CollectCacheJsonFileAccessTime`) with their
access time, so `app.opcache.cleanup.predict_cleanup` needs no second walk; json contents are read
there, never here. A caller that knows the limit before the walk (`scan`, `collect`) passes it as
`candidates_from`: a SoC dir's candidates are then gathered only once its CANN size has reached
the limit (CANN cleans only then), and the dirs walked before that moment are listed again for
their `*.json` names only, so a cache under its limit costs no candidate at all.

Files directly in kernel_cache (op_cache.ini, CANN's lock files) and the kernel_cache dir itself
are counted in `CacheUsage.top`, apart from the SoC dirs.
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import os
import stat as stat_mod
import time
from array import array
from collections.abc import Callable, Iterator, Mapping
from itertools import compress, islice
from operator import attrgetter, eq, methodcaller, not_
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from cann_config.app.errors import InputError, Message, os_reason
from cann_config.app.opcache import native as _native_module

# CollectCacheJsonFileAccessTime (te_cache_space_manager.cc): main jsons end with ".json";
# "_mix_aic.json"/"_mix_aiv.json" are sub-kernels reached through their main json's jsonList.
JSON_SUFFIX = ".json"
MIX_SUFFIXES = ("_mix_aic.json", "_mix_aiv.json")
_MIX_LEN = len("_mix_aic.json")
_JSON_LEN = len(JSON_SUFFIX)
# The suffix CANN's op compilers give a kernel's binary (`"binFileSuffix": ".o"` in the kernel jsons
# they write; app.opcache.cleanup._binary_of): the walk notes the size of "<json stem>.o" beside
# each json it gathers (SocUsage.json_bins), so a prediction reading the json need not lstat that
# binary again. Only a shortcut: a binary of any other suffix is lstat'ed, with the same answer.
WALK_BIN_SUFFIX = ".o"

_S_IFMT = stat_mod.S_IFMT(0o177777)
_S_IFDIR = stat_mod.S_IFDIR
_S_IFREG = stat_mod.S_IFREG
_S_IFLNK = stat_mod.S_IFLNK
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# Entries handled between two looks at the clock inside one directory: a directory with
# 100,000 files must not delay a batch (and a Stop) by the whole directory.
_CHUNK = 2048

ListdirFunc = Callable[[int], list[str]]

_get_mode = attrgetter("st_mode")
_get_nlink = attrgetter("st_nlink")
_get_size = attrgetter("st_size")
_get_blocks = attrgetter("st_blocks")
_get_uid = attrgetter("st_uid")
_get_atime = attrgetter("st_atime")
_ends_with_json = methodcaller("endswith", JSON_SUFFIX)
_ends_with_mix = methodcaller("endswith", MIX_SUFFIXES)


def _read_marks(sts: list[os.stat_result]) -> bytes:
    """SocUsage.read_marks of one chunk: atime later than mtime and ctime (the kernel's relatime
    test, fs/inode.c relatime_need_update, compares the nanosecond times)."""
    return bytes(st.st_atime_ns > st.st_mtime_ns and st.st_atime_ns > st.st_ctime_ns for st in sts)


def _json_columns(atimes: bytes, sizes: bytes) -> tuple[array, array]:
    """SocUsage.jsons' access times and sizes of a chunk from plain_chunk's bytes (C doubles and
    int64s, app/opcache/_native.c)."""
    atime_column, size_column = array("d"), array("q")
    atime_column.frombytes(atimes)
    size_column.frombytes(sizes)
    return atime_column, size_column


def is_candidate(name: str) -> bool:
    """A "*.json" name CANN's cleaner collects: longer than ".json", and not a mix sub-kernel
    (CollectCacheJsonFileAccessTime's own length checks)."""
    return len(name) > len(JSON_SUFFIX) and not (len(name) > _MIX_LEN and name.endswith(MIX_SUFFIXES))


def any_candidate(names: list[str]) -> bool:
    """Whether one of `names` (jsons) is a name CANN's cleaner collects (is_candidate)."""
    mask = SocUsage._candidate_mask(names)
    return bool(names) and (mask is None or 1 in mask)


class JsonEntry(NamedTuple):
    """A cleanup candidate as CANN collects it: the json, its access time and its size."""

    path: str
    atime: float
    size: int


class SocUsage:
    """Usage of one directory tree: a SoC dir, or (name "") kernel_cache itself and its loose files.

    `files` counts every non-directory name (symlinks included); `apparent_bytes` and
    `allocated_bytes` count each inode once (du); `cann_bytes` is CANN's own measure (see the
    module docstring); `hard_links` counts the extra names of inodes already counted.
    A plain class, not a dataclass: `cann-config scan` imports no dataclasses (~10 ms).
    """

    _FIELDS = ("name", "path", "files", "dirs", "apparent_bytes", "allocated_bytes", "cann_bytes", "hard_links",
               "symlinks", "other_users_files", "jsons", "candidates_complete")

    def __init__(self, name: str, path: Path, files: int = 0, dirs: int = 0, apparent_bytes: int = 0,
                 allocated_bytes: int = 0, cann_bytes: int = 0, hard_links: int = 0, symlinks: int = 0,
                 other_users_files: int = 0) -> None:
        self.name, self.path = name, path
        self.files, self.dirs = files, dirs
        self.apparent_bytes, self.allocated_bytes, self.cann_bytes = apparent_bytes, allocated_bytes, cann_bytes
        self.hard_links, self.symlinks, self.other_users_files = hard_links, symlinks, other_users_files
        # Every "*.json" name the walk found, per directory chunk: (dir path, names, atimes, sizes).
        # Kept raw so the hot loop builds no string and no tuple per file (the dir path is the
        # walk's own string, shared by the chunks of a dir); `json_candidates()` applies CANN's
        # filter and gives JsonEntry items, `ordered_candidates()` CANN's order as compact keys.
        self.jsons: list[tuple[str, list[str], array, array]] = []
        # Per chunk of `jsons`, per name: 1 when the json was read after its last change (its
        # atime is later than its mtime and its ctime, at nanosecond precision): on a relatime
        # mount CANN's own read then leaves its atime alone (app.opcache.atime).
        self.read_marks: list[bytes] = []
        # Per chunk of `jsons`, when the C loops walked it: int64s, per json the size of
        # "<its stem><WALK_BIN_SUFFIX>" in the same chunk (-1: not there), so a prediction needs
        # no lstat of the binary it names (app/opcache/_native.c read_groups); None otherwise.
        self.json_bins: list[bytes | None] = []
        # The filesystem holding the SoC dir (set at the end of the walk; its atime flags decide
        # whether CANN's read saves a group, app.opcache.atime).
        self.mount: MountInfo | None = None
        # False when the walk left the candidates out (the SoC dir stayed under `candidates_from`).
        self.candidates_complete = True
        # app.opcache.cleanup's GroupStore, the groups read so far: repeated predictions on one
        # scan (the wizard recomputes one on every change of the limit) read each json once.
        self.group_cache: Any = None
        # The layout of the sort keys (ordered_candidates sets it): bits of a position in a chunk,
        # of (chunk, position) together.
        self._pos_bits, self._pos_mask, self._shift, self._low_mask = 0, 0, 0, 0

    def __eq__(self, other: object) -> bool:
        return type(other) is SocUsage and all(getattr(self, f) == getattr(other, f) for f in self._FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it was

    def __repr__(self) -> str:
        return "SocUsage(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS[:10]) + ")"

    def json_candidates(self) -> list[JsonEntry]:
        """The jsons CANN's cleaner would collect under this dir (CollectCacheJsonFileAccessTime).

        A name longer than ".json" that ends with it, except names longer than "_mix_aic.json"
        that end with "_mix_aic.json" or "_mix_aiv.json" (CANN's own length checks).
        """
        found = []
        for folder, names, atimes, sizes in self.jsons:
            for name, atime, size in zip(names, atimes, sizes, strict=True):
                if is_candidate(name):
                    found.append(JsonEntry(folder + "/" + name, atime, size))
        return found

    def ordered_candidates(self) -> list[int]:
        """The candidates in the order CANN's cleaner takes them, as keys for `candidate()`.

        Oldest access time first, in whole seconds (a std::multimap keyed by st_atime,
        te_cache_space_manager.cc `GetFilesAccessTime`); among equal seconds CANN takes its
        directory-reading order, the tool the path's (docs/cann/op-cache.md#cleanup). A key is
        one int, seconds * 2**shift + chunk * 2**pos_bits + position (the bits as few as this
        SoC dir's chunks need, so a key fits in 63 bits and the C loops make and sort them), so
        ordering 100,000 candidates makes no path string except for those sharing a second.
        """
        jsons = self.jsons
        pos_bits = max((len(names) for _folder, names, _atimes, _sizes in jsons), default=1).bit_length()
        chunk_bits = max(len(jsons), 1).bit_length()
        self._pos_bits, self._pos_mask, self._shift = pos_bits, (1 << pos_bits) - 1, pos_bits + chunk_bits
        self._low_mask = (1 << self._shift) - 1
        masks = [self._candidate_mask(names) for _folder, names, _atimes, _sizes in jsons]
        native = _native_module.native
        made = native.order_keys([(chunk[2], mask) for chunk, mask in zip(jsons, masks, strict=True)],
                                 pos_bits, chunk_bits) if native is not None else None
        if made is not None:
            keys, ties = made
            if 1 in ties:
                self._order_ties_by_path(keys, ties)
            return keys
        keys = []
        factor = 1 << self._shift
        for chunk, ((_folder, _names, atimes, _sizes), mask) in enumerate(zip(jsons, masks, strict=True)):
            base = chunk << pos_bits
            keys += [int(atime) * factor + base + pos for pos, atime in enumerate(atimes)
                     if mask is None or mask[pos]]
        keys.sort()
        seconds = [key >> self._shift for key in keys]
        same = list(map(eq, seconds, islice(seconds, 1, None)))
        if True in same:
            self._order_ties_by_path(keys, same)
        return keys

    @staticmethod
    def _candidate_mask(names: list[str]) -> bytes | None:
        """is_candidate of each "*.json" name (one byte each), None when all are."""
        native = _native_module.native
        if native is not None:  # the same test in C, with is_candidate's numbers and suffixes
            mask: bytes = native.name_mask(names, _JSON_LEN, MIX_SUFFIXES, _MIX_LEN)
        elif min(map(len, names), default=_MIX_LEN + 1) > _MIX_LEN:  # so all longer than ".json"
            mask = bytes(map(not_, map(_ends_with_mix, names)))
        else:
            mask = bytes(map(is_candidate, names))
        return None if 0 not in mask else mask

    def _order_ties_by_path(self, keys: list[int], same: "list[bool] | bytes") -> None:
        """Reorder each run of keys of one second by path (`same[i]`: keys i and i+1 share one)."""
        tied = list(compress(range(len(same)), same))
        pos_bits, pos_mask = self._pos_bits, self._pos_mask
        i = 0
        while i < len(tied):
            j = i
            while j + 1 < len(tied) and tied[j + 1] == tied[j] + 1:
                j += 1
            start, stop = tied[i], tied[j] + 2
            paths = []
            for key in keys[start:stop]:
                folder, names, _atimes, _sizes = self.jsons[(key & self._low_mask) >> pos_bits]
                paths.append((folder + "/" + names[key & pos_mask], key))
            paths.sort()
            keys[start:stop] = [key for _path, key in paths]
            i = j + 1

    def first_key_of_second(self, second: int) -> int:
        """The smallest `ordered_candidates()` key of an access time of `second` (for bisect)."""
        return second * (1 << self._shift)

    def candidate(self, key: int) -> tuple[int, str, str, int]:
        """(access time in whole seconds, dir path, name, size) of an `ordered_candidates()` key."""
        folder, names, _atimes, sizes = self.jsons[(key & self._low_mask) >> self._pos_bits]
        pos = key & self._pos_mask
        return key >> self._shift, folder, names[pos], sizes[pos]

    def read_after_change(self, key: int) -> bool:
        """Whether the candidate `key` was read after its last change (see `read_marks`)."""
        return bool(self.read_marks[(key & self._low_mask) >> self._pos_bits][key & self._pos_mask])

    def totals(self) -> "SocTotals":
        return SocTotals(self.files, self.apparent_bytes, self.allocated_bytes, self.cann_bytes)


class SocTotals(NamedTuple):
    """A snapshot of one SoC dir's counters, safe to hand to another thread."""

    files: int
    apparent_bytes: int
    allocated_bytes: int
    cann_bytes: int


class MountInfo(NamedTuple):
    """The /proc/mounts line of the filesystem holding a path."""

    device: str
    mount_point: str
    fs_type: str
    options: tuple[str, ...]

    def option(self, name: str) -> str | None:
        """The value of `name=value`, "" for a bare flag, None when absent."""
        for opt in self.options:
            key, sep, value = opt.partition("=")
            if key == name:
                return value if sep else ""
        return None


class CacheUsage:
    """The final result of a scan."""

    _FIELDS = ("kernel_cache", "socs", "top", "unreadable", "other_fs", "other_uids", "free_bytes", "fs_size_bytes",
               "mount", "elapsed", "stopped")

    def __init__(self, kernel_cache: Path, socs: dict[str, SocUsage], top: SocUsage,
                 unreadable: list[tuple[str, str]] | None = None, other_fs: list[str] | None = None,
                 other_uids: tuple[int, ...] = (), free_bytes: int | None = None, fs_size_bytes: int | None = None,
                 mount: MountInfo | None = None, elapsed: float = 0.0, stopped: bool = False) -> None:
        self.kernel_cache, self.socs, self.top = kernel_cache, socs, top
        self.unreadable: list[tuple[str, str]] = [] if unreadable is None else unreadable
        self.other_fs: list[str] = [] if other_fs is None else other_fs
        self.other_uids = other_uids
        self.free_bytes, self.fs_size_bytes = free_bytes, fs_size_bytes
        self.mount, self.elapsed, self.stopped = mount, elapsed, stopped

    def __eq__(self, other: object) -> bool:
        return type(other) is CacheUsage and all(getattr(self, f) == getattr(other, f) for f in self._FIELDS)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "CacheUsage(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")"

    @property
    def fs_type(self) -> str | None:
        return self.mount.fs_type if self.mount else None

    def _all(self) -> list[SocUsage]:
        return [self.top, *self.socs.values()]

    @property
    def files(self) -> int:
        return sum(u.files for u in self._all())

    @property
    def dirs(self) -> int:
        return sum(u.dirs for u in self._all())

    @property
    def apparent_bytes(self) -> int:
        return sum(u.apparent_bytes for u in self._all())

    @property
    def allocated_bytes(self) -> int:
        return sum(u.allocated_bytes for u in self._all())

    @property
    def other_users_files(self) -> int:
        return sum(u.other_users_files for u in self._all())


class ScanProgress(NamedTuple):
    """One batch: running totals so far; the last one has `done=True` and the `usage`."""

    done: bool
    files: int
    dirs: int
    apparent_bytes: int
    allocated_bytes: int
    unreadable: int
    elapsed: float
    current: str
    socs: Mapping[str, SocTotals]
    stopped: bool = False
    usage: CacheUsage | None = None


def _reason(exc: OSError) -> str:
    return exc.strerror or exc.__class__.__name__


def _reason_message(exc: OSError) -> Message:
    return os_reason(exc) if exc.strerror else Message.literal(exc.__class__.__name__)


class _Frame:
    """One open directory of the walk: its fd, its names still to read, its subdirs to visit."""

    __slots__ = ("fd", "path", "names", "pos", "subdirs", "subdir_bytes", "next")

    def __init__(self, fd: int, path: str, names: list[str]):
        self.fd = fd
        self.path = path
        self.names = names
        self.pos = 0  # names[:pos] are accounted for
        self.subdirs: list[str] = []
        # (apparent, allocated) of each subdir's own entry, already counted in this dir's tree.
        self.subdir_bytes: list[tuple[int, int]] = []
        self.next = 0

    @property
    def exhausted(self) -> bool:
        return self.pos >= len(self.names)


# One part of a split walk (app.opcache.parallel): a subtree of a SoC dir, or a SoC dir's own
# entries, as plain picklable data: files, dirs, apparent, allocated, cann, hard_links, symlinks,
# other_users_files, jsons, read_marks, json_bins (SocUsage's), unreadable, other_fs, other uids, and the
# inodes with several links whose bytes it counted (_Walker.links).
WalkPart = tuple[int, int, int, int, int, int, int, int, list[tuple[str, list[str], array, array]], list[bytes],
                 list[bytes | None], list[tuple[str, str]], list[str], list[int], list[tuple[int, int, int, int]]]


class WalkSplitter(Protocol):
    """Who walks the units of a split walk besides this process (app.opcache.parallel.ScanPool)."""

    workers: int

    def start_walk(self, kernel_cache: str, dev: int, collect: bool, units: list[tuple[int, str, str]]) -> list[int]:
        """Hand the units (id, SoC dir name, subdir name) out; returns the ids left to this process."""

    def finish_walk(self) -> tuple[dict[int, WalkPart], list[int]]:
        """The parts the workers walked, and the ids of units left undone (a worker failed)."""

    def abandon(self) -> None:
        """Stop the workers' walk (the scan was stopped)."""


class _Walker:
    """The walk's state shared by all SoC dirs (hard links seen, errors, device)."""

    def __init__(self, dev: int, listdir: ListdirFunc):
        self.dev = dev
        self.listdir = listdir
        self.uid = os.geteuid()
        self.seen: set[tuple[int, int]] = set()
        self.unreadable: list[tuple[str, str]] = []
        self.other_fs: list[str] = []
        self.other_uids: set[int] = set()
        # Whether the names of "*.json" files are kept (cleanup candidates) as the walk goes.
        self.collect = True
        # A split walk (app.opcache.parallel) records each inode with several links the first
        # time it counts its bytes, (dev, ino, size, blocks), so that the parts can be joined in
        # the serial walk's order with every inode counted once; None: not recorded.
        self.links: list[tuple[int, int, int, int]] | None = None

    def open_dir(self, name: str, parent_fd: int, path: str) -> _Frame | None:
        """Open a subdir relative to its parent without following a symlink; None if unreadable."""
        try:
            fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
        except OSError as exc:
            self.unreadable.append((path, _reason(exc)))
            return None
        try:
            names = self.listdir(fd)
        except OSError as exc:
            os.close(fd)
            self.unreadable.append((path, _reason(exc)))
            return None
        return _Frame(fd, path, names)

    def read_chunk(self, frame: _Frame, acc: SocUsage) -> None:
        """Account for the next _CHUNK names of `frame` (one lstat each).

        This is the hot loop of the scan. The lstat calls run in a list comprehension; a chunk
        of regular files with one link each (nearly every chunk of a cache) is then summed by
        C-level `map`s, and only a chunk holding a directory, a symlink or a hard link is
        walked entry by entry in Python (measured: 1.63x `du -sb` against 1.84x when every
        entry goes through the Python loop).
        """
        fd = frame.fd
        names = frame.names[frame.pos:frame.pos + _CHUNK]
        frame.pos += len(names)
        native = _native_module.native
        if native is not None and self._read_plain_chunk(native, fd, frame.path, names, acc):
            return
        lstat = os.lstat
        try:
            sts = [lstat(name, dir_fd=fd) for name in names]
        except OSError:
            names, sts = self._lstat_each(names, fd, frame.path + "/")
        modes = set(map(_get_mode, sts))
        if all(mode & _S_IFMT == _S_IFREG for mode in modes) and (not sts or max(map(_get_nlink, sts)) == 1):
            count = len(sts)
            size = sum(map(_get_size, sts))
            acc.files += count
            acc.apparent_bytes += size
            acc.cann_bytes += size
            acc.allocated_bytes += sum(map(_get_blocks, sts)) * 512
            uids = list(map(_get_uid, sts))
            mine = uids.count(self.uid)
            if mine != count:
                acc.other_users_files += count - mine
                self.other_uids.update(uids)
                self.other_uids.discard(self.uid)
            if not self.collect:
                return
            mask = list(map(_ends_with_json, names))
            if True in mask:
                json_sts = list(compress(sts, mask))
                acc.jsons.append((frame.path, list(compress(names, mask)), array("d", map(_get_atime, json_sts)),
                                  array("q", map(_get_size, json_sts))))
                acc.read_marks.append(_read_marks(json_sts))
                acc.json_bins.append(None)
            return
        self._account_each(frame, acc, names, sts)

    def _read_plain_chunk(self, native: Any, fd: int, path: str, names: list[str], acc: SocUsage) -> bool:
        """read_chunk's common case in C (app/opcache/_native.c plain_chunk): the lstat of every
        name and the sums of a chunk of regular files with one link each. False, with nothing
        counted, when the chunk holds anything else (read_chunk then does it in Python)."""
        plain = native.plain_chunk(fd, names, JSON_SUFFIX if self.collect else bytes(len(names)), self.uid,
                                   WALK_BIN_SUFFIX if self.collect else None)
        if plain is None:
            return False
        size, blocks, not_mine, owners, json_names, atimes, sizes, marks, bins = plain
        count = len(names)
        acc.files += count
        acc.apparent_bytes += size
        acc.cann_bytes += size
        acc.allocated_bytes += blocks * 512
        if not_mine:
            acc.other_users_files += not_mine
            self.other_uids.update(owners)
        if marks:
            acc.jsons.append((path, json_names, *_json_columns(atimes, sizes)))
            acc.read_marks.append(marks)
            acc.json_bins.append(bins)
        return True

    def _lstat_each(self, names: list[str], fd: int, prefix: str) -> tuple[list[str], list[os.stat_result]]:
        """lstat name by name, listing those that fail (vanished since listed, EACCES, EIO)."""
        good_names, good_sts = [], []
        for name in names:
            try:
                st = os.lstat(name, dir_fd=fd)
            except OSError as exc:
                self.unreadable.append((prefix + name, _reason(exc)))
                continue
            good_names.append(name)
            good_sts.append(st)
        return good_names, good_sts

    def _account_each(self, frame: _Frame, acc: SocUsage, names: list[str], sts: list[os.stat_result]) -> None:
        """The general case, entry by entry: directories, symlinks, hard links, other users."""
        prefix = frame.path + "/"
        seen = self.seen
        uid = self.uid
        json_names: list[str] = []
        json_atimes = array("d")
        json_sizes = array("q")
        json_sts: list[os.stat_result] = []
        files = dirs = apparent = blocks = cann = links = symlinks = others = 0
        for name, st in zip(names, sts, strict=True):
            kind = st.st_mode & _S_IFMT
            if kind == _S_IFDIR:
                if st.st_dev != self.dev:
                    self.other_fs.append(prefix + name)
                else:
                    dirs += 1
                    apparent += st.st_size
                    blocks += st.st_blocks
                    frame.subdirs.append(name)
                    frame.subdir_bytes.append((st.st_size, st.st_blocks * 512))
                continue
            files += 1
            size = st.st_size
            if kind == _S_IFREG:
                # GetDirectorySize counts every regular file's name, hard link or not.
                cann += size
            elif kind == _S_IFLNK:
                symlinks += 1
            if st.st_nlink > 1:
                key = (st.st_dev, st.st_ino)
                if key in seen:
                    links += 1
                    size = -1
                else:
                    seen.add(key)
                    if self.links is not None:
                        self.links.append((st.st_dev, st.st_ino, size, st.st_blocks))
            if size >= 0:
                apparent += size
                blocks += st.st_blocks
            if st.st_uid != uid:
                others += 1
                self.other_uids.add(st.st_uid)
            # CANN collects every name that is not a directory (d_type != DT_DIR).
            if self.collect and name.endswith(JSON_SUFFIX):
                json_names.append(name)
                json_atimes.append(st.st_atime)
                json_sizes.append(st.st_size)
                json_sts.append(st)
        acc.files += files
        acc.dirs += dirs
        acc.apparent_bytes += apparent
        acc.allocated_bytes += blocks * 512
        acc.cann_bytes += cann
        acc.hard_links += links
        acc.symlinks += symlinks
        acc.other_users_files += others
        if json_names:
            acc.jsons.append((frame.path, json_names, json_atimes, json_sizes))
            acc.read_marks.append(_read_marks(json_sts))
            acc.json_bins.append(None)


    def walk_frames(self, frames: list[_Frame], acc: SocUsage) -> Iterator[str]:
        """Walk the open `frames` (a stack, the last on top) to their end, depth first as the
        serial walk goes, yielding the current dir's path after each step; closes every fd."""
        try:
            while frames:
                frame = frames[-1]
                if not frame.exhausted:
                    self.read_chunk(frame, acc)
                elif frame.next < len(frame.subdirs):
                    child = frame.subdirs[frame.next]
                    frame.next += 1
                    opened = self.open_dir(child, frame.fd, frame.path + "/" + child)
                    if opened is not None:
                        frames.append(opened)
                else:
                    os.close(frame.fd)
                    frames.pop()
                yield frame.path
        finally:
            for frame in frames:
                os.close(frame.fd)
            frames.clear()

    def part(self, acc: SocUsage) -> "WalkPart":
        """What this walker and `acc` found, as one part of a split walk (see WalkPart)."""
        return (acc.files, acc.dirs, acc.apparent_bytes, acc.allocated_bytes, acc.cann_bytes, acc.hard_links,
                acc.symlinks, acc.other_users_files, acc.jsons, acc.read_marks, acc.json_bins, self.unreadable,
                self.other_fs, sorted(self.other_uids), self.links or [])

    def catch_up(self, acc: SocUsage, frames: list[_Frame], finished: list[str]) -> None:
        """The candidates of what was walked before collecting began: the names already read of
        the open dirs, and every dir finished before (listed again, `*.json` names only)."""
        for frame in frames:
            self._collect_names(acc, frame.fd, frame.path, frame.names[:frame.pos])
        for path in finished:
            try:
                fd = os.open(path, _DIR_FLAGS)
            except OSError:
                continue  # gone since it was walked
            try:
                self._collect_names(acc, fd, path, self.listdir(fd))
            except OSError:
                pass
            finally:
                os.close(fd)

    @staticmethod
    def _collect_names(acc: SocUsage, fd: int, folder: str, names: list[str]) -> None:
        """Add the `*.json` entries among `names` (in the dir `fd`) that are not directories."""
        json_names = list(filter(_ends_with_json, names))
        native = _native_module.native
        if native is not None and json_names:
            # All regular files with one link (nearly always): their times and sizes from C.
            plain = native.plain_chunk(fd, json_names, b"\1" * len(json_names), -1, None)
            if plain is not None:
                acc.jsons.append((folder, json_names, *_json_columns(plain[5], plain[6])))
                acc.read_marks.append(plain[7])
                acc.json_bins.append(None)
                return
        lstat = os.lstat
        try:
            sts = [lstat(name, dir_fd=fd) for name in json_names]
        except OSError:  # one vanished since it was listed (or cannot be read): name by name
            found = []
            for name in json_names:
                try:
                    found.append((name, lstat(name, dir_fd=fd)))
                except OSError:
                    continue
            json_names = [name for name, _st in found]
            sts = [st for _name, st in found]
        kinds = [mode & _S_IFMT != _S_IFDIR for mode in map(_get_mode, sts)]
        if False in kinds:
            json_names = list(compress(json_names, kinds))
            sts = list(compress(sts, kinds))
        if json_names:
            acc.jsons.append((folder, json_names, array("d", map(_get_atime, sts)), array("q", map(_get_size, sts))))
            acc.read_marks.append(_read_marks(sts))
            acc.json_bins.append(None)


def walk_part(parent_fd: int, name: str, path: str, dev: int, collect: bool,
              listdir: ListdirFunc = os.listdir) -> WalkPart:
    """Walk the subdir `name` of the open dir `parent_fd` (without following a symlink; `path`
    names it) with the serial walk's rules, as one part of a split walk; `collect`: gather the
    cleanup candidates. Never raises for what it cannot read: that is listed in the part."""
    walker = _Walker(dev, listdir)
    walker.collect = collect
    walker.links = []
    acc = SocUsage("", Path())
    frame = walker.open_dir(name, parent_fd, path)
    if frame is not None:
        for _path in walker.walk_frames([frame], acc):
            pass
    return walker.part(acc)


def join_part(acc: SocUsage, part: WalkPart, seen: set[tuple[int, int]], unreadable: list[tuple[str, str]],
              other_fs: list[str], other_uids: set[int]) -> None:
    """Add `part` to the SoC dir `acc` and to the walk's lists, as if the serial walk had walked
    it here: parts joined in the serial walk's order give its totals, and an inode counted by an
    earlier part is taken out again (its name stays a hard link, as the serial walk counts it)."""
    (files, dirs, apparent, allocated, cann, hard_links, symlinks, others, jsons, read_marks, json_bins,
     part_unreadable, part_other_fs, part_uids, links) = part
    acc.files += files
    acc.dirs += dirs
    acc.apparent_bytes += apparent
    acc.allocated_bytes += allocated
    acc.cann_bytes += cann
    acc.hard_links += hard_links
    acc.symlinks += symlinks
    acc.other_users_files += others
    acc.jsons += jsons
    acc.read_marks += read_marks
    acc.json_bins += json_bins
    unreadable += part_unreadable
    other_fs += part_other_fs
    other_uids.update(part_uids)
    for dev, ino, size, blocks in links:
        key = (dev, ino)
        if key in seen:
            acc.apparent_bytes -= size
            acc.allocated_bytes -= blocks * 512
            acc.hard_links += 1
        else:
            seen.add(key)


def parse_mounts(text: str) -> list[MountInfo]:
    """The lines of /proc/mounts (fields are octal-escaped: `\\040` is a space)."""

    def unescape(field_text: str) -> str:
        if "\\" not in field_text:
            return field_text
        out, i = [], 0
        while i < len(field_text):
            chunk = field_text[i:i + 4]
            if len(chunk) == 4 and chunk[0] == "\\" and chunk[1:].isdigit():
                out.append(chr(int(chunk[1:], 8)))
                i += 4
            else:
                out.append(field_text[i])
                i += 1
        return "".join(out)

    mounts = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 4:
            continue
        mounts.append(MountInfo(unescape(parts[0]), unescape(parts[1]), parts[2], tuple(parts[3].split(","))))
    return mounts


def mount_of(path: str | Path, mounts_text: str) -> MountInfo | None:
    """The filesystem holding `path`: the mount with the longest mount point that prefixes it.

    `path` should be resolved (no symlinks). Later lines win on equal mount points (a mount
    stacked over another hides it).
    """
    target = os.path.normpath(str(path))
    best: MountInfo | None = None
    for mount in parse_mounts(mounts_text):
        mp = mount.mount_point.rstrip("/") or "/"
        inside = target == mp or target.startswith(mp + "/") or mp == "/"
        if inside and (best is None or len(mp) >= len(best.mount_point.rstrip("/") or "/")):
            best = mount
    return best


def nfs_lock_problem(mount: MountInfo | None) -> str | None:
    """Why file locks are not reliable for a shared cache on this mount, or None.

    docs/cann/op-cache.md#shared-cache-paths: shared cache paths need file locks; NFSv4 has them, NFSv3 not
    (ASCEND_CACHE_PATH doc). Returns "nfsv3" for an NFS version 3 (or older) mount and "nolock"
    for an NFS mount whose locks stay local to the client (`nolock`, `local_lock=all|posix`).
    """
    if mount is None or mount.fs_type not in ("nfs", "nfs3", "nfs4"):
        return None
    vers = mount.option("vers") or mount.option("nfsvers") or ""
    if mount.fs_type == "nfs4":
        is_v3 = vers.startswith(("2", "3"))
    else:
        # The kernel shows NFSv4 mounts as "nfs4"; "nfs" is v3 (or v2) unless vers says 4.
        is_v3 = not vers.startswith("4")
    if is_v3:
        return "nfsv3"
    if mount.option("nolock") is not None or mount.option("local_lock") in ("all", "posix"):
        return "nolock"
    return None


def _read_mounts() -> str:
    try:
        with open("/proc/mounts", encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def scan_cache(path: str | Path, *, batch_seconds: float = 0.1,
               should_stop: Callable[[], bool] = lambda: False,
               listdir: ListdirFunc = os.listdir,
               mounts_text: str | None = None,
               clock: Callable[[], float] = time.monotonic,
               candidates_from: int | None = 0,
               splitter: "WalkSplitter | None" = None) -> Iterator[ScanProgress]:
    """Walk the kernel_cache dir `path`, yielding a ScanProgress per batch; the last is final.

    `should_stop` is polled at every batch boundary; when it returns True the walk ends and
    the final item has `stopped=True` (its usage covers what was walked). `listdir` (given a
    directory fd) and `mounts_text` (the text of /proc/mounts) are injectable for tests.
    `candidates_from`: gather a SoC dir's cleanup candidates once its `cann_bytes` reach this
    many bytes (0: always, for a caller that may predict with any limit; None: never, ageing
    off); a SoC dir that stays below has `candidates_complete=False`.
    `splitter` (app.opcache.parallel.ScanPool): share the walk with its worker processes; the
    result is the serial walk's (progress counts this process's part until the end).
    Raises InputError at the first step when `path` is not a directory that can be opened.
    """
    started = clock()
    root = Path(path)
    try:
        # The start dir itself is opened following symlinks (a user may point $HOME/atc_data to
        # a bigger disk); nothing below it is.
        root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except NotADirectoryError:
        raise InputError.from_code("scan-error-not-dir", root) from None
    except OSError as exc:
        raise InputError.from_code("scan-error-cannot-open", root, detail=_reason_message(exc)) from None

    frames: list[_Frame] = []
    try:
        root_st = os.fstat(root_fd)
        walker = _Walker(root_st.st_dev, listdir)
        real_root = os.path.realpath(root)
        top = SocUsage("", root, dirs=1, apparent_bytes=root_st.st_size, allocated_bytes=root_st.st_blocks * 512)
        socs: dict[str, SocUsage] = {}
        stopped = False
        next_batch = started + batch_seconds
        current = str(root)

        def progress(done: bool = False, usage: CacheUsage | None = None) -> ScanProgress:
            parts = [top, *socs.values()]
            return ScanProgress(
                done=done,
                files=sum(u.files for u in parts),
                dirs=sum(u.dirs for u in parts),
                apparent_bytes=sum(u.apparent_bytes for u in parts),
                allocated_bytes=sum(u.allocated_bytes for u in parts),
                unreadable=len(walker.unreadable),
                elapsed=clock() - started,
                current=current,
                socs={name: soc.totals() for name, soc in socs.items()},
                stopped=stopped,
                usage=usage,
            )

        # kernel_cache itself: its direct subdirs are the SoC dirs, everything else is "top".
        try:
            top_names = listdir(root_fd)
        except OSError as exc:
            raise InputError.from_code("scan-error-cannot-read", root, detail=_reason_message(exc)) from None
        top_frame = _Frame(root_fd, str(root), top_names)
        while not top_frame.exhausted:
            walker.read_chunk(top_frame, top)
        # read_chunk counted the SoC dirs' own entries in `top`; they belong to their SoC.
        for name, (size, allocated) in zip(top_frame.subdirs, top_frame.subdir_bytes, strict=True):
            socs[name] = SocUsage(name, root / name, dirs=1, apparent_bytes=size, allocated_bytes=allocated)
            top.dirs -= 1
            top.apparent_bytes -= size
            top.allocated_bytes -= allocated

        split = splitter is not None and splitter.workers > 1 and bool(top_frame.subdirs)
        for name in top_frame.subdirs if not split else ():
            if stopped:
                break
            acc = socs[name]
            frame = walker.open_dir(name, root_fd, str(root / name))
            if frame is None:
                continue
            # Collecting waits until the SoC dir reaches `candidates_from` (CANN cleans a SoC
            # dir only when its size is >= max); `finished` lists the dirs walked before then.
            walker.collect = candidates_from is not None and acc.cann_bytes >= candidates_from
            finished: list[str] = []
            frames.append(frame)
            while frames:
                frame = frames[-1]
                if not frame.exhausted:
                    walker.read_chunk(frame, acc)
                    if not walker.collect and candidates_from is not None and acc.cann_bytes >= candidates_from:
                        walker.collect = True
                        walker.catch_up(acc, frames, finished)
                        finished = []
                elif frame.next < len(frame.subdirs):
                    child = frame.subdirs[frame.next]
                    frame.next += 1
                    opened = walker.open_dir(child, frame.fd, frame.path + "/" + child)
                    if opened is not None:
                        frames.append(opened)
                else:
                    os.close(frame.fd)
                    frames.pop()
                    if not walker.collect:
                        finished.append(frame.path)
                now = clock()
                if now >= next_batch:
                    current = frames[-1].path if frames else acc.name
                    yield progress()
                    next_batch = clock() + batch_seconds
                    if should_stop():
                        stopped = True
                        break
            acc.candidates_complete = walker.collect

        if split:
            assert splitter is not None
            # A split walk (app.opcache.parallel): each SoC dir's own entries here, then its
            # subdirs as units shared among the processes, then every part joined in the serial
            # walk's order, so the totals and lists are the serial walk's.
            # The parts gather the candidates whenever a limit may need them (a SoC dir's size is
            # known only when its parts are joined); a SoC dir that stays under `candidates_from`
            # drops them then, as the serial walk never gathers them.
            collect = candidates_from is not None
            soc_fds: dict[str, int] = {}
            own_parts: dict[str, WalkPart] = {}
            units: list[tuple[int, str, str]] = []
            units_of: dict[str, list[int]] = {}
            parts: dict[int, WalkPart] = {}
            try:
                for name in top_frame.subdirs:
                    part_walker = _Walker(walker.dev, listdir)
                    part_walker.collect, part_walker.links = collect, []
                    part_acc = SocUsage("", root)
                    frame = part_walker.open_dir(name, root_fd, str(root / name))
                    units_of[name] = []
                    if frame is not None:
                        frames.append(frame)
                        soc_fds[name] = frame.fd
                        while not frame.exhausted:
                            part_walker.read_chunk(frame, part_acc)
                        for sub in frame.subdirs:
                            units_of[name].append(len(units))
                            units.append((len(units), name, sub))
                    own_parts[name] = part_walker.part(part_acc)
                todo = splitter.start_walk(str(root), walker.dev, collect, units)
                todo.reverse()
                joined = False
                while not stopped:
                    if not todo:
                        if joined:
                            break
                        # The workers' parts; a unit a failed worker left undone is walked here.
                        found, todo = splitter.finish_walk()
                        parts.update(found)
                        todo.reverse()
                        joined = True
                        continue
                    unit_id = todo.pop()
                    _uid, soc_name, sub = units[unit_id]
                    part_walker = _Walker(walker.dev, listdir)
                    part_walker.collect, part_walker.links = collect, []
                    part_acc = SocUsage("", root)
                    frame = part_walker.open_dir(sub, soc_fds[soc_name], f"{root}/{soc_name}/{sub}")
                    if frame is not None:
                        for current in part_walker.walk_frames([frame], part_acc):  # noqa: B007 - progress() shows it
                            if clock() >= next_batch:
                                yield progress()
                                next_batch = clock() + batch_seconds
                                if should_stop():
                                    stopped = True
                                    break
                    if not stopped:
                        parts[unit_id] = part_walker.part(part_acc)
            finally:
                if stopped:
                    splitter.abandon()
            for name in top_frame.subdirs:
                acc = socs[name]
                join_part(acc, own_parts[name], walker.seen, walker.unreadable, walker.other_fs, walker.other_uids)
                for unit_id in units_of[name]:
                    if unit_id in parts:
                        join_part(acc, parts[unit_id], walker.seen, walker.unreadable, walker.other_fs,
                                  walker.other_uids)
                if name not in soc_fds:
                    continue
                if candidates_from is None or acc.cann_bytes < candidates_from:
                    acc.candidates_complete = False
                    acc.jsons, acc.read_marks, acc.json_bins = [], [], []

        usage = CacheUsage(
            kernel_cache=root,
            socs=socs,
            top=top,
            unreadable=walker.unreadable,
            other_fs=walker.other_fs,
            other_uids=tuple(sorted(walker.other_uids)),
            stopped=stopped,
        )
        try:
            vfs = os.statvfs(root_fd)
            # f_bavail: what an unprivileged user (the compiler) may still write.
            usage.free_bytes = vfs.f_bavail * vfs.f_frsize
            usage.fs_size_bytes = vfs.f_blocks * vfs.f_frsize
        except OSError:
            pass
        usage.mount = mount_of(real_root, _read_mounts() if mounts_text is None else mounts_text)
        for soc in socs.values():
            soc.mount = usage.mount  # the walk never leaves the kernel_cache dir's filesystem
        usage.elapsed = clock() - started
        final = progress(done=True, usage=usage)
    finally:
        for frame in frames:
            os.close(frame.fd)
        os.close(root_fd)
    yield final


def scan_to_end(path: str | Path, **kwargs: object) -> CacheUsage:
    """Run `scan_cache` to the end and return the final usage (for the CLI and tests)."""
    usage = None
    for item in scan_cache(path, **kwargs):  # type: ignore[arg-type]
        usage = item.usage
    assert usage is not None
    return usage


