#!/usr/bin/env bash
# Schemathesis (from PyPI, in the virtualenv under .build/) against /openapi.json of a real server on a temporary
# SQLite file, with a real key of a kind each operation accepts: no 500, and every answer as the document says
# (status, content type, schema). API_FUZZ_EXAMPLES (default 25) bounds the examples per operation.
# Usage: scripts/api-fuzz.sh <linkrunway binary>
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$(realpath "${1:-.build/debug/linkrunway}")
venv=.build/venv
if ! "$venv/bin/python" -c "import schemathesis" 2>/dev/null; then
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "schemathesis==4.32.5"
fi
work=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$work"' EXIT
# A root of our own for App Store signed data, so notifications are checked rather than refused as unconfigured.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$work/root.key" -out "$work/root.pem" \
    -days 30 -subj "/CN=API fuzz root" 2>/dev/null
LINKRUNWAY_RATE_LIMIT_ADDRESS=0 LINKRUNWAY_LOG_LEVEL=error LINKRUNWAY_APP_STORE_ROOT="$work/root.pem" \
    "$binary" serve --port 0 --database-url "sqlite:$work/api.db" > "$work/out" 2>&1 &
server=$!
for _ in $(seq 200); do grep -q "listening on" "$work/out" && break; sleep 0.1; done
base=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/out" | head -1)
admin=$(grep -o 'lr_ak_[A-Za-z0-9]*' "$work/out" | head -1)
[ -n "$base" ] && [ -n "$admin" ] || { cat "$work/out"; echo "api-fuzz: the server did not start"; exit 1; }
api() { curl -sf -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' "$@"; }
workspace=$(api "$base/v1/workspaces" | python3 -c 'import json,sys; print(json.load(sys.stdin)["items"][0]["id"])')
app=$(api -d "{\"workspaceId\":\"$workspace\",\"name\":\"Fuzz\",\"teamId\":\"ABCDE12345\",\"bundleId\":\"com.example.fuzz\"}" "$base/v1/apps" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
publishable=$(api -d "{\"kind\":\"publishable\",\"appId\":\"$app\"}" "$base/v1/keys" | python3 -c 'import json,sys; print(json.load(sys.stdin)["secret"])')
# Run from the temporary folder: schemathesis keeps a cache where it runs.
repo=$PWD
(cd "$work" && LINKRUNWAY_ADMIN_KEY=$admin LINKRUNWAY_PUBLISHABLE_KEY=$publishable SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH="$repo/Tests/API" \
    "$repo/$venv/bin/schemathesis" run "$base/openapi.json" --max-examples "${API_FUZZ_EXAMPLES:-25}" --seed 1 \
    --phases examples,coverage,fuzzing --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
    --request-timeout 20 --no-color > "$work/report" 2>&1) || { cat "$work/report"; echo "api-fuzz: schemathesis found failures"; exit 1; }
sed -n "/SUMMARY/,\$p" "$work/report"
