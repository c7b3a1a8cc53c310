#!/usr/bin/env bash
# Builds three fuzz targets with libFuzzer and AddressSanitizer: Apple's formats (App Attest CBOR and objects, SKAdNetwork
# and AdAttributionKit postbacks, JWS), what clients send (JSON bodies, base64 and hex, certificates, App Store signed
# data, files of links to import, router paths, User-Agents, proxy lists) and QR logo uploads (PNG and SVG); seeds them
# with the real data in ../shared/vectors when present and hand-made seeds, and runs each for FUZZ_SECONDS (default
# 30). Any crash fails.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_LIMIT="${FUZZ_SECONDS:-30}"
OUT=.build/fuzz
mkdir -p "$OUT/modules" "$OUT/corpus"
SWIFTC="${SWIFTC:-swiftc}"
# One package name for every module, as SwiftPM gives them, so package-level access compiles.

# RunwayCrypto and RunwayJSON as plain modules (not the code under test), then Apple's formats, instrumented.
"$SWIFTC" -package-name LinkRunway -O -parse-as-library -module-name RunwayCrypto -emit-module -emit-module-path "$OUT/modules/RunwayCrypto.swiftmodule" \
    -emit-library -static -o "$OUT/libRunwayCrypto.a" -I Sources/COpenSSL Sources/RunwayCrypto/*.swift
"$SWIFTC" -package-name LinkRunway -O -parse-as-library -module-name RunwayJSON -emit-module -emit-module-path "$OUT/modules/RunwayJSON.swiftmodule" \
    -emit-library -static -o "$OUT/libRunwayJSON.a" Sources/RunwayJSON/*.swift
"$SWIFTC" -package-name LinkRunway -O -g -parse-as-library -sanitize=fuzzer,address -module-name AppleFormats -I "$OUT/modules" -I Sources/COpenSSL \
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

# The parsers of what clients send: each module built instrumented, in dependency order, then one fuzz executable.
INPUTS=$OUT/inputs
mkdir -p "$INPUTS/modules" "$INPUTS/corpus"
instrumented() { # module-name sources... (after --)
    local name=$1; shift
    "$SWIFTC" -package-name LinkRunway -O -g -parse-as-library -sanitize=fuzzer,address -module-name "$name" -emit-module \
        -emit-module-path "$INPUTS/modules/$name.swiftmodule" -emit-library -static -o "$INPUTS/lib$name.a" \
        -I "$INPUTS/modules" -I Sources/COpenSSL "$@" 2> >(grep -v "Cannot export local symbol" >&2)
}
instrumented RunwayJSON Sources/RunwayJSON/*.swift
instrumented LinkRunwayAPI Sources/LinkRunwayAPI/*.swift
instrumented RunwayCrypto Sources/RunwayCrypto/*.swift
instrumented RunwayHTTP Sources/RunwayHTTP/*.swift
instrumented AppleFormats Sources/AppleFormats/*.swift
instrumented RunwayImport Sources/RunwayImport/*.swift
"$SWIFTC" -package-name LinkRunway -O -g -sanitize=fuzzer,address -parse-as-library -module-name InputsFuzz -I "$INPUTS/modules" -I Sources/COpenSSL \
    fuzz/InputsFuzz.swift Sources/RunwayCapabilities/Links/ClientClassifier.swift Sources/RunwayCapabilities/Links/DeviceClass.swift \
    Sources/RunwayCapabilities/Links/InAppBrowsers.swift \
    Sources/RunwayCapabilities/Links/AutomatedClients.swift Sources/RunwayKit/AutomatedClientPattern.swift \
    Sources/RunwayKit/MultipartForm.swift -L "$INPUTS" \
    -lRunwayImport -lAppleFormats -lRunwayHTTP -lRunwayCrypto -lLinkRunwayAPI -lRunwayJSON -lssl -lcrypto -o "$OUT/inputs-fuzz" \
    2> >(grep -v "Cannot export local symbol" >&2)
# Seeds: request bodies, a certificate, a signed payload's shape, paths, User-Agents, proxy lists, a console form with a file.
printf '{"workspaceId":"ws_1","path":"spring","destinations":{"web":"https://example.com"},"metadata":{"a":[1,2.5e3,null,true]}}' > "$INPUTS/corpus/link"
printf '{"eventId":"e1","type":"PURCHASE","installId":"i","amount":499,"currency":"EUR","properties":{"k":"v"}}' > "$INPUTS/corpus/event"
printf '{"rules":[{"type":"INSTALL","fine":1},{"type":"PURCHASE","minAmount":100,"fine":63,"coarse":"high","lockWindow":true}]}' > "$INPUTS/corpus/schema"
printf 'eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCIiwiTUlJQyJdfQ.eyJub3RpZmljYXRpb25UeXBlIjoiVEVTVCJ9.AAAA' > "$INPUTS/corpus/jws"
printf '/v1/apps/app_123/conversion-schema' > "$INPUTS/corpus/path"
printf 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148' > "$INPUTS/corpus/ua"
printf '{"rules":[{"when":{"platforms":["ios"],"osVersion":{"min":"17"},"countries":["FR"],"languages":["fr-CA"],"devices":["tablet"]},"variants":[{"name":"a","weight":3,"url":"https://example.com/a"}]}],"utm":{"source":"s"}}' > "$INPUTS/corpus/rules"
printf 'fr-CA,fr;q=0.9, en;q=0.5' > "$INPUTS/corpus/accept-language"
printf '127.0.0.1, 10.0.0.0/8, ::1, fd00::/8' > "$INPUTS/corpus/proxies"
printf 'url,~campaign,$desktop_url,data\r\nhttps://x.app.link/a,"c,""d""",https://e.com,"{""k"":[1]}"\n' > "$INPUTS/corpus/import-csv"
printf -- '--fuzzb\r\nContent-Disposition: form-data; name="csrf"\r\n\r\nabc\r\n--fuzzb\r\nContent-Disposition: form-data; name="file"; filename="a %%22b%%22.svg"\r\nContent-Type: image/svg+xml\r\n\r\n<svg/>\r\n--fuzzb--\r\n' > "$INPUTS/corpus/multipart"
ASSN=../shared/vectors/assn-v2/apple-library-mock
if [ -d "$ASSN" ]; then
    cp "$ASSN/testCA.der" "$INPUTS/corpus/certificate"
    for signed in "$ASSN"/*.jws; do cp "$signed" "$INPUTS/corpus/signed-$(basename "$signed")"; done
fi

# QR logo uploads: the PNG decoder, the SVG reader and sanitiser and drawing a logo, compiled into one instrumented
# executable with Sources/RunwayQR (zlib and libqrencode from Debian).
QR=$OUT/qr-logos
mkdir -p "$QR/corpus"
"$SWIFTC" -package-name LinkRunway -O -g -parse-as-library -sanitize=fuzzer,address -module-name RunwayQR -I Sources/CZlib -I Sources/CQREncode \
    Sources/RunwayQR/*.swift fuzz/QRLogosFuzz.swift -lz -lqrencode -o "$OUT/qr-logos-fuzz" 2> >(grep -v "Cannot export local symbol" >&2)
# Seeds: small PNGs of each colour type (grey 1 and 16 bits, RGB with a transparent key, a palette with tRNS, grey
# and alpha, RGBA) using every filter, and SVGs with the shapes, gradients, styles and entities the sanitiser keeps.
python3 - "$QR/corpus" <<'PY'
import pathlib, struct, sys, zlib
corpus = pathlib.Path(sys.argv[1])
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
def png(width, height, depth, colour, row_bytes, extra=b""):
    rows = b"".join(bytes([y % 5]) + bytes((x * 37 + y * 11) % 256 for x in range(row_bytes)) for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + extra + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
seeds = {
    "grey-1": png(9, 3, 1, 0, 2), "grey-16": png(3, 3, 16, 0, 6, chunk(b"tRNS", b"\x00\x10")),
    "rgb-key": png(4, 4, 8, 2, 12, chunk(b"tRNS", b"\x00\x01\x00\x02\x00\x03")),
    "palette": png(5, 2, 4, 3, 3, chunk(b"PLTE", bytes(range(48))) + chunk(b"tRNS", b"\x00\x80")),
    "grey-alpha": png(3, 2, 8, 4, 6, chunk(b"tEXt", b"k\x00v")), "rgba": png(2, 5, 8, 6, 8),
}
for name, data in seeds.items():
    (corpus / f"png-{name}").write_bytes(data)
(corpus / "svg-shapes").write_text('<?xml version="1.0"?><!-- a logo --><svg xmlns="http://www.w3.org/2000/svg" width="40px" height="20">'
    '<title>x</title><g transform="translate(1,2)"><rect x="1" y="1" width="5" height="5" style="fill:#e63946;stroke:none"/>'
    '<circle cx="5" cy="5" r="2"/><polyline points="0,0 1,1"/></g></svg>')
(corpus / "svg-gradient").write_text('<svg xmlns="http://www.w3.org/2000/svg" xmlns:ed="urn:x" viewBox="0 0 10 10"><defs>'
    '<linearGradient id="g"><stop offset="0" stop-color="#abc"/></linearGradient><clipPath id="c"><ellipse rx="1" ry="2"/></clipPath></defs>'
    '<path d="M0 0h10v10z" fill="url(#g)" clip-path="url(#c)" ed:x="1" data-a=\'&amp;&#x41;&#66;\'/></svg>')
PY

run() { # name executable corpus
    echo "fuzz: running $1 for ${SECONDS_LIMIT} s"
    "$2" -max_total_time="$SECONDS_LIMIT" -timeout=5 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$OUT/$1-" "$3" > "$OUT/$1.log" 2>&1 || {
        tail -n 60 "$OUT/$1.log"
        echo "fuzz: $1 failed; the input is in $OUT/ ($1-crash-*, -timeout-*, -leak-* or -oom-*)"
        exit 1
    }
    grep -E "^(Done|stat::(number_of_executed_units|new_units_added|peak_rss_mb))" "$OUT/$1.log"
}
run apple-formats "$OUT/apple-formats-fuzz" "$OUT/corpus"
run inputs "$OUT/inputs-fuzz" "$INPUTS/corpus"
run qr-logos "$OUT/qr-logos-fuzz" "$QR/corpus"
exit 0
