#!/usr/bin/env bash
# Builds the App Attest parser fuzz target with libFuzzer and AddressSanitizer, seeds it with the real device data in
# ../shared/vectors/app-attest when present, and runs it for FUZZ_SECONDS (default 30). Any crash fails.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_LIMIT="${FUZZ_SECONDS:-30}"
OUT=.build/fuzz
mkdir -p "$OUT/modules" "$OUT/corpus"
SWIFTC="${SWIFTC:-swiftc}"

# RunwayCrypto as a plain module (it wraps OpenSSL; not the code under test), then the parsers, instrumented.
"$SWIFTC" -O -parse-as-library -module-name RunwayCrypto -emit-module -emit-module-path "$OUT/modules/RunwayCrypto.swiftmodule" \
    -emit-library -static -o "$OUT/libRunwayCrypto.a" -I Sources/COpenSSL Sources/RunwayCrypto/*.swift
"$SWIFTC" -O -g -parse-as-library -sanitize=fuzzer,address -module-name AppleFormats -I "$OUT/modules" -I Sources/COpenSSL \
    Sources/AppleFormats/*.swift fuzz/AppAttestFuzz.swift -L "$OUT" -lRunwayCrypto -lssl -lcrypto -o "$OUT/app-attest-fuzz" \
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
else
    echo "fuzz: $VECTORS is absent; starting from hand-made seeds only"
fi
# Hand-made seeds: an empty map, a nested array, a map with the attestation keys, a truncated byte string.
printf '\xa0' > "$OUT/corpus/seed-empty-map"
printf '\x81\x81\x81\x81\x80' > "$OUT/corpus/seed-nested"
printf '\xa3\x63fmt\x6fapple-appattest\x67attStmt\xa0\x68authData\x40' > "$OUT/corpus/seed-attestation"
printf '\x5a\xff\xff\xff\xff\x00' > "$OUT/corpus/seed-truncated"

echo "fuzz: running the App Attest parsers for ${SECONDS_LIMIT} s"
"$OUT/app-attest-fuzz" -max_total_time="$SECONDS_LIMIT" -timeout=5 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$OUT/" "$OUT/corpus" > "$OUT/fuzz.log" 2>&1 || {
    tail -n 60 "$OUT/fuzz.log"
    echo "fuzz: the App Attest parsers failed; the input is in $OUT/ (crash-*, timeout-*, leak-* or oom-*)"
    exit 1
}
grep -E "^(Done|stat::(number_of_executed_units|new_units_added|peak_rss_mb))" "$OUT/fuzz.log"
