#!/usr/bin/env bash
# Type-checks the SDK's adapters to Apple's frameworks against the stand-in modules (a wrong label, type, missing try
# or await fails the build), then checks that every reference to AdAttributionKit is weak, so an app still launches
# on iOS 15 and 16, where the framework does not exist.
set -euo pipefail
cd "$(dirname "$0")"
swift build
objects=(.build/debug/LinkRunway.build/*.o)
strong=$(nm -u "${objects[@]}" | grep -E ' U \$s16AdAttributionKit' || true)
weak=$(nm -u "${objects[@]}" | grep -cE ' w \$s16AdAttributionKit' || true)
if [ -n "$strong" ]; then
    echo "AdAttributionKit is referenced strongly (import it with @_weakLinked):" >&2
    echo "$strong" >&2
    exit 1
fi
if [ "$weak" -eq 0 ]; then
    echo "no reference to AdAttributionKit was compiled: the adapter's #if conditions no longer hold in this build" >&2
    exit 1
fi
for adapter in SKAdNetworkFramework AdAttributionKitFramework SystemAdServices SystemAppAttest SystemAppTransaction; do
    # (grep reads all of nm's output: with -q it would stop early, and pipefail would see nm killed by SIGPIPE)
    if ! nm .build/debug/LinkRunway.build/$adapter.swift.o | grep " T " > /dev/null; then
        echo "$adapter.swift compiled to nothing: its #if conditions no longer hold in this build" >&2
        exit 1
    fi
done
echo "Apple adapters type-check against the stand-ins; AdAttributionKit is weakly referenced ($weak symbols)"
