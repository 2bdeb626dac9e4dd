#!/bin/sh
# Install the cann-config bundle for the current user, without root:
#
#   ~/.local/lib/cann-config/          the bundle (a copy of this folder)
#   ~/.local/bin/cann-config           a symlink to its executable
#   ~/.local/share/applications/       the menu entry (.desktop)
#   ~/.local/share/icons/hicolor/      the icon, SVG and PNG sizes
#   ~/.local/share/metainfo/           the AppStream metadata
#
# Run it from the unpacked bundle:  ./cann-config/install.sh
# or from a checkout after `make dist`:  packaging/install.sh [BUNDLE_DIR]
# PREFIX=/some/where installs under that prefix instead of ~/.local.
# Undo with uninstall.sh (it is installed too: ~/.local/lib/cann-config/uninstall.sh).
set -eu

APP_ID=io.github.cann_config_assistant.CannConfig
MARKER=.cann-config-bundle

die() { echo "install.sh: $*" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -gt 0 ]; then
    case $1 in
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    esac
    bundle=$1
elif [ -f "$here/$MARKER" ]; then
    bundle=$here
else
    bundle=$here/../dist/cann-config
fi
[ -f "$bundle/$MARKER" ] && [ -x "$bundle/cann-config" ] \
    || die "$bundle is not a built cann-config bundle (run 'make dist' first, or give the bundle folder)"
bundle=$(cd "$bundle" && pwd)

: "${HOME:?HOME is not set}"
PREFIX=${PREFIX:-$HOME/.local}
case $PREFIX in /*) ;; *) PREFIX=$(pwd)/$PREFIX ;; esac
lib=$PREFIX/lib/cann-config
bin=$PREFIX/bin
share=$PREFIX/share
exe=$bin/cann-config

# Never replace something that is not ours.
if [ -e "$lib" ] && [ ! -f "$lib/$MARKER" ]; then
    die "$lib exists and is not a cann-config bundle; not touching it"
fi
if [ -e "$exe" ] || [ -L "$exe" ]; then
    case $(readlink "$exe" 2>/dev/null || true) in
        "$lib/cann-config") ;;
        *) die "$exe exists and is not the link this script makes; not touching it" ;;
    esac
fi

# 1. The bundle: copied beside the old one, then swapped in, so a failed copy leaves the old one.
mkdir -p "$PREFIX/lib" "$bin"
if [ "$bundle" != "$lib" ]; then
    rm -rf "$lib.new"
    cp -R "$bundle" "$lib.new"
    rm -rf "$lib.old"
    if [ -e "$lib" ]; then mv "$lib" "$lib.old"; fi
    mv "$lib.new" "$lib"
    rm -rf "$lib.old"
fi
ln -sfn "$lib/cann-config" "$exe"

# 2. The menu entry, its Exec pointing at the link by absolute path: a menu started from the
#    desktop session does not always have ~/.local/bin on its PATH. Quoted per the Desktop Entry
#    spec ("Exec key") when the path has characters that need it.
desktop_exec() {
    case $1 in
        *[!A-Za-z0-9/._+-]*)
            quoted=$(printf '%s' "$1" | sed -e 's/[\\"`$]/\\&/g' -e 's/\\/\\\\/g' -e 's/%/%%/g')
            printf '"%s"' "$quoted" ;;
        *) printf '%s' "$1" ;;
    esac
}
exec_value=$(desktop_exec "$exe")
tryexec_value=$(printf '%s' "$exe" | sed 's/\\/\\\\/g')
mkdir -p "$share/applications"
while IFS= read -r line || [ -n "$line" ]; do
    case $line in
        Exec=*) printf 'Exec=%s gui\n' "$exec_value" ;;
        TryExec=*) printf 'TryExec=%s\n' "$tryexec_value" ;;
        *) printf '%s\n' "$line" ;;
    esac
done < "$lib/share/applications/$APP_ID.desktop" > "$share/applications/$APP_ID.desktop.new"
mv "$share/applications/$APP_ID.desktop.new" "$share/applications/$APP_ID.desktop"

# 3. Icons and AppStream metadata, as built.
(cd "$lib/share" && find icons metainfo -type f) | while IFS= read -r rel; do
    mkdir -p "$share/$(dirname "$rel")"
    cp "$lib/share/$rel" "$share/$rel"
done

# 4. Let the desktop notice (both tools are optional; a new login notices anyway).
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$share/applications" 2>/dev/null || true
fi
if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$share/icons/hicolor/index.theme" ]; then
    gtk-update-icon-cache -q -t -f "$share/icons/hicolor" 2>/dev/null || true
fi

echo "Installed $(cat "$lib/$MARKER") into $lib"
echo "  command:    $exe"
echo "  menu entry: $share/applications/$APP_ID.desktop"
case :${PATH:-}: in
    *:"$bin":*) ;;
    *) echo "  note: $bin is not on your PATH; add it to run 'cann-config' from a terminal" ;;
esac
echo "Uninstall:    $lib/uninstall.sh"
