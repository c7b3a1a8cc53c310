#!/usr/bin/env bash
# Builds the server of every release in scripts/releases.txt from its commit, once: .build/releases/<version>/linkrunway.
# The upgrade tests (scripts/upgrade_test.py) fill databases with these binaries and serve them with today's.
set -euo pipefail
cd "$(dirname "$0")/.."
while read -r version commit; do
    case "$version" in ''|'#'*) continue ;; esac
    dir=".build/releases/$version"
    [ -x "$dir/linkrunway" ] && continue
    echo "building release $version ($commit)"
    rm -rf "$dir"
    mkdir -p "$dir/source"
    git archive "$commit" | tar -x -C "$dir/source"
    swift build --package-path "$dir/source" --product linkrunway
    cp "$dir/source/.build/debug/linkrunway" "$dir/linkrunway.new"
    mv "$dir/linkrunway.new" "$dir/linkrunway"
done < scripts/releases.txt
