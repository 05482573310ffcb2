#!/usr/bin/env bash
# Sign Rilai with a Developer ID under the hardened runtime, have Apple notarise it, and
# staple the ticket, so the app opens on another Mac without a warning, offline too (the
# stapled ticket is checked without asking Apple).
#
#   sign_and_notarize.sh app dist/Rilai.app                       (before make_dmg.sh)
#   sign_and_notarize.sh dmg dist/Rilai-0.1.0-macos-arm64.dmg     (after it)
#
# Fill in (placeholders; never commit real values):
#   DEVELOPER_ID    the signing identity in your keychain, e.g.
#                   "Developer ID Application: Your Name (TEAMID1234)"
#   NOTARY_PROFILE  a notarytool keychain profile, made once with
#                   xcrun notarytool store-credentials "rilai-notary" \
#                       --apple-id you@example.com --team-id TEAMID1234 --password <app-specific password>
# The release workflow makes both from repository secrets (docs/packaging.md, macOS).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)

: "${DEVELOPER_ID:?set DEVELOPER_ID to your Developer ID Application identity}"
: "${NOTARY_PROFILE:?set NOTARY_PROFILE to a notarytool keychain profile (see the header)}"
if [ $# -ne 2 ] || { [ "$1" != app ] && [ "$1" != dmg ]; }; then
  echo "usage: $0 app PATH/Rilai.app | dmg PATH/Rilai-....dmg" >&2
  exit 2
fi
KIND=$1
TARGET=${2%/}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

notarise() {  # submit, wait for Apple's verdict, and print the log when it is not Accepted
  local file=$1 out
  out=$(xcrun notarytool submit "$file" --keychain-profile "$NOTARY_PROFILE" --wait 2>&1) || true
  echo "$out"
  if ! grep -q "status: Accepted" <<<"$out"; then
    local id
    id=$(awk '/^ *id:/ { print $2; exit }' <<<"$out")
    [ -n "$id" ] && xcrun notarytool log "$id" --keychain-profile "$NOTARY_PROFILE" || true
    echo "sign_and_notarize.sh: notarisation of $file was not accepted" >&2
    exit 1
  fi
}

if [ "$KIND" = app ]; then
  # The entitlements as plain XML (the source file carries comments).
  plutil -convert xml1 -o "$WORK/entitlements.plist" "$HERE/entitlements.plist"
  SIGN=(codesign --force --timestamp --options runtime --sign "$DEVELOPER_ID")

  # Inside out. First every loose Mach-O file (Python extensions, dylibs, the Qt plug-ins)
  # outside framework bundles: codesign --deep alone misses files in folders that are not a
  # bundle's standard places, and PyInstaller keeps many there (onnxruntime/capi, PySide6/Qt/...).
  while IFS= read -r -d '' file; do
    case "$file" in *.framework/*) continue ;; esac
    if file -b "$file" | grep -q "Mach-O"; then
      "${SIGN[@]}" "$file"
    fi
  done < <(find "$TARGET/Contents" -type f ! -path "*/Contents/MacOS/rilai" -print0)
  # Then the framework bundles (Qt's), deepest first.
  while IFS= read -r framework; do
    "${SIGN[@]}" "$framework"
  done < <(find "$TARGET/Contents" -type d -name "*.framework" | awk '{ print gsub("/", "/"), $0 }' | sort -rn | cut -d" " -f2-)
  # Last the app itself, with the entitlements (they apply to its main executable).
  codesign --deep --force --options runtime --timestamp \
    --entitlements "$WORK/entitlements.plist" --sign "$DEVELOPER_ID" "$TARGET"
  codesign --verify --deep --strict --verbose=2 "$TARGET"

  # notarytool takes a zip (or a dmg, or a pkg); ditto keeps the symlinks and the signatures.
  ditto -c -k --keepParent "$TARGET" "$WORK/Rilai.zip"
  notarise "$WORK/Rilai.zip"
  xcrun stapler staple "$TARGET"
  spctl --assess --type execute --verbose=2 "$TARGET"
else
  codesign --force --timestamp --sign "$DEVELOPER_ID" "$TARGET"
  notarise "$TARGET"
  xcrun stapler staple "$TARGET"
  spctl --assess --type open --context context:primary-signature --verbose=2 "$TARGET"
fi
echo "signed, notarised and stapled: $TARGET"
