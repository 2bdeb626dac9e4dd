"""What every benchmark here shares: whole processes, started the way a user starts them, timed
against a baseline in the same run.

- The command is the installed console script (`.venv/bin/cann-config`), not `python -m` and not
  a function call: its interpreter start-up, imports and output are what a user waits for.
- Bytecode is compiled first (`compile_bytecode`): an installed wheel has its `.pyc` files, while
  an editable checkout on a machine with PYTHONDONTWRITEBYTECODE=1 would recompile every module
  at every start and the benchmark would measure the compiler.
- A and B alternate (A B, B A, A B, ...) after one unmeasured warm-up each, so the machine's noise
  (other jobs, CPU frequency, the page cache) falls on both alike.
- The result is the median of the per-round ratios A_i / B_i and, as its spread, their 25th-75th
  percentile (the medians of A and B are printed beside).
- A benchmark ends with one `ROW` line per measure (`emit_row`); `tests/bench/run_all.py`
  (`make bench`) gathers them into one table.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ROW_PREFIX = "ROW "


def cann_config() -> list[str]:
    """The console script a user types (beside this interpreter, as `pip install` puts it)."""
    script = Path(sys.executable).with_name("cann-config")
    if not script.is_file():
        sys.exit(f"no console script at {script}: run `make test` (or pip install -e .) first")
    return [str(script)]


def compile_bytecode() -> None:
    """Write the .pyc files of the checkout (app/, ui/) and of this interpreter's site-packages."""
    import compileall
    import site

    dirs = [ROOT / "app", ROOT / "ui", *map(Path, site.getsitepackages())]
    for folder in dirs:
        if folder.is_dir():
            compileall.compile_dir(str(folder), quiet=2, workers=0)


def child_env(*, drop_prefixes: Sequence[str] = (), **extra: str) -> dict[str, str]:
    """The user's environment in English, without anything that makes Python recompile, and
    without the variables named by `drop_prefixes` (e.g. the machine's own ASCEND_*, which would
    change what the timed command decides)."""
    env = {**os.environ, "LANG": "C.UTF-8", **extra}
    for name in ("PYTHONPROFILEIMPORTTIME", "PYTHONTRACEMALLOC", "PYTHONDEVMODE"):
        env.pop(name, None)
    for name in [n for n in env if n.startswith(tuple(drop_prefixes))] if drop_prefixes else []:
        del env[name]
    return env


@dataclass
class Run:
    """One finished child process: wall seconds, exit status, output and its peak memory."""

    seconds: float
    returncode: int
    stdout: bytes
    stderr: bytes
    max_rss_kib: int
    cpu_seconds: float = 0.0  # user + system, the child's own (wait4)


def run_process(cmd: Sequence[str], env: dict[str, str] | None = None, cwd: Path = ROOT,
                ok: Sequence[int] = (0,)) -> Run:
    """Spawn `cmd`, wait for it, and return its wall time and its own peak RSS (wait4).

    Output goes to temporary files, so no reader thread runs beside the child and the child is
    reaped by wait4 itself, which reports that one child's resource usage.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=cwd)
        _pid, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if code not in ok:
        sys.exit(f"{' '.join(cmd)} exited {code}: {stderr.decode(errors='replace')[-2000:]}")
    return Run(elapsed, code, stdout, stderr, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)


def wall(cmd: Sequence[str], env: dict[str, str] | None = None, ok: Sequence[int] = (0,)) -> Callable[[], float]:
    """A measure: the wall time of one run of `cmd`."""
    return lambda: run_process(cmd, env, ok=ok).seconds


@dataclass
class Comparison:
    """A against B over alternating rounds."""

    label: str
    a: list[float] = field(default_factory=list)
    b: list[float] = field(default_factory=list)

    @property
    def ratios(self) -> list[float]:
        return sorted(x / y for x, y in zip(self.a, self.b, strict=True))

    @property
    def ratio(self) -> float:
        """The median of the per-round ratios: each A is judged against the B run beside it, so
        a burst of load on the machine falls on one pair, not on one side."""
        return statistics.median(self.ratios)

    @property
    def spread(self) -> tuple[float, float]:
        """The 25th and 75th percentile of the per-round ratios."""
        ratios = self.ratios
        if len(ratios) < 4:
            return ratios[0], ratios[-1]
        q = statistics.quantiles(ratios, n=4)
        return q[0], q[2]

    def describe(self, a_name: str, b_name: str, unit: float = 1000.0, unit_name: str = "ms") -> str:
        return (f"{self.label}: {a_name} median {statistics.median(self.a) * unit:.1f} {unit_name}, "
                f"{b_name} median {statistics.median(self.b) * unit:.1f} {unit_name}; "
                f"ratio {self.ratio:.2f}x (per-round p25-p75 {self.spread[0]:.2f}-{self.spread[1]:.2f}, "
                f"{len(self.a)} rounds)")


def alternate(label: str, measure_a: Callable[[], float], measure_b: Callable[[], float],
              rounds: int, warmup: int = 1) -> Comparison:
    """Run A and B alternately (ABBA...), `warmup` unmeasured runs of each first."""
    for _ in range(warmup):
        measure_a()
        measure_b()
    result = Comparison(label)
    for number in range(rounds):
        if number % 2 == 0:
            result.a.append(measure_a())
            result.b.append(measure_b())
        else:
            result.b.append(measure_b())
            result.a.append(measure_a())
    return result


def rounds_from_env(default: int) -> int:
    return int(os.environ.get("BENCH_ROUNDS", default))


def rounds_from_argv(default: int) -> int:
    """The rounds a benchmark's first argument gives, else BENCH_ROUNDS, else `default`."""
    return int(sys.argv[1]) if len(sys.argv) > 1 else rounds_from_env(default)


def emit_rows(rows: Sequence[tuple[str, Any, float]]) -> None:
    """One table row per (label, alternate()'s result, goal), after every measure has run."""
    for label, result, goal in rows:
        emit_row(label, result.ratio, result.spread, goal)


def emit_row(measure: str, value: float, spread: tuple[float, float] | None, goal: float, unit: str = "x",
             note: str = "") -> None:
    """Print the one machine-readable line run_all.py collects (lower is better, goal inclusive)."""
    row = {"measure": measure, "value": value, "spread": spread, "goal": goal, "unit": unit, "note": note,
           "met": value <= goal}
    print(ROW_PREFIX + json.dumps(row, ensure_ascii=False), flush=True)
