"""Wall time of two everyday CLI commands against a bare interpreter, in the same run.

    .venv/bin/python tests/bench/bench_cli.py [ROUNDS]   (default 21)

Each round runs, in a rotating order, `python -c pass` (the baseline: what any Python command
costs here), `cann-config diagnose --ini tests/data/ini/template.ini --json` and
`cann-config options --json`. Prints each command's median and its ratio to the baseline's
median, and the command's own cost above the baseline. Alternating the commands spreads the
machine's noise (other jobs, CPU frequency) over all of them alike.

`cann-config` is the console script beside this interpreter (`python -m cann_config.app` when there is
none). The commands run from the checkout in LANG=C.UTF-8, with stdout captured.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INI = ROOT / "tests" / "data" / "ini" / "template.ini"


def cann_config() -> list[str]:
    script = Path(sys.executable).with_name("cann-config")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "cann_config.app"]


def wall(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(cmd, capture_output=True, env=env, cwd=ROOT)
    elapsed = time.perf_counter() - start
    if result.returncode not in (0, 1):  # diagnose exits 1 for error findings; 2 is a failure
        sys.exit(f"bench_cli: {' '.join(cmd)} exited {result.returncode}: {result.stderr.decode(errors='replace')}")
    return elapsed


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    env = {**os.environ, "LANG": "C.UTF-8"}
    cli = cann_config()
    cases = [
        ("python -c pass (baseline)", [sys.executable, "-c", "pass"]),
        ("diagnose --ini template.ini --json", [*cli, "diagnose", "--ini", str(INI), "--json"]),
        ("options --json", [*cli, "options", "--json"]),
    ]
    for _, cmd in cases:  # warm the page cache and the bytecode caches
        wall(cmd, env)
    times: dict[str, list[float]] = {label: [] for label, _ in cases}
    for number in range(rounds):
        shift = number % len(cases)
        for label, cmd in cases[shift:] + cases[:shift]:
            times[label].append(wall(cmd, env))
    base = statistics.median(times[cases[0][0]])
    print(f"{rounds} rounds, commands alternating; cann-config = {' '.join(cli)}")
    for label, _ in cases:
        median = statistics.median(times[label])
        extra = "" if label == cases[0][0] else f"   +{(median - base) * 1000:.0f} ms over the baseline"
        print(f"{label:36s} median {median * 1000:6.1f} ms   ratio {median / base:5.2f}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
