#!/usr/bin/env bash
# Put the desktop integration files and the install/uninstall scripts into a frozen bundle, in the
# freedesktop layout install.sh copies from:
#
#   BUNDLE/share/applications/<id>.desktop, share/metainfo/<id>.metainfo.xml,
#   share/icons/hicolor/{scalable,NxN}/apps/<id>.{svg,png}, install.sh, uninstall.sh,
#   .cann-config-bundle (the marker install.sh and uninstall.sh check before replacing or removing)
#
#   packaging/layout_bundle.sh BUNDLE_DIR VERSION
set -euo pipefail

BUNDLE=${1:?usage: $0 BUNDLE_DIR VERSION}
VERSION=${2:?usage: $0 BUNDLE_DIR VERSION}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
APP_ID=io.github.cann_config_assistant.CannConfig
share="$BUNDLE/share"

install -D -m 644 "$ROOT/packaging/$APP_ID.desktop" "$share/applications/$APP_ID.desktop"
install -D -m 644 "$ROOT/packaging/$APP_ID.metainfo.xml" "$share/metainfo/$APP_ID.metainfo.xml"
install -D -m 644 "$ROOT/resources/icons/cann-config.svg" "$share/icons/hicolor/scalable/apps/$APP_ID.svg"
for png in "$ROOT"/resources/icons/cann-config-*.png; do
    size=${png##*-}; size=${size%.png}
    install -D -m 644 "$png" "$share/icons/hicolor/${size}x${size}/apps/$APP_ID.png"
done
install -m 755 "$ROOT/packaging/install.sh" "$ROOT/packaging/uninstall.sh" "$BUNDLE/"
printf 'cann-config %s linux-%s\n' "$VERSION" "$(uname -m)" > "$BUNDLE/.cann-config-bundle"
