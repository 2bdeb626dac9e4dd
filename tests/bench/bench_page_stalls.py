"""Page responsiveness benchmark, the one measure of "no stall over 50 ms from the first paint
until every page is usable" (issue 16; docs/architecture.md#pages-paid-for-when-shown).

Each run is a fresh process started as a user starts the window (`cann-config gui`, through the
CLI's own `main`, its own `app.exec()` loop; tests/bench/wizard_driver.py) with compiled bytecode
(as an installed package has it). A 5 ms QTimer on the GUI thread records the gaps between its
ticks; a gap far above 5 ms is a stall the user feels. A run's stall is its longest gap in

  building  from the first paint until every page is built (nothing clicked), and
  visiting  then Next on every page, each shown and painted (the cache gauge's first paint and
            the export preview's first text included),

and beside it the CPU time the GUI thread spent in that gap: on this shared machine the
wall-clock gaps grow with the other jobs' load, the CPU time is the window's own work. Printed:
the median, 75th percentile and worst of the runs' stalls, per phase and overall, and which
page the worst gaps began on. `--against REV` (repeatable) also runs the committed tree of a git
revision, alternating with this one, a before/after in one run.

Run: `.venv/bin/python tests/bench/bench_page_stalls.py [--runs N] [--against REV]`
(BENCH_ROUNDS=N sets the default of --runs).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.harness import ROOT, child_env, compile_bytecode, emit_row, rounds_from_env  # noqa: E402

GOAL_MS = 50.0
DRIVER = Path(__file__).with_name("wizard_driver.py")


def checkout(rev: str, into: Path) -> Path:
    """The files of `rev` (as committed) in a new directory under `into`, bytecode compiled."""
    target = into / f"rev-{len(list(into.glob('rev-*')))}"
    target.mkdir()
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", "app", "ui"], cwd=target, capture_output=True)
    return target


def link_farm(tree: Path, into: Path) -> Path:
    """A directory that makes `tree` importable as `cann_config` from PYTHONPATH (links to its
    app/, ui/ and resources/), as an installed package is found: this checkout and a revision are
    then imported the same way, not one through the editable install's import hook."""
    target = into / f"farm-{len(list(into.glob('farm-*')))}"
    (target / "cann_config").mkdir(parents=True)
    for name in ("app", "ui", "resources"):
        (target / "cann_config" / name).symlink_to(tree / name)
    return target


def run_driver(tree: Path, env: dict[str, str], *args: str) -> dict:
    """One fresh process of the driver against `tree`; its JSON result."""
    done = subprocess.run([sys.executable, str(DRIVER), *args], capture_output=True, text=True, env=env,
                          cwd=tree, timeout=300)
    if done.returncode != 0 or not done.stdout.strip():
        raise SystemExit(f"the window failed ({done.returncode}): {done.stdout}{done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(result["ui"]).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"{tree} ran the wizard of {result['ui']}")
    return result


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) of `values`, interpolated (statistics' 'inclusive' method)."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q) - 1]


def stall(run: dict) -> dict:
    """A run's longest gap from the first paint until every page was visited."""
    phases = [run[p] for p in ("building", "visiting") if p in run]
    return max(phases, key=lambda g: g["ms"])


def describe(name: str, runs: list[dict]) -> list[float]:
    stalls = [stall(r)["ms"] for r in runs]
    print(f"{name}: first paint {statistics.median(r['first_paint_s'] for r in runs) * 1000:.0f} ms after the "
          f"process started; every page built {statistics.median(r['built_s'] for r in runs) * 1000:.0f} ms "
          f"after it (medians of {len(runs)} runs)")
    for phase in ("building", "visiting"):
        gaps = [r[phase]["ms"] for r in runs]
        cpu = [r[phase]["cpu_ms"] for r in runs]
        pages = sorted({r[phase]["page"] for r in runs})
        print(f"  longest stall while {phase}: median {statistics.median(gaps):.1f} ms, p75 "
              f"{percentile(gaps, 75):.1f}, worst {max(gaps):.1f} (runs: {', '.join(f'{g:.0f}' for g in gaps)}); "
              f"GUI-thread CPU in it median {statistics.median(cpu):.1f} ms (runs: "
              f"{', '.join(f'{c:.0f}' for c in cpu)}); began on {', '.join(pages)}")
    waits = {page: [r["visits"][page]["ms"] for r in runs] for page in runs[0]["visits"]}
    print("  Next -> page painted: " + "; ".join(
        f"{page} median {statistics.median(w):.0f} ms (worst {max(w):.0f})" for page, w in waits.items()))
    idle = [r["idle"]["ms"] for r in runs]
    print(f"  overall: median {statistics.median(stalls):.1f} ms, p75 {percentile(stalls, 75):.1f} ms, worst "
          f"{max(stalls):.1f} ms; idle event loop's longest gap median {statistics.median(idle):.1f} ms; goal "
          f"<= {GOAL_MS:.0f} ms at the median and the p75: "
          f"{'met' if percentile(stalls, 75) <= GOAL_MS else 'NOT met'}")
    return stalls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Event-loop stalls from the first paint until every page is usable.")
    parser.add_argument("--runs", type=int, default=rounds_from_env(7))
    parser.add_argument("--against", metavar="REV", action="append", default=[],
                        help="also run the committed tree of this git revision (repeatable)")
    args = parser.parse_args(argv)
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="bench_stalls_") as tmp:
        env = child_env(HOME=tmp, XDG_CONFIG_HOME=tmp, QT_QPA_PLATFORM="offscreen")
        # Each tree through a link farm put first on PYTHONPATH, ahead of the editable install.
        trees = [(name, tree, {**env, "PYTHONPATH": str(link_farm(tree, Path(tmp)))})
                 for name, tree in [("this tree", ROOT)] + [(rev, checkout(rev, Path(tmp))) for rev in args.against]]
        for _name, tree, tree_env in trees:
            run_driver(tree, tree_env)  # warm the file cache, not measured
        results: dict[str, list[dict]] = {name: [] for name, _tree, _env in trees}
        for number in range(args.runs):
            for name, tree, tree_env in trees if number % 2 == 0 else trees[::-1]:
                results[name].append(run_driver(tree, tree_env))
    stalls = {name: describe(name, runs) for name, runs in results.items()}
    mine = stalls["this tree"]
    cpu = [stall(r)["cpu_ms"] for r in results["this tree"]]
    emit_row("stall, first paint -> every page built and visited (median)", statistics.median(mine),
             (min(mine), max(mine)), GOAL_MS, unit=" ms",
             note=f"GUI-thread CPU in it median {statistics.median(cpu):.0f} ms")
    emit_row("stall, first paint -> every page built and visited (p75)", percentile(mine, 75),
             (min(mine), max(mine)), GOAL_MS, unit=" ms", note=f"worst of {len(mine)} runs {max(mine):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
