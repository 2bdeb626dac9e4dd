"""`make bench`: run every benchmark, show its output, then one table of every measure.

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/run_all.py [NAME ...]

NAME picks benchmarks (`startup`, `page_stalls`, `responsiveness`, `scan`, `cli`, `export`,
`bundle_startup`, `envfile`, `script`, `fixes`);
default all. BENCH_ROUNDS=N changes the rounds of each. Each benchmark prints `ROW {json}` lines
(tests/bench/harness.py `emit_row`); the table lists them: the measure, its ratio (or value),
the spread, the goal and whether it is met. The exit status is 0 even when a goal is missed:
these are measurements, not tests.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.harness import ROOT, ROW_PREFIX  # noqa: E402

ORDER = ("startup", "page_stalls", "responsiveness", "scan", "cli", "export", "bundle_startup", "junk", "envfile", "script",
         "fixes")


def main() -> int:
    names = sys.argv[1:] or list(ORDER)
    rows: list[dict] = []
    failed: list[str] = []
    for name in names:
        script = ROOT / "tests" / "bench" / f"bench_{name}.py"
        print(f"== {script.relative_to(ROOT)}", flush=True)
        started = time.perf_counter()
        proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(ROW_PREFIX):
                rows.append(json.loads(line[len(ROW_PREFIX):]))
            else:
                print(line, end="", flush=True)
        if proc.wait() != 0:
            failed.append(name)
        print(f"   ({time.perf_counter() - started:.0f} s)", flush=True)

    head = ("measure", "ratio", "spread", "goal", "met?")
    table = []
    for row in rows:
        unit = row["unit"]
        value = f"{row['value']:.2f}{unit}" if unit == "x" else f"{row['value']:.1f}{unit}"
        spread = row["spread"]
        spread_text = "" if not spread else (f"{spread[0]:.2f}-{spread[1]:.2f}" if unit == "x"
                                             else f"{spread[0]:.0f}-{spread[1]:.0f}")
        goal = f"<= {row['goal']:g}{unit}"
        table.append((row["measure"], value, spread_text, goal, "yes" if row["met"] else "NO"))
    widths = [max(len(r[i]) for r in [head, *table]) for i in range(len(head))]
    print()
    for line in [head, tuple("-" * w for w in widths), *table]:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip())
    if failed:
        print(f"\nbenchmarks that failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
