"""Startup of the frozen bundle against the same commands run from source, in the same run.

    .venv/bin/python tests/bench/bench_bundle_startup.py [BUNDLE_DIR]   (default dist/cann-config)

Prints the median wall time of `--version` and `options --json` (and the `shown` time of
`gui --smoke`, when the checkout has a GUI) for the bundle and for `python -m cann_config.app`, and their
ratio. Without a built bundle (`make dist`) it says so and exits 0, so `make bench` still runs.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNS = 7


def wall(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env, cwd=ROOT)
    return time.perf_counter() - start


def shown(cmd: list[str], env: dict[str, str]) -> float:
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env, cwd=ROOT).stdout
    return float(out.split()[-1])


def main() -> int:
    bundle = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "dist" / "cann-config")
    exe = bundle / "cann-config"
    if not exe.is_file():
        print(f"bench_bundle_startup: no bundle at {bundle} (run `make dist`); skipped")
        return 0
    env = {**os.environ, "LANG": "C.UTF-8", "QT_QPA_PLATFORM": "offscreen"}
    source = [sys.executable, "-m", "cann_config.app"]
    cases = [("--version", wall, ["--version"]), ("options --json", wall, ["options", "--json"]),
             ("gui --smoke (shown)", shown, ["gui", "--smoke"])]
    for label, measure, args in cases:
        measure([str(exe), *args], env)  # warm the page cache for both
        measure([*source, *args], env)
        frozen = statistics.median(measure([str(exe), *args], env) for _ in range(RUNS))
        from_source = statistics.median(measure([*source, *args], env) for _ in range(RUNS))
        print(f"{label:24s} bundle {frozen:.3f} s   source {from_source:.3f} s   ratio {frozen / from_source:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
