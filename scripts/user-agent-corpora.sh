#!/usr/bin/env bash
# Public User-Agent corpora for the classifier's test, from PyPI into .build/user-agents/ (made once, never committed):
# crawler-user-agents (about 2,100 crawler User-Agents, each an instance of a crawler pattern) and fake-useragent
# (real browsers' User-Agents with their share of traffic). ClientCorpusTests reads them; without them it skips.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/user-agents
[ -s "$out/crawler-user-agents.json" ] && [ -s "$out/browsers.jsonl" ] && exit 0
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$scratch" "crawler-user-agents==1.67.0" "fake-useragent==2.2.0" 2>/dev/null \
    || { python3 -m venv "$scratch/venv" && "$scratch/venv/bin/pip" download --quiet --no-deps --only-binary=:all: -d "$scratch" \
            "crawler-user-agents==1.67.0" "fake-useragent==2.2.0"; }
python3 - "$scratch" "$out" <<'PY'
import glob, sys, zipfile
scratch, out = sys.argv[1], sys.argv[2]
wanted = {"crawleruseragents/crawler-user-agents.json": "crawler-user-agents.json", "fake_useragent/data/browsers.jsonl": "browsers.jsonl"}
for wheel in glob.glob(f"{scratch}/*.whl"):
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name in wanted:
                with open(f"{out}/{wanted[name]}", "wb") as target:
                    target.write(archive.read(name))
PY
ls "$out"
