#!/bin/sh
# Remove a per-user Reader install made by install.sh. Your library (notes, stars, the
# database under ~/.local/share/Reader or $READER_DATA_DIR) is NOT deleted.
set -eu

DATA_HOME=${XDG_DATA_HOME:-$HOME/.local/share}
OPT_DIR=$HOME/.local/opt/reader
BIN_LINK=$HOME/.local/bin/reader
ICONS_DIR=$DATA_HOME/icons/hicolor

# Only remove the command if it is our symlink, not some other "reader".
if [ -L "$BIN_LINK" ] && [ "$(readlink "$BIN_LINK")" = "$OPT_DIR/reader" ]; then
    rm -f "$BIN_LINK"
fi
rm -f "$DATA_HOME/applications/reader.desktop"
for dir in "$ICONS_DIR"/*/apps; do
    [ -d "$dir" ] && rm -f "$dir/reader.png"
done
rm -rf "$OPT_DIR"

command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$DATA_HOME/applications" || true
[ -d "$ICONS_DIR" ] && touch "$ICONS_DIR" || true
echo "Reader removed (your library was kept)."
