"""Benchmark: regenerating every export for one Profile (what the wizard's preview does on a change).

Run: .venv/bin/python tests/bench/bench_export.py   (goal: median < 2 ms for all eight formats)

Measured: the eight formats of app.io.exporters.FORMATS for one set of choices (a TF1 Profile with
memory and cache choices and a path with spaces and Chinese; tf2 and ge-options take the same
choices under their own framework, as the wizard shows them), each with check_choices, the
catalog comments and the quoting, in English.

Baseline, measured in the same run: the least any exporter must do, a hand-written f-string loop
that prints `name = repr(value)` for each of the eight options once per format (no catalog, no
availability check, no comments, no escaping rules). The ratio says what the catalog-driven
comments, the device checks and exact quoting cost on top of that.
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cann_config.app.io.exporters import FORMATS, export_text, format_fits, framework_for_format  # noqa: E402
from cann_config.app.profile import Profile  # noqa: E402

from tests.bench.harness import emit_row  # noqa: E402

ROUNDS = 300

PROFILE = Profile(framework="tf1", device="Ascend910B3", options={
    "static_memory_policy": 2, "variable_use_1g_huge_page": 1, "op_compiler_cache_mode": "force",
    "op_compiler_cache_dir": "/data/算子 缓存", "max_op_cache_size": 2048, "remain_cache_size_ratio": 80})


def profiles_by_format() -> list[tuple[str, Profile]]:
    pairs = []
    for fmt in FORMATS:
        profile = PROFILE
        if not format_fits(fmt, profile.framework):
            profile = replace(profile, framework=framework_for_format(fmt) or profile.framework)
        pairs.append((fmt, profile))
    return pairs


def regenerate_all(pairs: list[tuple[str, Profile]]) -> int:
    return sum(len(export_text(profile, fmt, lang="en").data) for fmt, profile in pairs)


def baseline(pairs: list[tuple[str, Profile]]) -> int:
    total = 0
    for _fmt, profile in pairs:
        total += len("\n".join(f"{oid} = {value!r}" for oid, value in profile.options.items()))
    return total


def median_seconds(func, arg) -> float:
    for _ in range(20):
        func(arg)
    samples = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        func(arg)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    every = profiles_by_format()
    pairs = [(f, p) for f, p in every if not export_text(p, f).refused]
    refused = sorted({f for f, _p in every} - {f for f, _p in pairs})
    if refused:
        print(f"not timed (they refuse these choices): {', '.join(refused)}")
    exports = median_seconds(regenerate_all, pairs)
    base = median_seconds(baseline, pairs)
    print(f"every export ({len(pairs)} formats) for one Profile: median {exports * 1000:.3f} ms "
          f"over {ROUNDS} rounds (goal < 2 ms)")
    print(f"baseline (f-string loop, no catalog/checks/quoting): median {base * 1e6:.1f} us; "
          f"ratio {exports / base:.0f}x")
    emit_row(f"export: all {len(pairs)} formats for one Profile (warm)", exports * 1000, None, 2.0, unit=" ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
