#!/usr/bin/env bash
# The disk image people download: Rilai.app beside a link to /Applications (drag to install).
#
#   packaging/macos/make_dmg.sh [APP] [OUT]
#     APP  default dist/Rilai.app
#     OUT  default dist/Rilai-<version>-macos-<arch>.dmg (the version from the app's Info.plist)
#
# Sign the app before this (sign_and_notarize.sh app ...) and the image after it
# (sign_and_notarize.sh dmg ...): the image holds the app as it is now. Paths are from the
# current folder (the defaults: run it from the repository root).
set -euo pipefail

if [ "$(uname -s)" != Darwin ]; then
  echo "make_dmg.sh: hdiutil is macOS only" >&2
  exit 2
fi
APP=${1:-dist/Rilai.app}
APP=${APP%/}
[ -d "$APP" ] || { echo "make_dmg.sh: no $APP: run packaging/macos/build_app.sh first" >&2; exit 1; }
VERSION=$(/usr/libexec/PlistBuddy -c "Print :CFBundleShortVersionString" "$APP/Contents/Info.plist")
OUT=${2:-dist/Rilai-$VERSION-macos-$(uname -m).dmg}

# A staging folder beside the app (the same volume), the app moved in rather than copied
# (it is ~2 GB with the models) and moved back whatever happens.
STAGE="$(dirname "$APP")/.dmg-stage"
rm -rf "$STAGE"
mkdir -p "$STAGE"
mv "$APP" "$STAGE/Rilai.app"
trap 'mv "$STAGE/Rilai.app" "$APP" && rm -rf "$STAGE"' EXIT
ln -s /Applications "$STAGE/Applications"

rm -f "$OUT"
# hdiutil now and then fails with "Resource busy" on CI machines: try again, a few times.
for attempt in 1 2 3; do
  if hdiutil create -volname Rilai -srcfolder "$STAGE" -fs HFS+ -format UDZO -ov "$OUT"; then
    break
  fi
  [ "$attempt" = 3 ] && { echo "make_dmg.sh: hdiutil create failed 3 times" >&2; exit 1; }
  sleep 10
done
hdiutil verify "$OUT"
ls -l "$OUT"
echo "$OUT"
