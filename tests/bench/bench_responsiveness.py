"""Responsiveness of the wizard, measured in fresh `cann-config gui` processes driven through the
app's own event loop (tests/bench/wizard_driver.py: a 5 ms QTimer records the gaps between its
ticks; a gap far above 5 ms is a stall the user feels).

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/bench_responsiveness.py [--rounds N] [--no-scan]

Measures, each the median over N processes (spread: the smallest and largest):
1. (printed only; tests/bench/bench_page_stalls.py is the table's measure of it) the longest
   stall from the first paint until every page is usable: Next on every page as a user clicks
   it (100 ms after the page has painted), until the last page has painted + 0.5 s;
2. the longest stall while the cache page scans the realistic 200,000-file tree of
   tests/bench/trees.py with a 1 MiB limit, until the gauge shows its final numbers and CANN's
   predicted cleanup (every kernel json is read, in a worker); how long that took is printed
   beside `du -sb` of the same tree;
3. for reference, the longest gap of the idle loop afterwards.

Goal (issues 7 and 16): no stall above 50 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.harness import ROOT, child_env, compile_bytecode, emit_row, rounds_from_env, run_process  # noqa: E402
from tests.bench.trees import OVER_LIMIT_MB, UNDER_LIMIT_MB, cache_tree, set_limit  # noqa: E402

GOAL_MS = 50.0
DRIVER = Path(__file__).with_name("wizard_driver.py")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=rounds_from_env(5))
    parser.add_argument("--no-scan", action="store_true", help="the page tour only")
    args = parser.parse_args()
    compile_bytecode()
    base = None if args.no_scan else cache_tree()
    runs = []
    try:
        if base is not None:
            set_limit(base / "kernel_cache", OVER_LIMIT_MB)
        for _ in range(args.rounds):
            with tempfile.TemporaryDirectory(prefix="bench_resp_") as home:
                env = child_env(HOME=home, XDG_CONFIG_HOME=home, QT_QPA_PLATFORM="offscreen")
                cmd = [sys.executable, str(DRIVER), *([str(base)] if base is not None else [])]
                run = run_process(cmd, env, cwd=ROOT)
                runs.append(json.loads(run.stdout.decode().strip().splitlines()[-1]))
        du = run_process(["du", "-sb", str(base / "kernel_cache")]).seconds if base is not None else None
    finally:
        if base is not None:
            set_limit(base / "kernel_cache", UNDER_LIMIT_MB)

    def median_of(key: str) -> float:
        return statistics.median(r[key] for r in runs)

    tour = [r["tour_ms"] for r in runs]
    tour_at = ", ".join(f"{r['tour_at']:.2f}" for r in runs)
    print(f"first paint -> every page usable: longest stall median {median_of('tour_ms'):.1f} ms "
          f"(runs: {', '.join(f'{t:.0f}' for t in tour)}; at {tour_at} s "
          "after the first paint)")
    print(f"idle loop afterwards: longest gap median {median_of('idle_ms'):.1f} ms")
    if base is not None:
        scan = [r["scan_ms"] for r in runs]
        seconds = median_of("scan_seconds")
        print(f"wizard scan of 200k files over its limit: longest stall median {median_of('scan_ms'):.1f} ms "
              f"(runs: {', '.join(f'{t:.0f}' for t in scan)}); final numbers after median {seconds:.2f} s "
              f"= {seconds / du:.1f}x du -sb ({du:.2f} s); gauge: {', '.join(runs[-1].get('gauge', []))}")
        emit_row("stall, wizard scanning 200k files over its limit", median_of("scan_ms"), (min(scan), max(scan)),
                 GOAL_MS, unit=" ms", note=f"final numbers after {seconds:.1f} s ({seconds / du:.1f}x du -sb)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
