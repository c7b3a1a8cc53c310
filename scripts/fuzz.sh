#!/usr/bin/env bash
# Builds the fuzz target for Apple's formats (App Attest CBOR and objects, SKAdNetwork and AdAttributionKit postbacks)
# with libFuzzer and AddressSanitizer, seeds it with the real data in ../shared/vectors when present, and runs it for
# FUZZ_SECONDS (default 30). Any crash fails.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_LIMIT="${FUZZ_SECONDS:-30}"
OUT=.build/fuzz
mkdir -p "$OUT/modules" "$OUT/corpus"
SWIFTC="${SWIFTC:-swiftc}"

# RunwayCrypto and RunwayJSON as plain modules (not the code under test), then Apple's formats, instrumented.
"$SWIFTC" -O -parse-as-library -module-name RunwayCrypto -emit-module -emit-module-path "$OUT/modules/RunwayCrypto.swiftmodule" \
    -emit-library -static -o "$OUT/libRunwayCrypto.a" -I Sources/COpenSSL Sources/RunwayCrypto/*.swift
"$SWIFTC" -O -parse-as-library -module-name RunwayJSON -emit-module -emit-module-path "$OUT/modules/RunwayJSON.swiftmodule" \
    -emit-library -static -o "$OUT/libRunwayJSON.a" Sources/RunwayJSON/*.swift
"$SWIFTC" -O -g -parse-as-library -sanitize=fuzzer,address -module-name AppleFormats -I "$OUT/modules" -I Sources/COpenSSL \
    Sources/AppleFormats/*.swift fuzz/AppleFormatsFuzz.swift -L "$OUT" -lRunwayCrypto -lRunwayJSON -lssl -lcrypto -o "$OUT/apple-formats-fuzz" \
    2> >(grep -v "Cannot export local symbol" >&2)

VECTORS=../shared/vectors/app-attest
if [ -d "$VECTORS" ]; then
    python3 - "$VECTORS" "$OUT/corpus" <<'PY'
import base64, json, pathlib, sys
source, corpus = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for file in source.glob("*.json"):
    samples = json.loads(file.read_text())
    for i, sample in enumerate(samples if isinstance(samples, list) else []):
        for field in ("attestationBase64", "assertionBase64", "attestation", "assertion"):
            value = sample.get(field) if isinstance(sample, dict) else None
            if isinstance(value, str):
                try:
                    (corpus / f"{file.stem}-{i}-{field}").write_bytes(base64.b64decode(value))
                except ValueError:
                    pass
PY
    export FUZZ_APP_ATTEST_ROOT="$VECTORS/Apple_App_Attestation_Root_CA.pem"
    for postback in ../shared/vectors/skadnetwork/postbacks/*.json ../shared/vectors/adattributionkit/postback-*.json; do
        [ -f "$postback" ] && cp "$postback" "$OUT/corpus/postback-$(basename "$postback")"
    done
else
    echo "fuzz: $VECTORS is absent; starting from hand-made seeds only"
fi
# Hand-made seeds: an empty map, a nested array, a map with the attestation keys, a truncated byte string.
printf '\xa0' > "$OUT/corpus/seed-empty-map"
printf '\x81\x81\x81\x81\x80' > "$OUT/corpus/seed-nested"
printf '\xa3\x63fmt\x6fapple-appattest\x67attStmt\xa0\x68authData\x40' > "$OUT/corpus/seed-attestation"
printf '\x5a\xff\xff\xff\xff\x00' > "$OUT/corpus/seed-truncated"
printf '{"version":"4.0","ad-network-id":"a","attribution-signature":"MEUC"}' > "$OUT/corpus/seed-skadnetwork"
printf '{"jws-string":"eyJhbGciOiJFUzI1NiJ9.e30.AAAA","conversion-value":1}' > "$OUT/corpus/seed-adattributionkit"

echo "fuzz: running the parsers of Apple's formats for ${SECONDS_LIMIT} s"
"$OUT/apple-formats-fuzz" -max_total_time="$SECONDS_LIMIT" -timeout=5 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$OUT/" "$OUT/corpus" > "$OUT/fuzz.log" 2>&1 || {
    tail -n 60 "$OUT/fuzz.log"
    echo "fuzz: a parser of Apple's formats failed; the input is in $OUT/ (crash-*, timeout-*, leak-* or oom-*)"
    exit 1
}
grep -E "^(Done|stat::(number_of_executed_units|new_units_added|peak_rss_mb))" "$OUT/fuzz.log"
