"""Startup benchmark: `cann-config gui --smoke --device Ascend910B3` against a bare 4-page
PySide6 QWizard, both run as fresh processes the same way (QT_QPA_PLATFORM=offscreen, the same
interpreter, a temporary HOME), alternating, medians of RUNS each.

The wizard paints its first page, then builds the other three pages; the time until they are
built is reported too ("every page built"), but the ratio is time to shown, as the issue asks.

The two windows are alike where the machine, not the program, decides the cost: the same
platform plugin (offscreen), the same language (English: LANG=C.UTF-8 for both, so neither loads a
translation), the same fonts, and the same window size: the bare wizard is resized to the size
the assistant opens at on this screen (ui/window_geometry.py, 784x560 on offscreen's 800x600; a
bare QWizard left to its size hint, 500x360, paints less than half the pixels). The bare wizard
keeps Qt's default wizard style.

Time to shown is measured from outside: from just before the process is spawned to the moment
its `shown` line arrives (both programs print it once their window has painted), so interpreter
start-up and imports are counted for both. The figure the program prints itself (seconds since
its process started, from /proc/self/stat) is reported beside it.

The console script is `.venv/bin/cann-config` with its bytecode compiled (tests/bench/harness.py);
the two programs alternate (A B, B A, ...); the ratio is of the medians, its spread the 25th-75th
percentile of the per-round ratios.

Goal (issues 7 and 16): at most 1.3x. Run: `QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/bench_startup.py`

`--instructions` counts instead, once each, the CPU instructions both programs run up to their
`shown` line, under valgrind (callgrind): a measure the load of a shared machine does not move,
to judge a change by when the wall times are too noisy. Each program exits at its `shown` line
(a wrapper ends the process there; the assistant is started through its CLI's main, as the
console script does); instructions are not time (kernel work, cache misses and waiting for
files are not counted), so the goal is judged on the wall times.

`--against REV` (repeatable) also times the committed tree of a git revision (`git archive`,
run with `python -m cann_config.app`), alternating with the others: a before/after measured in
the same run. The editable install maps `cann_config` to this checkout whatever the working
directory, so the tree gets its own import root: `_root/cann_config/{app,ui,resources}`, links to
its folders, first on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.harness import ROOT, Comparison, cann_config, child_env, compile_bytecode, emit_row  # noqa: E402

RUNS = int(os.environ.get("BENCH_ROUNDS", os.environ.get("BENCH_RUNS", "11")))
GOAL = 1.3

BARE_WIZARD = r'''
import sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWizard, QWizardPage

class FirstPaint(QObject):
    seen = False
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint and not self.seen:
            self.seen = True
            QTimer.singleShot(0, lambda: (print("shown", flush=True), app.exit(0)))
        return False

app = QApplication(sys.argv[:1])
wizard = QWizard()
wizard.resize(int(sys.argv[1]), int(sys.argv[2]))  # the size the assistant opens at (see the docstring)
for title in ("Device", "Memory", "Cache", "Export"):
    page = QWizardPage()
    page.setTitle(title)
    QVBoxLayout(page).addWidget(QLabel(title + " page", page))
    wizard.addPage(page)
watcher = FirstPaint()
wizard.installEventFilter(watcher)
wizard.show()
sys.exit(app.exec())
'''


WINDOW_SIZE = r'''
from cann_config.ui.window_geometry import default_geometry
from PySide6.QtWidgets import QApplication
app = QApplication([])
size = default_geometry(app.primaryScreen().availableGeometry()).size()
print(size.width(), size.height())
'''


def window_size(env: dict[str, str]) -> list[str]:
    """The width and height the assistant's window opens at on this platform's screen."""
    done = subprocess.run([sys.executable, "-c", WINDOW_SIZE], env=env, capture_output=True, text=True, check=True)
    return done.stdout.split()


# Runs a program and ends the process at its `shown` line (for counting instructions to it).
EXIT_AT_SHOWN = r'''
import builtins, os, runpy, sys
real_print = builtins.print
def print_and_stop(*args, **kwargs):
    real_print(*args, **kwargs)
    if args and isinstance(args[0], str) and args[0].startswith("shown"):
        sys.stdout.flush()
        os._exit(0)
builtins.print = print_and_stop
target, sys.argv = sys.argv[1], sys.argv[1:]
if target == "-m":
    sys.argv = sys.argv[1:]
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
else:
    runpy.run_path(target, run_name="__main__")
'''


def instructions_to_shown(argv: list[str], env: dict[str, str], tmp: Path) -> int:
    """CPU instructions (callgrind's Ir) the program in `argv` runs until its `shown` line."""
    import re
    import shutil

    if shutil.which("valgrind") is None:
        raise SystemExit("bench_startup --instructions needs valgrind (apt-get install valgrind)")
    wrapper = tmp / "exit_at_shown.py"
    wrapper.write_text(EXIT_AT_SHOWN)
    command = [sys.executable, str(wrapper), *argv[1:]]
    subprocess.run(command, env=env, capture_output=True, check=True, timeout=120)  # bytecode written
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
                          env={**env, "PYTHONHASHSEED": "0"}, capture_output=True, text=True, timeout=600)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or "shown" not in done.stdout or found is None:
        raise SystemExit(f"valgrind {' '.join(command)} failed: {done.stderr[-1000:]}")
    return int(found.group(1))


def time_to_shown(argv: list[str], env: dict[str, str], cwd: Path = ROOT) -> tuple[float, str, float | None]:
    """(seconds to the `shown` line, that line, seconds to a `ready` line if one follows)."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - started
    second = proc.stdout.readline()
    ready = time.perf_counter() - started if second.startswith("ready") else None
    out, err = proc.communicate(timeout=60)
    if not line.startswith("shown") or proc.returncode != 0:
        raise SystemExit(f"{argv[0]} failed ({proc.returncode}): {line}{out}{err}")
    return elapsed, line.strip(), ready


def checkout(rev: str, into: Path) -> Path:
    """The files of `rev` (as committed) in a new directory under `into`."""
    target = into / f"rev-{len(list(into.glob('rev-*')))}"
    target.mkdir()
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    root = target / "_root" / "cann_config"
    root.mkdir(parents=True)
    for folder in ("app", "ui", "resources"):
        (root / folder).symlink_to(target / folder, target_is_directory=True)
    return target


def tree_env(env: dict[str, str], tree: Path) -> dict[str, str]:
    """`env` with the tree's own import root first on the module search path (checked)."""
    env = {**env, "PYTHONPATH": os.pathsep.join(filter(None, [str(tree / "_root"), env.get("PYTHONPATH")]))}
    where = subprocess.run([sys.executable, "-c", "import cann_config.app as a; print(a.__file__)"], env=env,
                           cwd=tree, capture_output=True, text=True, check=True).stdout.strip()
    if not where.startswith(str(tree)):
        raise SystemExit(f"bench_startup: {tree} would run {where}, not its own app/")
    return env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time to the first paint against a bare QWizard.")
    parser.add_argument("--against", metavar="REV", action="append", default=[],
                        help="also time the committed tree of this git revision (repeatable)")
    parser.add_argument("--instructions", action="store_true",
                        help="count the CPU instructions to the shown line under valgrind, instead of timing")
    args = parser.parse_args(argv)
    compile_bytecode()
    ours = [*cann_config(), "gui", "--smoke", "--device", "Ascend910B3"]
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "bare_wizard.py"
        script.write_text(BARE_WIZARD)
        # English for both (child_env): a translation loaded by one side only is not a fair race.
        env = child_env(QT_QPA_PLATFORM="offscreen", HOME=tmp, XDG_CONFIG_HOME=tmp)
        for name in ("LC_ALL", "LC_MESSAGES"):  # the language is read from these before LANG (app/i18n.py)
            env.pop(name, None)
        # An installed package has its bytecode compiled; a checkout run with
        # PYTHONDONTWRITEBYTECODE would compile every module at every start instead.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        size = window_size(env)
        print(f"both windows {size[0]}x{size[1]}, offscreen, English")
        bare = [sys.executable, str(script), *size]
        if args.instructions:
            smoke_main = [sys.executable, "-m", "cann_config.app", *ours[1:]]
            counted = {"bare 4-page QWizard": instructions_to_shown(bare, env, Path(tmp)),
                       "cann-config gui --smoke": instructions_to_shown(smoke_main, env, Path(tmp))}
            for rev, tree in [(rev, checkout(rev, Path(tmp))) for rev in args.against]:
                counted[f"{rev} (committed tree)"] = instructions_to_shown(smoke_main, tree_env(env, tree), Path(tmp))
            base = counted["bare 4-page QWizard"]
            for name, count in counted.items():
                print(f"{name}: {count / 1e6:.1f} M instructions to shown ({count / base:.3f}x)")
            return 0
        revisions = [(rev, checkout(rev, Path(tmp))) for rev in args.against]
        rev_envs = {rev: tree_env(env, tree) for rev, tree in revisions}
        smoke = [sys.executable, "-m", "cann_config.app", *ours[1:]]
        for argv in (bare, ours):  # warm the file cache (and write the bytecode) once, not measured
            time_to_shown(argv, env)
        for rev, tree in revisions:
            time_to_shown(smoke, rev_envs[rev], tree)
        ours_env = {**env, "CANN_CONFIG_SMOKE_READY": "1"}
        ours_times, bare_times, reported, ready_times = [], [], [], []
        rev_times: dict[str, list[float]] = {rev: [] for rev, _tree in revisions}
        for number in range(RUNS):
            if number % 2 == 0:
                bare_times.append(time_to_shown(bare, env)[0])
            elapsed, line, ready = time_to_shown(ours, ours_env)
            ours_times.append(elapsed)
            if number % 2 == 1:
                bare_times.append(time_to_shown(bare, env)[0])
            reported.append(float(line.split()[1]))
            if ready is not None:
                ready_times.append(ready)
            for rev, tree in revisions:
                rev_times[rev].append(time_to_shown(smoke, rev_envs[rev], tree)[0])
    bare_median = statistics.median(bare_times)
    ours_median = statistics.median(ours_times)
    ratio = ours_median / bare_median
    print(f"bare 4-page QWizard:     median {bare_median * 1000:6.0f} ms  (runs: "
          + ", ".join(f"{t * 1000:.0f}" for t in bare_times) + ")")
    print(f"cann-config gui --smoke: median {ours_median * 1000:6.0f} ms  (runs: "
          + ", ".join(f"{t * 1000:.0f}" for t in ours_times) + ")")
    print(f"  as cann-config reports it (since process start): median {statistics.median(reported) * 1000:.0f} ms")
    if ready_times:
        print(f"  every page built (memory, cache, export after the first paint): median "
              f"{statistics.median(ready_times) * 1000:.0f} ms ({statistics.median(ready_times) / bare_median:.2f}x)")
    for rev, times in rev_times.items():
        median = statistics.median(times)
        print(f"{rev} (committed tree): median {median * 1000:6.0f} ms, {median / bare_median:.2f}x  (runs: "
              + ", ".join(f"{t * 1000:.0f}" for t in times) + ")")
    result = Comparison("gui --smoke to shown / bare 4-page QWizard to first paint", ours_times, bare_times)
    print(f"ratio of the medians {ratio:.2f}x; median per-round ratio {result.ratio:.2f}x (p25-p75 "
          f"{result.spread[0]:.2f}-{result.spread[1]:.2f}; goal <= {GOAL}x): {'met' if result.ratio <= GOAL else 'NOT met'}")
    emit_row(result.label, result.ratio, result.spread, GOAL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
