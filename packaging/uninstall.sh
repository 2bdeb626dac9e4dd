#!/bin/sh
# Remove what install.sh put under ~/.local (or under PREFIX, if it was installed with one):
# the bundle folder, the command link, the menu entry, the icons and the AppStream metadata.
# It removes only those: a folder without the bundle's marker file or a `cann-config` that is
# not the link install.sh made is left alone and named.
set -eu

APP_ID=io.github.cann_config_assistant.CannConfig
MARKER=.cann-config-bundle

case ${1:-} in
    -h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
: "${HOME:?HOME is not set}"
PREFIX=${PREFIX:-$HOME/.local}
case $PREFIX in /*) ;; *) PREFIX=$(pwd)/$PREFIX ;; esac
lib=$PREFIX/lib/cann-config
exe=$PREFIX/bin/cann-config
share=$PREFIX/share
removed=0
kept=0

remove() {
    if [ -e "$1" ] || [ -L "$1" ]; then
        rm -rf "$1"
        echo "removed $1"
        removed=$((removed + 1))
    fi
}

if [ -L "$exe" ] && [ "$(readlink "$exe")" = "$lib/cann-config" ]; then
    remove "$exe"
elif [ -e "$exe" ] || [ -L "$exe" ]; then
    echo "kept    $exe (not the link install.sh made)"
    kept=1
fi

remove "$share/applications/$APP_ID.desktop"
remove "$share/metainfo/$APP_ID.metainfo.xml"
for icon in "$share"/icons/hicolor/*/apps/"$APP_ID".png "$share"/icons/hicolor/*/apps/"$APP_ID".svg; do
    remove "$icon"
done

if [ -f "$lib/$MARKER" ]; then
    remove "$lib"
elif [ -e "$lib" ]; then
    echo "kept    $lib (no $MARKER in it: not a cann-config bundle)"
    kept=1
fi

if command -v update-desktop-database >/dev/null 2>&1 && [ -d "$share/applications" ]; then
    update-desktop-database -q "$share/applications" 2>/dev/null || true
fi
if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$share/icons/hicolor/index.theme" ]; then
    gtk-update-icon-cache -q -t -f "$share/icons/hicolor" 2>/dev/null || true
fi

if [ $removed -eq 0 ] && [ $kept -eq 0 ]; then
    echo "cann-config is not installed under $PREFIX"
fi
exit 0
