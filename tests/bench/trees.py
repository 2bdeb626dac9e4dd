"""A realistic operator-compile cache for the benchmarks, generated once and reused.

`cache_tree()` returns `<base>` holding `kernel_cache/op_cache.ini` and SoC dirs
`kernel_cache/<SoC>/kernel_meta_NNNNN/` (docs/cann/op-cache.md, "Layout") filled with what CANN's
op compilers leave there: kernel jsons of 1-3 KiB with the keys CANN writes (sorted, as its JSON
library writes them: `binFileName`, `binFileSuffix`, `blockDim`, `compileInfo`, `coreType`,
`kernelName`, `magic`, `parameters`, `sha256`, ...) next to the binary each names
(`binFileName + binFileSuffix`, 4 KiB-256 KiB, sparse so the tree costs little disk); every
25th kernel is a mix kernel whose json lists `*_mix_aic.json`/`*_mix_aiv.json` sub-kernels
(`jsonList`), each with its own binary. Access times are spread over the last two weeks, and 1 %
of the kernels were used in the last ten minutes (a cleanup keeps those).

The tree goes to `$CANN_CONFIG_BENCH_DIR` or `<tmp>/cann-config-bench/`, on a `noatime`
filesystem: the dir's own when it is mounted `noatime`, else a tmpfs the benchmark mounts
`noatime` at `<that dir>/noatime-tmpfs` (root only; the binaries are sparse, so it holds the
jsons' ~0.5 GiB). On `relatime`, CANN's own read would save every group of the tree (its
`utime`d access times are not later than the ctime, docs/cann/op-cache.md#access-time-re-check),
so the prediction would read nothing and the rows over the limit would measure no reading at
all; without root the tree stays where it is and a line on stderr says so. It is kept: a
`.complete` stamp marks a finished one, and the next benchmark run reuses it (generating 200,000
files takes a while). `set_limit()` rewrites op_cache.ini, so one tree serves as a cache under
its limit and over it.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

VERSION = 1  # bump when the layout changes: old trees are then not reused
SOCS = ("Ascend910B3", "Ascend910_9382", "Ascend310P3", "Ascend910B4")
MIX_EVERY = 25
RECENT_PERCENT = 1
INI_TEMPLATE = ("[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n"
                "max_op_cache_size={max_mb}\nremain_cache_size_ratio={ratio}\n")
# Far above the tree's size (~13 GiB apparent, ~3 GiB per SoC dir) / far below it.
UNDER_LIMIT_MB = 1_000_000
OVER_LIMIT_MB = 1
RECENT_LIST = "recent-jsons.txt"


def bench_dir() -> Path:
    base = Path(os.environ.get("CANN_CONFIG_BENCH_DIR") or Path(tempfile.gettempdir()) / "cann-config-bench")
    return _noatime_dir(base)


def _mount_options(path: Path) -> tuple[str, ...]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from cann_config.app.opcache.scanner import _read_mounts, mount_of

    mount = mount_of(os.path.realpath(path), _read_mounts())
    return mount.options if mount is not None else ()


def _noatime_dir(base: Path) -> Path:
    """`base` when its filesystem is mounted noatime, else a noatime tmpfs mounted below it (see
    the module docstring); `base` itself, said on stderr, when that cannot be done."""
    base.mkdir(parents=True, exist_ok=True)
    if "noatime" in _mount_options(base):
        return base
    mnt = base / "noatime-tmpfs"
    mnt.mkdir(exist_ok=True)
    if os.path.ismount(mnt) and "noatime" in _mount_options(mnt):
        return mnt
    if os.geteuid() == 0:
        import subprocess

        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "noatime,size=8g", "tmpfs", str(mnt)],
                              capture_output=True, text=True, check=False)
        if done.returncode == 0:
            print(f"mounted a noatime tmpfs at {mnt} for the cache trees (umount {mnt} to free it)",
                  file=sys.stderr, flush=True)
            return mnt
        reason = done.stderr.strip()
    else:
        reason = "not root"
    print(f"cannot mount a noatime tmpfs ({reason}): the trees stay on {base}, whose mount is not noatime, so "
          "CANN's own read saves their groups and the rows over the limit read no json", file=sys.stderr, flush=True)
    return base


def _kernel_json(rng: random.Random, stem: str, extra: dict | None = None) -> bytes:
    params = [{"dtype": rng.choice(("float16", "float32", "int32", "bfloat16")), "format": "ND",
               "shape": [rng.randint(1, 4096) for _ in range(rng.randint(1, 4))]} for _ in range(rng.randint(2, 8))]
    info = {
        "binFileName": stem,
        "binFileSuffix": ".o",
        "blockDim": rng.randint(1, 48),
        "compileInfo": {"_pattern": rng.choice(("ElemWise", "Broadcast", "CommReduce", "Opaque")),
                        "_ub_size": 196608, "_core_num": 24, "_vars": {"k": [f"_dim_{i}" for i in range(6)]},
                        "_tiling_key": rng.randint(0, 1 << 30)},
        "coreType": rng.choice(("AiCore", "VectorCore", "MIX")),
        "intercoreSync": 0,
        "kernelName": stem + "__kernel0",
        "magic": "RT_DEV_BINARY_MAGIC_ELF_AIVEC",
        "memoryStamping": [],
        "opParaSize": rng.randint(0, 512),
        "parameters": params,
        "sha256": hashlib.sha256(stem.encode()).hexdigest(),
        "supportInfo": {"implMode": "high_performance", "inputs": params[:2], "outputs": params[2:3],
                        "opFileName": "add", "opFuncName": "add", "deterministic": "false"},
    }
    if extra:
        info.update(extra)
    return json.dumps(dict(sorted(info.items())), separators=(",", ":")).encode()


def _write(dir_fd: int, name: str, data: bytes, size: int, stamp: float) -> None:
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644, dir_fd=dir_fd)
    try:
        os.write(fd, data)
        if size > len(data):
            os.ftruncate(fd, size)
    finally:
        os.close(fd)
    os.utime(name, (stamp, stamp), dir_fd=dir_fd)


def make_cache(base: Path, files: int, dirs: int, seed: int = 16) -> Path:
    """Write the tree described in the module docstring under `base`; returns kernel_cache."""
    rng = random.Random(seed)
    kernel_cache = base / "kernel_cache"
    kernel_cache.mkdir(parents=True, exist_ok=True)
    now = time.time()
    per_dir = max(1, files // dirs)
    made = kernel = 0
    recent_files: list[str] = []
    for d in range(dirs):
        folder = kernel_cache / SOCS[d % len(SOCS)] / f"kernel_meta_{d:05d}"
        folder.mkdir(parents=True, exist_ok=True)
        dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            count = per_dir if d < dirs - 1 else files - made
            left = count
            while left > 0:
                kernel += 1
                stem = f"te_op_{d:05d}_{kernel:07d}"
                recent = rng.randrange(100) < RECENT_PERCENT
                stamp = now - rng.uniform(0, 600) if recent else now - rng.uniform(3600, 14 * 86400)
                if kernel % MIX_EVERY == 0 and left >= 5:
                    subs = [f"{stem}_mix_aic", f"{stem}_mix_aiv"]
                    extra = {"jsonList": [{"jsonFileName": s + ".json"} for s in subs]}
                    _write(dir_fd, stem + ".json", _kernel_json(rng, stem, extra), 0, stamp)
                    for sub in subs:
                        _write(dir_fd, sub + ".json", _kernel_json(rng, sub), 0, stamp)
                        _write(dir_fd, sub + ".o", b"\x7fELF", rng.randint(4096, 262144), stamp)
                    if recent:
                        recent_files.append(f"{folder.relative_to(base)}/{stem}.json")
                    left -= 5
                elif left >= 2:
                    _write(dir_fd, stem + ".json", _kernel_json(rng, stem), 0, stamp)
                    _write(dir_fd, stem + ".o", b"\x7fELF", rng.randint(4096, 262144), stamp)
                    if recent:
                        recent_files.append(f"{folder.relative_to(base)}/{stem}.json")
                    left -= 2
                else:
                    _write(dir_fd, stem + ".o", b"\x7fELF", rng.randint(4096, 262144), stamp)
                    left -= 1
            made += count
        finally:
            os.close(dir_fd)
    set_limit(kernel_cache, UNDER_LIMIT_MB)
    (base / RECENT_LIST).write_text("\n".join(recent_files) + "\n", encoding="utf-8")
    return kernel_cache


def refresh_recent(base: Path) -> int:
    """Give the "used in the last ten minutes" kernel jsons of a reused tree a fresh access time."""
    now = time.time()
    paths = (base / RECENT_LIST).read_text(encoding="utf-8").split()
    for rel in paths:
        stamp = now - 300
        os.utime(base / rel, (stamp, os.lstat(base / rel).st_mtime))
    return len(paths)


def set_limit(kernel_cache: Path, max_mb: int, ratio: int = 50) -> None:
    """op_cache.ini with both versions and the given limit (so CANN, and the scan, use it)."""
    (kernel_cache / "op_cache.ini").write_text(INI_TEMPLATE.format(max_mb=max_mb, ratio=ratio), encoding="utf-8")


def cache_tree(files: int = 200_000, dirs: int = 2_000) -> Path:
    """The base dir of a finished tree of `files` files in `dirs` leaf dirs (made once, reused)."""
    base = bench_dir() / f"cache-v{VERSION}-{files}-{dirs}"
    stamp = base / ".complete"
    if not stamp.exists():
        if base.exists():
            import shutil

            shutil.rmtree(base)
        started = time.perf_counter()
        print(f"generating {files:,} files in {dirs:,} dirs under {base} (once; reused by later runs)",
              file=sys.stderr, flush=True)
        make_cache(base, files, dirs)
        stamp.write_text("")
        print(f"generated in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    else:
        refresh_recent(base)
    return base


if __name__ == "__main__":
    print(cache_tree(*(int(a) for a in sys.argv[1:3])))
