#!/usr/bin/env bash
# Render a report.html in headless chromium to a PNG, to eyeball the plots.
#   bash bench/report-screenshot.sh report.html out.png
# Skips (exit 0) when chromium is not installed (apt-get install -y chromium).
set -euo pipefail
in=${1:?report.html}; out=${2:-${in%.html}.png}
bin=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$bin" ]; then echo "chromium not installed; skipping screenshot"; exit 0; fi
"$bin" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,2400 \
  --screenshot="$(realpath -m "$out")" "file://$(realpath "$in")" >/dev/null 2>&1
echo "wrote $out"
