#!/usr/bin/env bash
# The release check of a built bundle: does the frozen program start, read its data files and
# run the CLI and the GUI, with no Python on PATH and (where a mount namespace is allowed) with
# no Python on the machine at all?
#
#   packaging/smoke_check.sh dist/cann-config
#
# Every step runs under `env -i` (no PYTHONPATH, no venv, PATH=/usr/bin:/bin, a scratch HOME).
# Subcommands that this checkout does not have yet are skipped with a note, not failed.
set -euo pipefail

BUNDLE=${1:?usage: $0 BUNDLE_DIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
EXE="$(cd "$BUNDLE" && pwd)/cann-config"
FIXTURE="$ROOT/tests/data/packaging/op_cache.ini"
[ -x "$EXE" ] || { echo "smoke_check.sh: $EXE is not there; build first" >&2; exit 2; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/home"
bare=(env -i PATH=/usr/bin:/bin HOME="$scratch/home" LANG=C.UTF-8 TMPDIR="$scratch")
failed=0
ok() { echo "smoke: ok    $*"; }
bad() { echo "smoke: FAIL  $*" >&2; failed=1; }
skip() { echo "smoke: skip  $*"; }
has_command() { "${bare[@]}" "$EXE" "$1" --help >/dev/null 2>&1; }

# --version: the interpreter, the archive and app/ are all there.
if out=$("${bare[@]}" "$EXE" --version 2>&1) && [[ $out == "cann-config "* ]]; then
    ok "--version: $out"
else
    bad "--version: $out"
fi

# options --json: the catalog is read through importlib.resources from the frozen `resources`.
if "${bare[@]}" "$EXE" options --json > "$scratch/options.json" 2> "$scratch/err" \
        && grep -q '"format": "cann-config-catalog"' "$scratch/options.json"; then
    ok "options --json ($(wc -c < "$scratch/options.json") bytes)"
else
    bad "options --json: $(head -c 400 "$scratch/err")"
fi

# diagnose --ini: the op_cache.ini reader and the message tables (exit 1 = findings, still a run).
if has_command diagnose; then
    set +e
    "${bare[@]}" "$EXE" diagnose --ini "$FIXTURE" > "$scratch/diagnose.txt" 2> "$scratch/err"
    rc=$?
    set -e
    if [ $rc -le 1 ] && [ -s "$scratch/diagnose.txt" ]; then ok "diagnose --ini (exit $rc)"; else bad "diagnose --ini exit $rc: $(head -c 400 "$scratch/err")"; fi
else
    skip "diagnose: this build has no diagnose command"
fi

# collect -o: the support bundle from this host (no npu-smi here: it says so and carries on).
if has_command collect; then
    set +e
    "${bare[@]}" "$EXE" collect -o "$scratch/bundle.json" > /dev/null 2> "$scratch/err"
    rc=$?
    set -e
    if [ $rc -eq 0 ] && [ -s "$scratch/bundle.json" ]; then ok "collect -o"; else bad "collect -o exit $rc: $(head -c 400 "$scratch/err")"; fi
else
    skip "collect: this build has no collect command"
fi

# gui --smoke: Qt, its platform plugin, fonts, the wizard; offscreen, so no display is needed.
if has_command gui; then
    if out=$("${bare[@]}" QT_QPA_PLATFORM=offscreen "$EXE" gui --smoke 2> "$scratch/err") \
            && [[ $out =~ ^shown\ [0-9.]+$ ]]; then
        ok "gui --smoke: $out"
    else
        bad "gui --smoke: $out $(head -c 400 "$scratch/err")"
    fi
else
    skip "gui: this build has no gui command"
fi

# No Python on the machine at all: hide every installed Python, then start the bundle's CLI and,
# when it has one, its GUI.
gui=0
has_command gui && gui=1
hidden_run='
    env -i PATH=/usr/bin:/bin HOME="$1" LANG=C.UTF-8 "$2" options --json > /dev/null || exit 1
    [ "$3" = 1 ] || exit 0
    env -i PATH=/usr/bin:/bin HOME="$1" LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen "$2" gui --smoke > /dev/null
'
set +e
PYTHON="${PYTHON:-}" "$ROOT/packaging/without_python.sh" bash -c "$hidden_run" hidden "$scratch/home" "$EXE" "$gui" \
    > /dev/null 2> "$scratch/err"
rc=$?
set -e
if [ "$rc" = 125 ]; then
    skip "no-Python run: $(tail -n 1 "$scratch/err")"
elif [ "$rc" = 0 ]; then
    ok "with every Python on this machine hidden: options --json$([ $gui = 1 ] && echo ", gui --smoke")"
else
    bad "with every Python hidden, exit $rc: $(head -c 400 "$scratch/err")"
fi

exit $failed
