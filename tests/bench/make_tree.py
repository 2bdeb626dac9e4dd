"""Generate a kernel_cache tree shaped like CANN's: `<root>/kernel_cache/<SoC>/<dir>/` holding
kernel json + binary pairs, plus op_cache.ini beside the SoC dirs
(docs/cann/op-cache.md#layout). Used by tests/bench/bench_scan.py and by the scanner's du-equality test.

Run by hand: `python tests/bench/make_tree.py DIR [FILES] [DIRS]`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

SOCS = ("Ascend910B3", "Ascend910_9382", "Ascend310P3", "Ascend910B4")


def make_tree(root: str | os.PathLike[str], files: int = 200_000, dirs: int = 2_000,
              socs: tuple[str, ...] = SOCS) -> Path:
    """Create `files` small files spread over `dirs` leaf dirs under `root`/kernel_cache.

    Half the files are kernel jsons naming their binary (binFileName + binFileSuffix), half
    are the binaries; sizes vary (a few bytes to ~100) so byte totals are not trivial.
    Returns the kernel_cache path.
    """
    kernel_cache = Path(root) / "kernel_cache"
    kernel_cache.mkdir(parents=True, exist_ok=True)
    # As CANN creates it (section + version lines), with the documented size keys added.
    (kernel_cache / "op_cache.ini").write_text("[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n"
                                               "max_op_cache_size=500\nremain_cache_size_ratio=50\n",
                                               encoding="utf-8")
    per_dir = max(1, files // dirs)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    made = 0
    for d in range(dirs):
        folder = kernel_cache / socs[d % len(socs)] / f"kernel_meta_{d:05d}"
        folder.mkdir(parents=True, exist_ok=True)
        fd_dir = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            count = per_dir if d < dirs - 1 else files - made
            for i in range(count):
                stem = f"te_op_{d:05d}_{i // 2:04d}"
                if i % 2 == 0:
                    name = stem + ".json"
                    data = json.dumps({"binFileName": stem, "binFileSuffix": ".o", "blockDim": i % 48}).encode()
                else:
                    name = stem + ".o"
                    data = b"\x7fELF" + bytes((i * 7) % 97)
                fd = os.open(name, flags, 0o644, dir_fd=fd_dir)
                try:
                    os.write(fd, data)
                finally:
                    os.close(fd)
            made += count
        finally:
            os.close(fd_dir)
    return kernel_cache


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: make_tree.py DIR [FILES] [DIRS]")
    n_files = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
    n_dirs = int(sys.argv[3]) if len(sys.argv) > 3 else 2_000
    print(make_tree(sys.argv[1], n_files, n_dirs))
