#!/usr/bin/env bash
# Checks every `@available` and `#available` guard of the SDK's adapters to Apple's frameworks against Apple targets:
# the adapters (Sources/*/Apple), Platform.swift, AppAttestExpectation.swift and AppImpressionFramework.swift are type-checked for an iOS and a
# tvOS simulator at each deployment target the SDK supports, against the stand-in modules built for that platform, so
# an Apple API used on a version before the one its stand-in declares fails here as it would in Xcode.
#
# This toolchain has no standard library for Apple targets; it has the standard library's textual interface, which
# is compiled once per platform for the lowest target (cached under .build/availability, keyed by the toolchain).
# Foundation is replaced by Availability/Foundation.swift, which declares only the types these files name. Last, the
# check breaks guards on purpose, one at a time, and fails unless each broken copy is refused.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")"
sdk=$(cd .. && pwd)/Sources
bin=$(dirname "$(readlink -f "$(command -v swift)")")
frontend="$bin/swift-frontend"
interfaces="$bin/../lib/swift/linux"
toolchain=$("$frontend" --version 2>/dev/null | head -1 | tr -c 'A-Za-z0-9.\n' '_')
work=.build/availability
mkdir -p "$work"

# Xcode accepts a package whose tools version it knows: PostbackUpdate(…conversionTag:…) and appTransactionID first
# appear in the iOS 18.4 SDK (Xcode 16.3, Swift 6.1), so the manifest must not claim an older Swift.
tools=$(sed -n '1s/^\/\/ swift-tools-version:\([0-9.]*\).*/\1/p' ../Package.swift)
if [ "$(printf '%s\n6.1\n' "$tools" | sort -V | head -1)" != "6.1" ]; then
    echo "sdk/Package.swift says swift-tools-version $tools: Xcode before 16.3 (Swift 6.1) would accept it and fail to build" >&2
    exit 1
fi

# Apple's frameworks are imported only by the adapters, which are what this script checks.
if grep -lE '^\s*(@_weakLinked )?import (StoreKit|AdAttributionKit|AdServices|DeviceCheck|Security)\b' -r "$sdk" | grep -v '/Apple/' ; then
    echo "the files above import an Apple framework outside an Apple/ folder, where no availability check reaches" >&2
    exit 1
fi

# Builds the standard library, Foundation's stand-in and the five framework stand-ins for one platform's lowest target.
modules() {
    local triple=$1 dir="$work/$toolchain/$1"
    if [ ! -f "$dir/.complete" ]; then
        # (the interfaces kept out of the search path, where the compiler would rebuild from them, less well)
        rm -rf "$dir" && mkdir -p "$dir/interfaces"
        for module in Swift _Concurrency; do
            # @backDeployed bodies are not in the interface; without the attribute those members count as
            # available from their @available version only, which is stricter, never looser.
            sed -e "s/-target x86_64-unknown-linux-gnu/-target $triple/" -e 's/@backDeployed(before: [^)]*)//' \
                "$interfaces/$module.swiftmodule/x86_64-unknown-linux-gnu.swiftinterface" > "$dir/interfaces/$module.swiftinterface"
            "$frontend" -compile-module-from-interface "$dir/interfaces/$module.swiftinterface" -module-name "$module" -parse-stdlib \
                -target "$triple" -disable-availability-checking -I "$dir" -o "$dir/$module.swiftmodule"
        done
        touch "$dir/.complete"
    fi
    # The stand-ins change with the SDK: built on every run (they take a second).
    for module in Foundation StoreKit AdAttributionKit AdServices DeviceCheck Security; do
        local source=$module/$module.swift
        [ "$module" = Foundation ] && source=Availability/Foundation.swift
        "$frontend" -emit-module "$source" -module-name "$module" -parse-as-library -swift-version 6 -O -target "$triple" \
            -disable-implicit-string-processing-module-import -I "$dir" -o "$dir/$module.swiftmodule"
    done
    echo "$dir"
}

# Type-checks one library's files for a target; prints the compiler's errors and fails on any.
typecheck() {
    local triple=$1 modules=$2 library=$3
    shift 3
    local output
    if ! output=$("$frontend" -typecheck -target "$triple" -I "$modules" -swift-version 6 -module-name "$library" \
                  -disable-implicit-string-processing-module-import "$@" 2>&1); then
        grep -E 'error:' <<<"$output" | grep -v '^ ' >&2 || echo "$output" >&2
        return 1
    fi
}

coarse="$work/CoarseValue.swift"
sed -n '/^public enum CoarseValue/,/^}/p' "$sdk/LinkRunway/Models.swift" > "$coarse"
if [ ! -s "$coarse" ]; then echo "CoarseValue is no longer declared in Models.swift" >&2; exit 1; fi
linkrunway=("$sdk"/LinkRunway/Apple/*.swift "$sdk/LinkRunway/Platform.swift" "$sdk/LinkRunway/AppAttestExpectation.swift" "$coarse")
ads=("$sdk"/LinkRunwayAds/Apple/*.swift "$sdk/LinkRunwayAds/AppImpressionFramework.swift")

ios=$(modules x86_64-apple-ios15.0-simulator)
catalyst=$(modules x86_64-apple-ios15.0-macabi)
tvos=$(modules x86_64-apple-tvos15.0-simulator)
macos=$(modules x86_64-apple-macos12.0)
checked=()
for version in 15.0 16.0 17.4 18.0 18.4 26.2 27.0; do
    typecheck "x86_64-apple-ios$version-simulator" "$ios" LinkRunway "${linkrunway[@]}" Availability/Probe.swift
    typecheck "x86_64-apple-ios$version-simulator" "$ios" LinkRunwayAds "${ads[@]}" Availability/AdsProbe.swift
    checked+=("iOS $version")
done
# Mac Catalyst has the iOS frameworks, at the iOS versions.
for version in 15.0 17.4 18.4; do
    typecheck "x86_64-apple-ios$version-macabi" "$catalyst" LinkRunway "${linkrunway[@]}" Availability/Probe.swift
    typecheck "x86_64-apple-ios$version-macabi" "$catalyst" LinkRunwayAds "${ads[@]}" Availability/AdsProbe.swift
    checked+=("Mac Catalyst $version")
done
typecheck x86_64-apple-tvos15.0-simulator "$tvos" LinkRunway "${linkrunway[@]}"
typecheck x86_64-apple-tvos15.0-simulator "$tvos" LinkRunwayAds "${ads[@]}"
checked+=("tvOS 15.0")
for version in 12.0 27.0; do
    typecheck "x86_64-apple-macos$version" "$macos" LinkRunway "${linkrunway[@]}"
    typecheck "x86_64-apple-macos$version" "$macos" LinkRunwayAds "${ads[@]}"
    checked+=("macOS $version")
done

# Each guard below, broken, must be refused at iOS 15.0: a check that passes them would check nothing.
broken=$work/broken
breaks=(
    "LinkRunway/Apple/AdAttributionKitFramework.swift|#available(iOS 18.4, *)|#available(iOS 18.0, *)"
    "LinkRunway/Apple/SKAdNetworkFramework.swift|#available(iOS 16.1, *)|#available(iOS 15.4, *)"
    "LinkRunway/Platform.swift|if #available(iOS 17.4, *) { frameworks|if true { frameworks"
    "LinkRunwayAds/Apple/SystemAppImpressions.swift|#available(iOS 18.0, *) { return AppImpression|#available(iOS 17.4, *) { return AppImpression"
    "LinkRunwayAds/Apple/SystemAppImpressions.swift|if #available(iOS 26.2, *) {|if #available(iOS 18.0, *) {"
    "LinkRunway/Apple/SystemAppTransaction.swift|guard #available(iOS 27.0, macOS 27.0, tvOS 27.0, *)|guard #available(iOS 18.0, macOS 27.0, tvOS 27.0, *)"
    "LinkRunway/Apple/SystemAppTransaction.swift|guard #available(iOS 16.0, tvOS 16.0, *) else { return nil }|guard true else { return nil }"
)
for entry in "${breaks[@]}"; do
    IFS='|' read -r file find replace <<<"$entry"
    rm -rf "$broken" && mkdir -p "$broken"
    library=${file%%/*}
    if [ "$library" = LinkRunway ]; then files=("${linkrunway[@]}"); else files=("${ads[@]}"); fi
    copy=()
    for source in "${files[@]}"; do
        if [ "$source" = "$sdk/$file" ]; then
            # The first occurrence only (the plain text, not a pattern).
            python3 -c 'import sys; text = open(sys.argv[1]).read(); sys.stdout.write(text.replace(sys.argv[2], sys.argv[3], 1))' \
                "$source" "$find" "$replace" > "$broken/$(basename "$source")"
            if cmp -s "$source" "$broken/$(basename "$source")"; then echo "the guard to break is no longer in $file: $find" >&2; exit 1; fi
            copy+=("$broken/$(basename "$source")")
        else
            copy+=("$source")
        fi
    done
    # Refused for its availability, not for anything else the edit could have broken.
    if typecheck x86_64-apple-ios15.0-simulator "$ios" "$library" "${copy[@]}" 2>"$broken/errors"; then
        echo "a broken guard passed the availability check ($file: $find → $replace)" >&2
        exit 1
    fi
    if ! grep -q 'is only available in' "$broken/errors"; then
        echo "a broken guard was refused, but not for its availability ($file: $find → $replace):" >&2
        cat "$broken/errors" >&2
        exit 1
    fi
done
echo "availability of Apple APIs checked for ${checked[*]}; ${#breaks[@]} broken guards refused"
