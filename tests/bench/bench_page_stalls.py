"""Page responsiveness benchmark: the longest event-loop stall from the window's first paint until
every page is usable, as the application runs it (its own `app.exec()` loop, the pages built
after the first paint as `cann-config gui` builds them).

Each run is a fresh process with compiled bytecode (as an installed package has it), started the
way `ui.app.run` starts the window (`create_wizard(deferred=True)`, then `show()`). A 5 ms QTimer
on the GUI thread records the gap between its ticks from the first paint on; a gap far above
5 ms is a stall the user would feel. Beside each gap, the CPU time the GUI thread spent in it
(`time.thread_time`): on a busy machine the wall-clock gaps grow with the other processes' load,
the CPU time is the work the window itself did between two ticks. The run has two phases:

  building  from the first paint until every page reports itself built (nothing is clicked:
            what the window does while the user reads the first page);
  visiting  then Next to every page in turn, each shown and painted (the cache gauge's first
            paint included), as a user going through the wizard.

The same is measured on an idle event loop in each process (2 s before the window is made), so
the ratio says how much worse than Qt's own jitter the window is. `--against REV` (repeatable)
also runs the committed tree of a git revision in the same alternation, a before/after in one
run. Goal (docs/architecture.md#pages-paid-for-when-shown): no stall over 50 ms.

Run: `.venv/bin/python tests/bench/bench_page_stalls.py [--runs N] [--against REV]`
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

GOAL_MS = 50.0
ROOT = Path(__file__).resolve().parents[2]

CHILD = r'''
import json, sys, time
T0 = time.perf_counter()
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

app = QApplication(sys.argv[:1])
gaps, phase = [], ["idle"]
last = [time.perf_counter(), time.thread_time(), "idle"]

def tick():
    # A gap counts in the phase it began in (a block run just before the phase changed is its).
    now, cpu = time.perf_counter(), time.thread_time()
    gaps.append((last[2], (now - last[0]) * 1000, (cpu - last[1]) * 1000, wizard_page[0]))
    last[0], last[1], last[2] = now, cpu, phase[0]

timer = QTimer()
timer.setInterval(5)
timer.timeout.connect(tick)
result = {}
wizard_page = [""]  # the page shown when a gap began

def make_window():
    timer.stop()
    import cann_config.ui as ui
    result["ui"] = ui.__file__
    wizard = ui.create_wizard(device="Ascend910B3", deferred=True)
    wizard.set_detection_on_show(False)
    result["wizard"] = wizard
    ids = list(wizard.pageIds())

    def built():
        return all(getattr(wizard.page(i), "built", True) for i in ids)

    def painted():
        result["first_paint_ms"] = (time.perf_counter() - T0) * 1000
        phase[0] = "building"
        last[0], last[1], last[2] = time.perf_counter(), time.thread_time(), "building"
        timer.start()
        started = time.perf_counter()

        def wait_built():
            if not built():
                QTimer.singleShot(1, wait_built)
                return
            result["built_ms"] = (time.perf_counter() - started) * 1000
            phase[0] = "visiting"
            visit()

        def visit():
            if wizard.currentId() == ids[-1]:
                result["usable_ms"] = (time.perf_counter() - started) * 1000
                QTimer.singleShot(200, finish)
                return
            wizard.next()
            wizard_page[0] = wizard.currentPage().objectName()
            QTimer.singleShot(60, visit)  # the page is shown and painted meanwhile

        QTimer.singleShot(0, wait_built)

    wizard.after_first_paint(painted)
    wizard.show()

def finish():
    timer.stop()
    wizard = result.pop("wizard")
    wizard.shutdown()
    out = {k: v for k, v in result.items()}
    for name in ("idle", "building", "visiting"):
        mine = [(g, c, page) for p, g, c, page in gaps if p == name]
        busiest = max(mine, key=lambda m: m[1]) if mine else (0.0, 0.0, "")
        out[name] = {"ticks": len(mine), "max": max(m[0] for m in mine) if mine else 0.0,
                     "median": statistics.median(m[0] for m in mine) if mine else 0.0, "cpu": busiest[1],
                     "cpu_page": busiest[2]}
    print(json.dumps(out), flush=True)
    app.exit(0)

import statistics
timer.start()
QTimer.singleShot(2000, make_window)
sys.exit(app.exec())
'''


def checkout(rev: str, into: Path) -> Path:
    """The files of `rev` (as committed) in a new directory under `into`, importable as
    `cann_config` from it (a folder of links to its app/, ui/ and resources/, put first on
    PYTHONPATH, ahead of this checkout's editable install)."""
    target = into / f"rev-{len(list(into.glob('rev-*')))}"
    target.mkdir()
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    root = target / "cann_config"
    root.mkdir()
    for name in ("app", "ui", "resources"):
        (root / name).symlink_to(Path("..") / name)
    return target


def run_child(script: Path, env: dict[str, str], cwd: Path) -> dict:
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=120)
    if done.returncode != 0 or not done.stdout.strip():
        raise SystemExit(f"the window failed ({done.returncode}): {done.stdout}{done.stderr}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(result["ui"]).resolve().is_relative_to(cwd.resolve()):
        raise SystemExit(f"{cwd} ran the wizard of {result['ui']}")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Event-loop stalls from the first paint until every page is usable.")
    parser.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_RUNS", "7")))
    parser.add_argument("--against", metavar="REV", action="append", default=[],
                        help="also run the committed tree of this git revision (repeatable)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "page_stalls.py"
        script.write_text(CHILD)
        env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"), "HOME": tmp,
               "XDG_CONFIG_HOME": tmp}
        # An installed package has its bytecode compiled: the modules a page imports when it is
        # built are read from it, not compiled while the user waits.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        trees = [("this tree", ROOT)] + [(rev, checkout(rev, Path(tmp))) for rev in args.against]
        envs = {name: env if tree == ROOT else {**env, "PYTHONPATH": str(tree)} for name, tree in trees}
        for name, tree in trees:
            subprocess.run([sys.executable, "-m", "compileall", "-q", "app", "ui"], cwd=tree, env=env,
                           capture_output=True)
            run_child(script, envs[name], tree)  # warm the file cache, not measured
        results: dict[str, list[dict]] = {name: [] for name, _tree in trees}
        for _ in range(args.runs):
            for name, tree in trees:
                results[name].append(run_child(script, envs[name], tree))
    for name, runs in results.items():
        def median(key: str, field: str | None = None, runs: list[dict] = runs) -> float:
            return statistics.median(r[key][field] if field else r[key] for r in runs)

        worst = max(max(r["building"]["max"], r["visiting"]["max"]) for r in runs)
        idle = median("idle", "max")
        print(f"{name}: first paint {median('first_paint_ms'):.0f} ms; every page built "
              f"{median('built_ms'):.0f} ms after it, every page visited {median('usable_ms'):.0f} ms after it")
        for phase in ("building", "visiting"):
            print(f"  longest stall while {phase}: median {median(phase, 'max'):.1f} ms (runs: "
                  f"{', '.join(format(r[phase]['max'], '.0f') for r in runs)}); GUI-thread CPU in the busiest gap: "
                  f"median {median(phase, 'cpu'):.1f} ms (runs: {', '.join(format(r[phase]['cpu'], '.0f') for r in runs)})"
                  + (f"; it began on {', '.join(sorted({r[phase]['cpu_page'] for r in runs}))}" if phase == "visiting" else ""))
        print(f"  idle event loop: longest gap median {idle:.1f} ms; worst stall of all runs {worst:.1f} ms "
              f"= {worst / max(idle, 1e-9):.1f}x the idle one; goal <= {GOAL_MS:.0f} ms: "
              f"{'met' if worst <= GOAL_MS else 'NOT met'}")
    runs = results["this tree"]
    stalls = [max(r["building"]["max"], r["visiting"]["max"]) for r in runs]
    sys.path.insert(0, str(ROOT))
    from tests.bench.harness import emit_row

    emit_row("stall, first paint -> every page usable", statistics.median(stalls), (min(stalls), max(stalls)),
             GOAL_MS, unit=" ms", note="median of the runs' longest stall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
