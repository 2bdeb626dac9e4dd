"""Everyday CLI commands on a server against what any Python command costs, as whole processes.

    .venv/bin/python tests/bench/bench_cli.py [ROUNDS]   (default 21)

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
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.harness import ROOT, alternate, cann_config, child_env, compile_bytecode, emit_row, wall  # noqa: E402

INI = ROOT / "tests" / "data" / "ini" / "template.ini"


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else int(os.environ.get("BENCH_ROUNDS", 21))
    compile_bytecode()
    cli = cann_config()
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="bench_cli_") as tmp:
        env = child_env(HOME=tmp)
        for name in list(env):
            if name.startswith(("ASCEND_", "ACL_")):
                del env[name]
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
        rows = []
        for label, command, baseline, base_name, goal in pairs:
            result = alternate(label, wall(command, env, ok=(0, 1)), wall(baseline, env), rounds)
            print(result.describe(" ".join(command[1:3]), base_name))
            rows.append((label, result, goal))
    for label, result, goal in rows:
        emit_row(label, result.ratio, result.spread, goal)
    return 0


if __name__ == "__main__":
    sys.exit(main())
