"""Benchmark: a full cache scan against `du -sb` of the same tree, in the same run.

Run: .venv/bin/python tests/bench/bench_scan.py   (goal: scan median <= 1.8 x du -sb median)
Options: --files N --dirs N (default 200,000 files in 2,000 dirs), --reps N (default 7),
         --tree DIR (scan an existing base dir instead of generating one; it is not deleted).

Measured: `app.opcache.scanner.scan_cache` run to its final result with the GUI's batch interval
(0.1 s), including free space and the /proc/mounts lookup, on a generated CANN-shaped tree
(tests/bench/make_tree.py: kernel_cache/<SoC>/kernel_meta_NNNNN/ with kernel json + binary
pairs of a few bytes, and op_cache.ini). Baseline: the wall time of `du -sb` on the same
kernel_cache, as a subprocess (du is what users compare the gauge with). Runs alternate
(du, scan, scan, du, ...) after one warm-up of each, so both see the same page cache; medians
are compared. The generated tree is deleted afterwards.

For orientation the script also times a bare Python walk (listdir + one fd-relative lstat per
entry, nothing else): the floor for any Python scanner here.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cann_config.app.opcache.scanner import scan_cache  # noqa: E402

from tests.bench.make_tree import make_tree  # noqa: E402

GOAL = 1.8


def time_du(kernel_cache: Path) -> tuple[float, int]:
    start = time.perf_counter()
    out = subprocess.run(["du", "-sb", str(kernel_cache)], capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - start, int(out.split()[0])


def time_scan(kernel_cache: Path) -> tuple[float, int]:
    start = time.perf_counter()
    usage = None
    for item in scan_cache(kernel_cache):
        usage = item.usage
    elapsed = time.perf_counter() - start
    assert usage is not None
    return elapsed, usage.apparent_bytes


def time_bare_walk(kernel_cache: Path) -> tuple[float, int]:
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    start = time.perf_counter()
    total = 0
    stack = [os.open(kernel_cache, flags)]
    total += os.fstat(stack[0]).st_size
    while stack:
        fd = stack.pop()
        for name in os.listdir(fd):
            st = os.lstat(name, dir_fd=fd)
            if st.st_mode & 0o170000 == 0o040000:
                stack.append(os.open(name, flags, dir_fd=fd))
            total += st.st_size
        os.close(fd)
    return time.perf_counter() - start, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200_000)
    parser.add_argument("--dirs", type=int, default=2_000)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--tree", type=Path, help="an existing cache base dir to scan (kept)")
    args = parser.parse_args()
    if shutil.which("du") is None:
        print("du is not installed: no baseline")
        return 1

    temp = None
    try:
        if args.tree:
            kernel_cache = args.tree / "kernel_cache" if (args.tree / "kernel_cache").is_dir() else args.tree
        else:
            temp = tempfile.mkdtemp(prefix="bench_scan_")
            start = time.perf_counter()
            kernel_cache = make_tree(temp, files=args.files, dirs=args.dirs)
            print(f"generated {args.files:,} files in {args.dirs:,} dirs under {temp} "
                  f"in {time.perf_counter() - start:.1f} s")

        time_du(kernel_cache)  # warm-up: both runs see the same cached metadata
        time_scan(kernel_cache)
        du_times, scan_times, bare_times = [], [], []
        du_bytes = scan_bytes = 0
        for rep in range(args.reps):
            order = (time_du, time_scan) if rep % 2 == 0 else (time_scan, time_du)
            for func in order:
                seconds, total = func(kernel_cache)
                if func is time_du:
                    du_times.append(seconds)
                    du_bytes = total
                else:
                    scan_times.append(seconds)
                    scan_bytes = total
            bare_times.append(time_bare_walk(kernel_cache)[0])

        du_med = statistics.median(du_times)
        scan_med = statistics.median(scan_times)
        bare_med = statistics.median(bare_times)
        ratio = scan_med / du_med
        print(f"du -sb        median {du_med * 1000:7.1f} ms  (min {min(du_times) * 1000:.1f})")
        print(f"scan_cache    median {scan_med * 1000:7.1f} ms  (min {min(scan_times) * 1000:.1f})")
        print(f"bare walk     median {bare_med * 1000:7.1f} ms  (ratio {bare_med / du_med:.2f}, reference only)")
        print(f"apparent bytes: du {du_bytes:,}, scan {scan_bytes:,} ({'same' if du_bytes == scan_bytes else 'DIFFER'})")
        print(f"ratio scan / du = {ratio:.2f}  (goal <= {GOAL}: {'met' if ratio <= GOAL else 'MISSED'})")
        return 0
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
