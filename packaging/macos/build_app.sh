#!/usr/bin/env bash
# Rilai.app, on a Mac: packaging/build.py runs the PyInstaller spec, whose BUNDLE block
# (macOS only, at the end of packaging/rilai.spec) wraps the one-folder build into
# $DIST/Rilai.app with packaging/macos/Info.plist and resources/icons/rilai.icns.
#
#   packaging/macos/build_app.sh [--no-models]      (the arguments go to packaging/build.py)
#   DIST=out packaging/macos/build_app.sh            (default: dist)
#   PYTHON=.venv/bin/python packaging/macos/build_app.sh   (default: python3)
#
# Then: packaging/macos/make_dmg.sh, and packaging/macos/sign_and_notarize.sh with a
# Developer ID (docs/packaging.md, macOS). Without one the app is signed ad hoc, which runs
# on the Mac that built it and elsewhere only after the person allows it (right-click, Open).
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "$(uname -s)" != Darwin ]; then
  echo "build_app.sh: Rilai.app is built on macOS (PyInstaller makes an .app only there)" >&2
  exit 2
fi
DIST=${DIST:-dist}
PYTHON=${PYTHON:-python3}
APP="$DIST/Rilai.app"

"$PYTHON" packaging/build.py --dist "$DIST" "$@"
if [ ! -d "$APP" ]; then
  echo "build_app.sh: $APP was not made: is the BUNDLE block at the end of packaging/rilai.spec?" >&2
  exit 1
fi

# build.py writes licenses/ and BUILD.json beside the one-folder bundle ($DIST/rilai); the
# .app carries them in Contents/Resources (Contents/MacOS is for code only).
RESOURCES="$APP/Contents/Resources"
rm -rf "$RESOURCES/licenses"
ditto "$DIST/rilai/licenses" "$RESOURCES/licenses"
cp "$DIST/rilai/BUILD.json" "$RESOURCES/BUILD.json"

# PyInstaller signed the bundle (ad hoc) before those files went in: seal it again, ad hoc.
# sign_and_notarize.sh replaces this with the Developer ID signature.
codesign --force --deep --sign - "$APP"
codesign --verify --deep --strict "$APP"
du -sh "$APP"
echo "$APP"
