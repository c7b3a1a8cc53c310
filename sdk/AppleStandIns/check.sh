#!/usr/bin/env bash
# Type-checks the SDK's adapters to Apple's frameworks against the stand-in modules (a wrong label, type, missing try
# or await fails the build), then checks that every reference to AdAttributionKit, from LinkRunway and LinkRunwayAds, is
# weak, so an app still launches on iOS 15 and 16, where the framework does not exist.
set -euo pipefail
cd "$(dirname "$0")"
swift build
weak=0
for library in LinkRunway LinkRunwayAds; do
    objects=(.build/debug/$library.build/*.o)
    strong=$(nm -u "${objects[@]}" | grep -E ' U \$s16AdAttributionKit' || true)
    count=$(nm -u "${objects[@]}" | grep -cE ' w \$s16AdAttributionKit' || true)
    if [ -n "$strong" ]; then
        echo "$library references AdAttributionKit strongly (import it with @_weakLinked):" >&2
        echo "$strong" >&2
        exit 1
    fi
    if [ "$count" -eq 0 ]; then
        echo "$library compiled no reference to AdAttributionKit: its adapter's #if conditions no longer hold in this build" >&2
        exit 1
    fi
    weak=$((weak + count))
done
for adapter in LinkRunway/SKAdNetworkFramework LinkRunway/AdAttributionKitFramework LinkRunway/SystemAdServices LinkRunway/SystemAppAttest \
               LinkRunway/SystemAppTransaction LinkRunway/SystemKeychain LinkRunwayAds/SystemAppImpressions; do
    # (grep reads all of nm's output: with -q it would stop early, and pipefail would see nm killed by SIGPIPE)
    if ! nm ".build/debug/${adapter%%/*}.build/${adapter#*/}.swift.o" | grep " T " > /dev/null; then
        echo "${adapter#*/}.swift compiled to nothing: its #if conditions no longer hold in this build" >&2
        exit 1
    fi
done
# The adapters call Apple's newest APIs where they exist: a branch dropped by mistake would type-check and never run.
for call in "LinkRunwayAds/SystemAppImpressions|AppImpressionV10handleView|AppImpression.handleView() (iOS 26.2)" \
            "LinkRunway/SystemAppTransaction|AppTransactionV3all|AppTransaction.all (iOS 27)" \
            "LinkRunway/AdAttributionKitFramework|PostbackUpdateV|PostbackUpdate (iOS 18)"; do
    IFS='|' read -r adapter symbol what <<<"$call"
    if ! nm -u ".build/debug/${adapter%%/*}.build/${adapter#*/}.swift.o" | grep "$symbol" > /dev/null; then
        echo "${adapter#*/}.swift no longer calls $what" >&2
        exit 1
    fi
done
echo "Apple adapters type-check against the stand-ins; AdAttributionKit is weakly referenced ($weak symbols)"
