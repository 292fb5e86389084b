#!/bin/sh
# Per-user install of Reader from this unpacked tarball; no root needed.
#   app:      ~/.local/opt/reader/            command: ~/.local/bin/reader (symlink)
#   menu:     $XDG_DATA_HOME/applications/reader.desktop   (XDG_DATA_HOME defaults to ~/.local/share)
#   icons:    $XDG_DATA_HOME/icons/hicolor/NxN/apps/reader.png
# Run uninstall.sh (also copied to ~/.local/opt/reader/) to remove it; your library is kept.
set -eu

HERE=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
DATA_HOME=${XDG_DATA_HOME:-$HOME/.local/share}
OPT_DIR=$HOME/.local/opt/reader
BIN_DIR=$HOME/.local/bin
APPS_DIR=$DATA_HOME/applications
ICONS_DIR=$DATA_HOME/icons/hicolor

if [ ! -x "$HERE/reader/reader" ]; then
    echo "install.sh: $HERE/reader/reader not found; run me from the unpacked tarball" >&2
    exit 1
fi

echo "Installing Reader into $OPT_DIR"
rm -rf "$OPT_DIR"
mkdir -p "$OPT_DIR"
cp -R "$HERE/reader/." "$OPT_DIR/"
cp "$HERE/uninstall.sh" "$OPT_DIR/uninstall.sh"
chmod 755 "$OPT_DIR/uninstall.sh"

mkdir -p "$BIN_DIR"
ln -sfn "$OPT_DIR/reader" "$BIN_DIR/reader"

# The menu entry uses the absolute path: ~/.local/bin is not on every desktop session's PATH.
mkdir -p "$APPS_DIR"
sed "s|^Exec=.*|Exec=$OPT_DIR/reader|" "$HERE/reader.desktop" > "$APPS_DIR/reader.desktop"
chmod 644 "$APPS_DIR/reader.desktop"

for png in "$HERE"/icons/reader-*.png; do
    size=$(basename "$png" .png)
    size=${size#reader-}
    mkdir -p "$ICONS_DIR/${size}x${size}/apps"
    cp "$png" "$ICONS_DIR/${size}x${size}/apps/reader.png"
done

# Refresh the menu cache when the tool exists; harmless to skip.
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$APPS_DIR" || true
# No per-user icon cache is written: touching the theme dir makes icon loaders rescan it.
touch "$ICONS_DIR"

echo "Done. Start Reader from your applications menu or run: $BIN_DIR/reader"
case ":$PATH:" in
    *":$BIN_DIR:"*) ;;
    *) echo "Note: $BIN_DIR is not on your PATH." ;;
esac
