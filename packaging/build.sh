#!/usr/bin/env bash
# Build the one-folder desktop bundle: dist/cann-config/ and dist/cann-config-<version>-linux-<arch>.tar.gz.
#
# `make dist` runs this after installing PyInstaller (the `dist` extra) into .venv. Steps:
# compile the translations, freeze with packaging/cann-config.spec, lay out the desktop files
# and the install/uninstall scripts inside the bundle, run the smoke check, pack the tarball.
#
# Environment (all optional):
#   PYTHON      the Python that has PyInstaller and the app installed (default .venv/bin/python)
#   DIST_DIR    where the bundle and tarball go (default dist)
#   WORK_DIR    PyInstaller's work folder (default build/pyinstaller)
#   SKIP_SMOKE  1 to skip the smoke check (the tests run it themselves)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PYTHON=${PYTHON:-.venv/bin/python}
DIST_DIR=${DIST_DIR:-dist}
WORK_DIR=${WORK_DIR:-build/pyinstaller}

die() { echo "build.sh: $*" >&2; exit 2; }

[ -x "$PYTHON" ] || die "$PYTHON not found: run 'make dist' (it creates .venv and installs PyInstaller)"
"$PYTHON" -c 'import PyInstaller' 2>/dev/null \
    || die "PyInstaller is not installed in $PYTHON: run 'make dist' or '$PYTHON -m pip install -e .[dist]'"
VERSION=$("$PYTHON" -c 'import cann_config.app as app; print(app.__version__)')
ARCH=$(uname -m)
BIN_DIR=$(dirname "$PYTHON")
start=$(date +%s.%N)

# 1. Translations: the .qm files are build products (.gitignore), compiled from the .ts sources.
shopt -s nullglob
ts_files=(resources/translations/*.ts)
if [ ${#ts_files[@]} -gt 0 ]; then
    lrelease="$BIN_DIR/pyside6-lrelease"
    [ -x "$lrelease" ] || lrelease=$(command -v pyside6-lrelease || true)
    [ -n "$lrelease" ] || die "pyside6-lrelease not found (it comes with PySide6-Essentials)"
    for ts in "${ts_files[@]}"; do
        qm="${ts%.ts}.qm"
        if [ ! -e "$qm" ] || [ "$ts" -nt "$qm" ]; then
            "$lrelease" -silent "$ts" -qm "$qm"
        fi
    done
fi

# 2. Freeze. (PyInstaller warns that libgtk-3 is missing for the GTK3 theme plugin: the spec
#    leaves that plugin out, see the comment there.)
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath "$DIST_DIR" --workpath "$WORK_DIR" packaging/cann-config.spec
BUNDLE="$DIST_DIR/cann-config"

# 3. Desktop integration files and the install/uninstall scripts, inside the bundle.
packaging/layout_bundle.sh "$BUNDLE" "$VERSION"

# 4. Libraries the bundled Qt plugins need but the build host lacks are not in the bundle:
#    the target must have them. Say which, so a release is built on a host that has them.
missing=$(cd "$BUNDLE/_internal" && for so in PySide6/Qt/plugins/platforms/*.so; do
    LD_LIBRARY_PATH="$PWD:$PWD/PySide6/Qt/lib" ldd "$so" 2>/dev/null | awk -v p="$so" '/not found/ {print "  " p ": " $1}'
done | sort -u)
if [ -n "$missing" ]; then
    echo "build.sh: warning: these libraries are missing on the build host, so the bundle relies on the target having them:" >&2
    echo "$missing" >&2
    echo "build.sh: (Debian: apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libwayland-cursor0, then rebuild)" >&2
fi

# 5. Smoke check: the frozen program, run with no Python on PATH.
built=$(date +%s.%N)
if [ "${SKIP_SMOKE:-0}" != 1 ]; then
    PYTHON="$PYTHON" packaging/smoke_check.sh "$BUNDLE"
fi

# 6. The tarball: one top-level folder `cann-config/`, owner-neutral, sorted.
TARBALL="$DIST_DIR/cann-config-$VERSION-linux-$ARCH.tar.gz"
tar --sort=name --owner=0 --group=0 --numeric-owner -C "$DIST_DIR" -cf - cann-config | gzip -6 -n > "$TARBALL"
end=$(date +%s.%N)

awk -v a="$start" -v b="$built" -v c="$end" 'BEGIN { printf "build.sh: froze in %.1f s, total %.1f s\n", b - a, c - a }'
echo "build.sh: $(du -sh "$BUNDLE" | cut -f1)  $BUNDLE/"
echo "build.sh: $(du -sh "$TARBALL" | cut -f1)  $TARBALL"
