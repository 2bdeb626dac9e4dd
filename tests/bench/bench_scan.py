"""`cann-config scan --cache-dir D --json` on 200,000 files against `du -sb`, as whole processes.

    .venv/bin/python tests/bench/bench_scan.py [--files N] [--dirs N] [--rounds N]

Three measures on the realistic tree of tests/bench/trees.py (kernel json + binary pairs, mix
kernels with jsonList, access times over two weeks, 1 % used in the last ten minutes), made once
and reused:

1. under the limit (op_cache.ini says 1,000,000 MiB): the walk alone, CLI against `du -sb`;
   1b. under a limit of 1.5x the biggest SoC dir: as 1, but the limit is one the filesystem can
   hold (it holds more than 5 GiB), so `scan` gathers the cleanup candidates as it walks
   (app/cli/cmd_scan.py `candidates_from`) and the row shows what that costs a cache under its
   limit - the common case, where 1 is the cache of a limit set far above its disk;
2. just over the limit (each SoC dir ~10 % over max_op_cache_size, keep ratio 50 %, as a cache
   in use a while after its limit was set): the prediction reads the oldest groups until CANN's
   target is met, about half of the jsons, and the recent ones it keeps; CLI against `du -sb`;
3. far over the limit (1 MiB, keep ratio 50 %): CANN would delete every group it may, so the
   prediction reads every kernel json - the worst case; CLI against `du -sb`;
4. the peak memory (max RSS, from wait4) of that worst-case scan process.

Both commands are started as a user starts them: the console script `.venv/bin/cann-config` with
its bytecode compiled, and `du` from PATH; they alternate, after one unmeasured warm-up each, so
both see the same page cache. The tree is on a `noatime` filesystem (tests/bench/trees.py), where
CANN deletes by the access-time keys alone, so the rows over the limit read what CANN deletes.
Goals (issue 30): under the limit 1.5x, 10 % over 2.5x, every json read 3.0x; 64 MiB.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.harness import (  # noqa: E402
    alternate,
    cann_config,
    child_env,
    compile_bytecode,
    emit_row,
    rounds_from_env,
    run_process,
)
from tests.bench.trees import OVER_LIMIT_MB, UNDER_LIMIT_MB, cache_tree, set_limit  # noqa: E402

GOAL_UNDER = 1.5
GOAL_TYPICAL = 2.5
GOAL_OVER = 3.0
GOAL_PEAK_MIB = 64.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200_000)
    parser.add_argument("--dirs", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=rounds_from_env(7))
    args = parser.parse_args()
    if shutil.which("du") is None:
        print("du is not installed: no baseline")
        return 1
    compile_bytecode()
    base = cache_tree(args.files, args.dirs)
    kernel_cache = base / "kernel_cache"
    env = child_env()
    scan = [*cann_config(), "scan", "--cache-dir", str(base), "--json"]
    du = ["du", "-sb", str(kernel_cache)]

    peaks: list[int] = []
    data_of_last: dict = {}
    checked: dict[str, object] = {}

    def run_scan() -> float:
        run = run_process(scan, env, ok=(0,))
        peaks.append(run.max_rss_kib)
        data = json.loads(run.stdout)
        data_of_last.clear()
        data_of_last.update(data)
        checked["apparent"] = data["totals"]["apparent_bytes"]
        checked["cleanup"] = [s["cleanup"] for s in data["socs"].values()]
        return run.seconds

    def run_du() -> float:
        run = run_process(du, env)
        checked["du"] = int(run.stdout.split()[0])
        return run.seconds

    try:
        set_limit(kernel_cache, UNDER_LIMIT_MB)
        under = alternate("scan under its limit vs du -sb", run_scan, run_du, args.rounds)
        print(under.describe("scan --json", "du -sb"))
        same = checked["apparent"] == checked["du"]
        print(f"  apparent bytes: du {checked['du']:,}, scan {checked['apparent']:,} ({'same' if same else 'DIFFER'})")
        assert not any(c["triggers"] for c in checked["cleanup"])  # type: ignore[union-attr]

        soc_bytes = max(s["cann_bytes"] for s in data_of_last["socs"].values())
        within_mb = int(soc_bytes * 1.5) // (1024 * 1024)
        set_limit(kernel_cache, within_mb)
        within = alternate("scan under a limit its filesystem holds (1.5x the SoC dir) vs du -sb", run_scan, run_du,
                           args.rounds)
        print(within.describe("scan --json", "du -sb"))
        assert not any(c["triggers"] for c in checked["cleanup"])  # type: ignore[union-attr]

        typical_mb = int(soc_bytes / 1.1) // (1024 * 1024)
        set_limit(kernel_cache, typical_mb, ratio=50)
        typical = alternate("scan just over its limit (10 % over, keep 50 %) vs du -sb", run_scan, run_du,
                            args.rounds)
        print(typical.describe("scan --json", "du -sb"))
        cleanup = checked["cleanup"]
        print(f"  limit {typical_mb:,} MiB; cleanup prediction: "  # type: ignore[union-attr]
              f"{sum(c['delete_groups'] + c['kept_recent_groups'] for c in cleanup):,} json groups read "
              f"of {sum(c['candidate_groups'] for c in cleanup):,}; access-time rule "
              f"{sorted({c['atime_rule'] for c in cleanup})}, groups saved by CANN's read "
              f"{sum(c['read_saved_groups'] for c in cleanup):,}")

        set_limit(kernel_cache, OVER_LIMIT_MB)
        peaks.clear()
        over = alternate("scan over its limit (every json read) vs du -sb", run_scan, run_du, args.rounds)
        print(over.describe("scan --json", "du -sb"))
        cleanup = checked["cleanup"]
        groups = sum(c["delete_groups"] + c["kept_recent_groups"] for c in cleanup)  # type: ignore[union-attr]
        print(f"  cleanup prediction: {groups:,} json groups read "
              f"({sum(c['delete_groups'] for c in cleanup):,} to delete, "  # type: ignore[union-attr]
              f"{sum(c['kept_recent_groups'] for c in cleanup):,} kept as recent)")  # type: ignore[union-attr]
        peak_mib = max(peaks) / 1024
        print(f"  peak memory of the every-json scan: max {peak_mib:.1f} MiB, median "
              f"{statistics.median(peaks) / 1024:.1f} MiB over {len(peaks)} runs")
    finally:
        set_limit(kernel_cache, UNDER_LIMIT_MB)
    emit_row("scan 200k files, under its limit / du -sb", under.ratio, under.spread, GOAL_UNDER)
    emit_row("scan 200k files, under a limit its filesystem holds / du -sb", within.ratio, within.spread, GOAL_UNDER)
    emit_row("scan 200k files, 10 % over its limit / du -sb", typical.ratio, typical.spread, GOAL_TYPICAL)
    emit_row("scan 200k files, every json read / du -sb", over.ratio, over.spread, GOAL_OVER)
    emit_row("peak RSS of the every-json scan", peak_mib, None, GOAL_PEAK_MIB, unit=" MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
