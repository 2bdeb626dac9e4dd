"""`cann-config gui` (also `cann-config` with no subcommand): open the wizard.

Why it lives in ui/: it is the front end's command. The CLI's command table (app/cli/__init__.py)
names this module by its path and imports it only when the wizard is asked for, so the core has
no import of the front end, and every other command works on a server without PySide6. This
module itself imports no Qt: the Qt application (ui/app.py) is imported by run(), after the
checks below, and that import is the test of whether PySide6 can load here. Before Qt is touched the command checks that there is somewhere to show a
window: without a display a Qt application aborts (SIGABRT, with a misleading xcb message), so
this exits 2 with one line saying how to run it instead. The files and the device named on the
command line are read first too, so a bad one is a one-line error, not a dialog.

`--smoke` opens the window, waits until it has painted, prints `shown <seconds>`, lets the other
pages be built and exits 0 (for packaging checks and tests/bench/bench_startup.py); it runs no
device detection. With CANN_CONFIG_SMOKE_READY=1 it also prints `ready <seconds>` once every
page is built. `--bundle FILE` opens a support bundle (app/support/bundle.py): the wizard shows the
customer's host it describes, and runs no detection of this one. The seconds are counted from the process's real start: its `starttime` in /proc/self/stat (clock
ticks since boot, 10 ms resolution on Linux), against CLOCK_BOOTTIME; where /proc is missing,
from the moment this module was imported.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from cann_config.app.catalog import load_catalog
from cann_config.app.device.table import device_from_choice
from cann_config.app.errors import Message, UsageError
from cann_config.app.profile import load_profile

_IMPORTED_AT = time.monotonic()

# What a person can do when no window can be shown (offscreen would show nothing to anyone).
NO_DISPLAY = Message("core-cli-no-display")


DESCRIPTION = "Open the CANN Config Assistant wizard."


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `cann-config gui` (app/cli/__init__.py creates the parser)."""
    p.add_argument("--device", metavar="SOC", help="the device the settings are for: a SoC version "
                   "(Ascend910B3) or a series id (atlas-a2); no detection runs")
    p.add_argument("--framework", metavar="ID", help="where the settings will be used: tf1, tf2, pytorch, atc, ge, acl")
    p.add_argument("--profile", metavar="FILE", help="start from a saved profile (JSON)")
    p.add_argument("--ini", metavar="FILE", help="the op_cache.ini to edit")
    p.add_argument("--bundle", metavar="FILE", help="open a support bundle (written by 'cann-config collect' on a "
                   "customer's host): its device, settings and cache, and the suggested fixes")
    p.add_argument("--smoke", action="store_true",
                   help="open the window, wait until it has painted, print 'shown SECONDS' and exit")


def seconds_since_process_start() -> float:
    """Seconds since this process started (see the module docstring for how)."""
    try:
        # Bytes, not text: decoding it would import a codec while the `shown` line is timed.
        with open("/proc/self/stat", "rb") as handle:
            stat = handle.read()
        # Fields after "(comm)": state is field 3, starttime is field 22 of the whole line.
        start_ticks = int(stat[stat.rindex(b")") + 2:].split()[19])
        now = time.clock_gettime(time.CLOCK_BOOTTIME)
        return max(now - start_ticks / os.sysconf("SC_CLK_TCK"), 0.0)
    except (OSError, ValueError, IndexError, AttributeError):
        return time.monotonic() - _IMPORTED_AT


def display_problem(environ: Mapping[str, str] | None = None, platform: str | None = None) -> Message | None:
    """Why no window can be shown here (the one-line message), or None when one can."""
    env = os.environ if environ is None else environ
    platform = platform or sys.platform
    if platform.startswith(("win", "darwin", "cygwin")):
        return None
    qpa = env.get("QT_QPA_PLATFORM", "").strip()
    if qpa:
        first = qpa.split(";")[0].split(":")[0].strip()
        if first == "xcb" and not env.get("DISPLAY"):
            return NO_DISPLAY
        if first.startswith("wayland") and not env.get("WAYLAND_DISPLAY"):
            return NO_DISPLAY
        return None
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        return NO_DISPLAY
    return None


def _check_arguments(args: argparse.Namespace) -> None:
    """Read what the command line names, so a bad file or device is a one-line error (exit 2)."""
    if args.device is not None:
        try:
            device_from_choice(args.device)
        except ValueError as exc:
            raise UsageError(f"--device: {exc}") from None
    if args.framework is not None:
        frameworks = load_catalog().frameworks
        if args.framework not in frameworks:
            raise UsageError(f"--framework: unknown framework {args.framework!r}; use one of {', '.join(frameworks)}")
    if args.profile is not None:
        args.profile = load_profile(Path(args.profile))
    # The op_cache.ini and bundle readers are imported only when the command line names such a
    # file: the wizard's first page needs neither, and importing them delays its first paint.
    if args.ini is not None:
        from cann_config.app.io.inputfiles import input_exists

        path = Path(args.ini)
        if input_exists(path):  # a new file is fine: the wizard creates it when saving
            from cann_config.app.opcache.ini import read_op_cache_ini

            read_op_cache_ini(path)
    if args.bundle is not None:
        from cann_config.app.support.bundle import load_bundle

        args.bundle = load_bundle(Path(args.bundle))


def run(args: argparse.Namespace) -> int:
    problem = display_problem()
    if problem:
        print(f"cann-config: {problem}", file=sys.stderr)
        return 2
    # Python's cyclic garbage collector waits until the window has painted (ui/app.py starts it
    # again): what is made until then (PySide6's modules, the catalog, the first page) lives as
    # long as the window, and walking it again and again cost ~10% of the time to the first paint
    # (tests/bench/bench_startup.py).
    gc.disable()
    try:
        return _run(args)
    finally:
        gc.enable()


def _run(args: argparse.Namespace) -> int:
    _check_arguments(args)
    # The Qt application module: importing it is what needs PySide6 (module docstring).
    try:
        from cann_config.ui.app import run as run_wizard
    except ImportError as exc:
        print(f"cann-config: the wizard needs PySide6, which cannot be imported here ({exc}); "
              "install PySide6-Essentials or use the command line (cann-config --help)", file=sys.stderr)
        return 2

    return run_wizard(args, seconds_since_process_start)
