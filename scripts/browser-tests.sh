#!/usr/bin/env bash
# The console in Debian's Chromium, driven by selenium from PyPI in a virtualenv under .build/ (made once).
# Usage: scripts/browser-tests.sh <linkrunway binary>
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/venv
if ! "$venv/bin/python" -c "import selenium" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "selenium==4.51.0"
fi
exec "$venv/bin/python" Tests/Browser/console_test.py "${1:-.build/debug/linkrunway}" test-artifacts/console
