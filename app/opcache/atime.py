"""Whether CANN's own read of a kernel json refreshes its access time, and so saves its group.

CANN's cleaner keys each json by its `st_atime`, then parses it (a plain `ifstream` read), and
at deletion time deletes the json's group only if a fresh `stat` still shows that atime
(docs/cann/op-cache.md#access-time-re-check; hicann/ge `te_cache_space_manager.cc`
`GetFilesAccessTime`, `AgingCacheFileByAccessTime`). Whether the read changed the atime is the
kernel's rule (`touch_atime` / `relatime_need_update` in fs/inode.c), decided by the mount's
flags and by the json's own times — [inference] as a whole, see the doc:

- `noatime` (or a read-only mount): a read never changes the atime, so every group the loop
  reaches is deleted as its key says;
- `relatime` (the Linux default): the read sets atime = now when atime <= mtime, atime <= ctime
  (true right after a cache hit, whose `utime` sets ctime too) or the atime is 24 h old or more;
- `strictatime`: every read sets it, so CANN deletes nothing;
- NFS: the client's attribute cache may hide the server's refresh from the re-`stat`; the
  tool predicts as for `noatime` and says that this is not confirmed.

The mount's atime flags are read from the options of the filesystem holding the cache
(app.opcache.scanner.MountInfo, /proc/mounts, whose per-mount flags are the same as
/proc/self/mountinfo's): the kernel prints `noatime` or `relatime` and prints nothing for
strict atime (fs/proc_namespace.c `show_mnt_opts`). `lazytime` only delays writing times to
disk; `stat` sees the in-memory atime, so it changes nothing here.
"""

from cann_config.app.opcache.scanner import MountInfo

# The rules a prediction can follow (CleanupPrediction.atime_rule, `scan --json` key
# `cleanup.atime_rule`).
RULE_NOATIME = "noatime"
RULE_RELATIME = "relatime"
RULE_STRICTATIME = "strictatime"
RULE_NFS = "nfs"  # predicted as noatime: not confirmed
RULE_UNKNOWN = "unknown"  # no mount information: predicted as noatime (what CANN means to do)
RULES = (RULE_NOATIME, RULE_RELATIME, RULE_STRICTATIME, RULE_NFS, RULE_UNKNOWN)
# The rules whose prediction rests on a confirmed kernel rule (the others say "not confirmed").
CONFIRMED_RULES = (RULE_NOATIME, RULE_RELATIME, RULE_STRICTATIME)

# fs/inode.c relatime_need_update: an atime this many seconds old is refreshed by any read.
RELATIME_MAX_AGE_SECONDS = 24 * 60 * 60
_NFS_TYPES = ("nfs", "nfs3", "nfs4")


def atime_rule(mount: MountInfo | None) -> str:
    """The access-time rule of the filesystem `mount` (one of RULES)."""
    if mount is None:
        return RULE_UNKNOWN
    if mount.fs_type in _NFS_TYPES:
        return RULE_NFS
    options = set(mount.options)
    if "noatime" in options or "ro" in options:
        return RULE_NOATIME
    if "relatime" in options:
        return RULE_RELATIME
    if "strictatime" in options:  # never printed by the kernel, accepted from a hand-written line
        return RULE_STRICTATIME
    return RULE_STRICTATIME  # neither flag printed: the mount updates atime on every read


def read_refreshes(rule: str, read_after_change: bool, atime_seconds: int, now_seconds: int) -> bool:
    """Whether CANN's read of a json at `now_seconds` changes its atime, so that the re-`stat`
    differs from the key and the group is kept.

    `read_after_change`: the json's atime is later than both its mtime and its ctime (at
    nanosecond precision, as the kernel compares them), i.e. it was read after its last change
    (SocUsage.read_after_change). `atime_seconds` is the key (whole seconds).
    """
    if rule == RULE_STRICTATIME:
        return True
    if rule == RULE_RELATIME:
        return not read_after_change or now_seconds - atime_seconds >= RELATIME_MAX_AGE_SECONDS
    return False
