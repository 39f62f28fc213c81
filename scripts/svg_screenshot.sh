#!/usr/bin/env bash
# Renders an SVG (e.g. `perft versus --plot`) in headless Chromium and writes
# a PNG screenshot; fails when Chromium fails or the picture is blank.
#
#   scripts/svg_screenshot.sh FILE.svg [OUT.png]
#
# Needs Debian's `chromium` (apt-get install chromium). Look at OUT.png.
set -euo pipefail
svg=${1:?usage: scripts/svg_screenshot.sh FILE.svg [OUT.png]}
png=${2:-${svg%.svg}.png}
[ -f "$svg" ] || { echo "svg_screenshot.sh: $svg not found" >&2; exit 2; }
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || { echo "svg_screenshot.sh: chromium not found (apt-get install chromium)" >&2; exit 2; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
rm -f "$png"
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
    --screenshot="$png" --window-size=1000,700 "file://$(realpath "$svg")" >/dev/null 2>&1
[ -s "$png" ] || { echo "svg_screenshot.sh: no screenshot written" >&2; exit 1; }
# A blank 1000x700 page compresses to a few kilobytes; bars, axes and text do not.
size=$(stat -c %s "$png")
if [ "$size" -lt 8000 ]; then
    echo "svg_screenshot.sh: $png is only $size bytes: the SVG drew (next to) nothing" >&2
    exit 1
fi
echo "$png: $size bytes"
