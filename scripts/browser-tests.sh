#!/usr/bin/env bash
# The console in Debian's Chromium, driven by selenium from PyPI in a virtualenv under .build/ (made once), every page
# checked by axe-core.
# Usage: scripts/browser-tests.sh <linkrunway binary>
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/venv
# axe-core (4.12.1) comes as the axe.min.js inside axe-playwright-python; only that file is used, so not its dependencies.
if ! "$venv/bin/python" -c "import selenium, importlib.util; assert importlib.util.find_spec('axe_playwright_python')" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "selenium==4.51.0"
    "$venv/bin/pip" install --quiet --no-deps "axe-playwright-python==0.1.8"
fi
exec "$venv/bin/python" Tests/Browser/console_test.py "${1:-.build/debug/linkrunway}" test-artifacts/console
