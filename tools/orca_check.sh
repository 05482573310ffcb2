#!/bin/bash
# What a screen reader is given (docs/accessibility.md): Orca with its debug log, under
# Xvfb and a private D-Bus session with the AT-SPI bus, watching the real window on the
# scripted fakes while xdotool types a message and a check-in arrives.
#   apt-get install orca python3-pyatspi at-spi2-core xdotool xvfb   (not part of make test)
#   xvfb-run -a dbus-run-session -- tools/orca_check.sh OUT_DIR
# OUT_DIR/orca.debug: Orca's log ("SPEECH OUTPUT", and every AT-SPI event it received).
set -u
out=${1:?OUT_DIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
export QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 QT_ACCESSIBILITY=1 NO_AT_BRIDGE=0
gsettings set org.gnome.desktop.interface toolkit-accessibility true 2>/dev/null
/usr/libexec/at-spi-bus-launcher --launch-immediately &
sleep 2
orca --replace --debug-file="$out/orca.debug" >"$out/orca.out" 2>&1 &
orca_pid=$!
sleep 6
cd "$here" && OMP_NUM_THREADS=1 "${PYTHON:-.venv/bin/python}" tools/orca_drive.py
sleep 2
kill "$orca_pid"
grep "SPEECH OUTPUT" "$out/orca.debug"
grep "EVENT MANAGER: object:property-change:accessible-name for" "$out/orca.debug" \
	| grep -v Queueing | sed 's/^.*(0, 0, //' | grep -E "^(You|Rilai)" | uniq
