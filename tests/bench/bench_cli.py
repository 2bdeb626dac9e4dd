"""Everyday CLI commands on a server against what any Python command costs, as whole processes.

    .venv/bin/python tests/bench/bench_cli.py [ROUNDS] [--instructions]   (default 21 rounds)

Three measures, each its own A/B pair alternating round by round (harness.alternate):

- `cann-config diagnose --json --ini tests/data/ini/template.ini` against
  `python -c "import configobj"` (the least a tool that reads op_cache.ini with configobj does);
- `cann-config options --json` against the same baseline;
- `cann-config scan --cache-dir D` on an empty cache (D/kernel_cache exists, holds nothing)
  against `python -c pass`.

The console script is `.venv/bin/cann-config` with its bytecode compiled; the baselines run with
the same interpreter; every command runs in LANG=C.UTF-8 with HOME in an empty temporary dir and
no ASCEND_* variables, so the user's own files and cache do not change the work.
Goals (issue 16): 2.5x, 2x, 3x.

`--instructions` counts instead, once each, the CPU instructions (callgrind's Ir, under valgrind,
PYTHONHASHSEED=0) of every command and its baseline: a measure the load of the shared machine
does not move, to judge a change by when wall times are too noisy. Instructions are not time
(loading libraries, page faults and reading files cost time that the count does not show; the
ratios differ from those of wall time), so the goals are judged on wall time.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.harness import (  # noqa: E402
    ROOT,
    alternate,
    cann_config,
    child_env,
    compile_bytecode,
    emit_rows,
    rounds_from_env,
    wall,
)

INI = ROOT / "tests" / "data" / "ini" / "template.ini"


def instructions(command: list[str], env: dict[str, str]) -> int:
    """CPU instructions (callgrind's Ir) of one run of `command`."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
                          env={**env, "PYTHONHASHSEED": "0"}, capture_output=True, text=True, timeout=600)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"valgrind {' '.join(command)} failed: {done.stderr[-1000:]}")
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description="Everyday CLI commands against a bare Python start.")
    parser.add_argument("rounds", nargs="?", type=int, default=rounds_from_env(21))
    parser.add_argument("--instructions", action="store_true",
                        help="count CPU instructions under valgrind, once each, instead of timing")
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        raise SystemExit("bench_cli --instructions needs valgrind (apt-get install valgrind)")
    rounds = args.rounds
    compile_bytecode()
    cli = cann_config()
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="bench_cli_") as tmp:
        env = child_env(HOME=tmp, drop_prefixes=("ASCEND_", "ACL_"))
        empty = Path(tmp) / "empty-cache"
        (empty / "kernel_cache").mkdir(parents=True)
        configobj = [python, "-c", "import configobj"]
        pairs = [
            ("diagnose --json --ini F / import configobj", [*cli, "diagnose", "--json", "--ini", str(INI)],
             configobj, "python -c 'import configobj'", 2.5),
            ("options --json / import configobj", [*cli, "options", "--json"], configobj,
             "python -c 'import configobj'", 2.0),
            ("scan on an empty cache / python -c pass", [*cli, "scan", "--cache-dir", str(empty)],
             [python, "-c", "pass"], "python -c pass", 3.0),
        ]
        if args.instructions:
            for label, command, baseline, base_name, _goal in pairs:
                ours, base = instructions(command, env), instructions(baseline, env)
                print(f"{label}: {' '.join(command[1:3])} {ours / 1e6:.1f} M instructions, {base_name} "
                      f"{base / 1e6:.1f} M; ratio {ours / base:.2f}x")
            return 0
        rows = []
        for label, command, baseline, base_name, goal in pairs:
            result = alternate(label, wall(command, env, ok=(0, 1)), wall(baseline, env), rounds)
            print(result.describe(" ".join(command[1:3]), base_name))
            rows.append((label, result, goal))
    emit_rows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
