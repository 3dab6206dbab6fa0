#!/bin/bash
# The launcher's own start-up cache, on and off by turns: the launcher as the tutti script starts it,
# with and without the flags the script adds when the cache exists. Run from the top of the source
# tree after one `./tutti run` has made the cache. Prints: what, on/off, wall s, CPU s (user + sys,
# the launcher's and its children's).
set -euo pipefail
rounds=${1:-8}
J=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
lib="$(cd tutti-cli/target/tutti/lib && pwd -P)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tutti/launcher-$(printf '%s' "$lib" | sha256sum | cut -c1-16).aot"
[ -f "$cache" ] || { echo "no launcher cache at $cache: run ./tutti run once first" >&2; exit 1; }
on=(-XX:AOTCache="$cache" -Xlog:aot=off,cds=off)
tc=tutti-system-tests/target/test-classes
echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) cache $cache"
for i in $(seq 1 "$rounds"); do
    for what in version run; do
        for mode in off on; do
            flags=()
            [ "$mode" = on ] && flags=("${on[@]}")
            if [ "$what" = version ]; then args=(--version); else args=(run -n 2 --cp "$tc" io.tutti.systest.FirstBarrier); fi
            /usr/bin/time -f "$what $mode %e %U %S" "$J" "${flags[@]}" --enable-native-access=ALL-UNNAMED \
                -cp "$lib/*" io.tutti.cli.Main "${args[@]}" 2>&1 >/dev/null | tail -1
        done
    done
done
