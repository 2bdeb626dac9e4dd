"""What checking the suggested fixes costs `diagnose` (issue 24 item 4), as whole processes.

    .venv/bin/python tests/bench/bench_fixes.py [ROUNDS]   (default 21 rounds)

A diagnosis with something to fix plans its fixes (app.support.fixes.plan_fixes: the exporters,
then `recheck` - the inputs with the fixes applied, diagnosed again) before anything is printed;
one with nothing to fix never imports the exporters. Two A/B pairs alternating round by round
(harness.alternate), each the same command on inputs that differ only in having a fix:

- `diagnose --json --cache-dir D`: D's op_cache.ini has a foreign section (the fix writes the
  file anew) against the same file without it (nothing to fix);
- `diagnose --json --bundle B`: tests/data/bundles/ignored-ini.json (the fix adds the version
  lines) against a3-910-9392.json (nothing to fix; the same host's kind of bundle).

Goal (this benchmark's own): checking the fixes costs at most 1.5x the same diagnosis without.
Every command runs in LANG=C.UTF-8 with HOME in an empty temporary dir and no ASCEND_* variables.
"""

from __future__ import annotations

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
    emit_row,
    rounds_from_argv,
    wall,
)

DATA = ROOT / "tests" / "data"
CLEAN = b"[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\nmax_op_cache_size=800\nremain_cache_size_ratio=50\n"
FOREIGN = CLEAN + b"[zz_notes]\nowner=me\n"


def cache_dir(root: Path, name: str, ini: bytes) -> Path:
    base = root / name
    (base / "kernel_cache").mkdir(parents=True)
    (base / "kernel_cache" / "op_cache.ini").write_bytes(ini)
    return base


def main() -> int:
    rounds = rounds_from_argv(21)
    compile_bytecode()
    cli = cann_config()
    with tempfile.TemporaryDirectory(prefix="bench_fixes_") as tmp:
        env = child_env(HOME=tmp, drop_prefixes=("ASCEND_", "ACL_"))
        fixed, clean = cache_dir(Path(tmp), "fixed", FOREIGN), cache_dir(Path(tmp), "clean", CLEAN)
        pairs = [
            ("diagnose --cache-dir: a fix planned / nothing to fix",
             [*cli, "diagnose", "--json", "--cache-dir", str(fixed)], [*cli, "diagnose", "--json", "--cache-dir", str(clean)]),
            ("diagnose --bundle: a fix planned / nothing to fix",
             [*cli, "diagnose", "--json", "--bundle", str(DATA / "bundles" / "ignored-ini.json")],
             [*cli, "diagnose", "--json", "--bundle", str(DATA / "bundles" / "a3-910-9392.json")]),
        ]
        rows = []
        for label, command, baseline in pairs:
            result = alternate(label, wall(command, env, ok=(0, 1)), wall(baseline, env, ok=(0, 1)), rounds)
            print(result.describe("with a fix", "nothing to fix"))
            rows.append((label, result))
    for label, result in rows:
        emit_row(label, result.ratio, result.spread, 1.5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
