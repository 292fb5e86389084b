#!/bin/bash
# Pack Reader.app into a compressed drag-to-install disk image (hdiutil, macOS only).
# Usage: make_dmg.sh path/to/Reader.app path/to/Reader-VERSION-macos-ARCH.dmg
set -euo pipefail

APP=${1:?usage: make_dmg.sh APP DMG}
DMG=${2:?usage: make_dmg.sh APP DMG}
VOLNAME=${VOLNAME:-Reader}

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
# ditto keeps symlinks, resource forks and code signatures intact (cp -R may not).
ditto "$APP" "$STAGE/$(basename "$APP")"
ln -s /Applications "$STAGE/Applications"

rm -f "$DMG"
hdiutil create -volname "$VOLNAME" -srcfolder "$STAGE" -fs HFS+ -format UDZO -ov "$DMG"
echo "wrote $DMG"
