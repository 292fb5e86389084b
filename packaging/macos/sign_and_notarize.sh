#!/bin/bash
# Sign (hardened runtime), notarize and staple Reader.app or a .dmg holding it.
# Usage: sign_and_notarize.sh path/to/Reader.app | path/to/Reader.dmg
# Needs MACOS_SIGN_IDENTITY ("Developer ID Application: Name (TEAMID)", already in the
# keychain), APPLE_ID, APPLE_TEAM_ID and APPLE_APP_PASSWORD (an app-specific password).
# Without them it prints "skipped" and exits 0, so unsigned local/CI builds still work.
set -euo pipefail

TARGET=${1:?usage: sign_and_notarize.sh APP_OR_DMG}
HERE=$(cd "$(dirname "$0")" && pwd)
ENTITLEMENTS="$HERE/entitlements.plist"

for var in MACOS_SIGN_IDENTITY APPLE_ID APPLE_TEAM_ID APPLE_APP_PASSWORD; do
    if [ -z "${!var:-}" ]; then
        echo "sign_and_notarize: skipped ($var is not set) for $TARGET"
        exit 0
    fi
done

notarize() {  # submit $1 (a .zip or .dmg) and wait for Apple's verdict
    xcrun notarytool submit "$1" --apple-id "$APPLE_ID" --team-id "$APPLE_TEAM_ID" \
        --password "$APPLE_APP_PASSWORD" --wait
}

case "$TARGET" in
    *.app|*.app/)
        codesign --force --deep --timestamp --options runtime \
            --entitlements "$ENTITLEMENTS" --sign "$MACOS_SIGN_IDENTITY" "$TARGET"
        codesign --verify --deep --strict --verbose=2 "$TARGET"
        # notarytool takes archives, not bundles: zip it with ditto (keeps the signature).
        ZIP=$(mktemp -d)/Reader.zip
        ditto -c -k --keepParent "$TARGET" "$ZIP"
        notarize "$ZIP"
        rm -f "$ZIP"
        xcrun stapler staple "$TARGET"
        ;;
    *.dmg)
        codesign --force --timestamp --sign "$MACOS_SIGN_IDENTITY" "$TARGET"
        notarize "$TARGET"
        xcrun stapler staple "$TARGET"
        ;;
    *)
        echo "sign_and_notarize: don't know how to sign $TARGET" >&2
        exit 2
        ;;
esac
echo "sign_and_notarize: signed, notarized and stapled $TARGET"
