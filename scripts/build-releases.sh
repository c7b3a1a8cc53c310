#!/usr/bin/env bash
# Builds the server of every release in scripts/releases.txt from its commit, once: .build/releases/<version>/linkrunway.
# The upgrade tests (scripts/upgrade_test.py) fill databases with these binaries and serve them with today's.
set -euo pipefail
cd "$(dirname "$0")/.."
while read -r version commit; do
    case "$version" in ''|'#'*) continue ;; esac
    # A clone may lack tags; where v<version> is there, it must name the commit listed here.
    if tagged=$(git rev-parse -q --verify "refs/tags/v$version^{commit}" 2>/dev/null) && [ "$tagged" != "$commit" ]; then
        echo "tag v$version is $tagged, not the release commit $commit listed in scripts/releases.txt" >&2
        exit 1
    fi
    git cat-file -e "$commit^{commit}" 2>/dev/null || { echo "release $version's commit $commit is not in this clone's history" >&2; exit 1; }
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
