#!/bin/sh
# Model-checks the Promela models of Tutti's protocols with Spin: for each model, safety
# (assertions and no invalid end state, without the LTL claims) and then every LTL property it
# names (`ltl NAME { ... }`: liveness, under weak fairness). Needs spin and gcc.
# Usage: verification/check.sh [MODEL.pml ...]   (default: every model here)
set -eu
cd "$(dirname "$0")"
models="${*:-$(ls ./*.pml | xargs -n1 basename)}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for model in $models; do
    [ -f "$model" ] || { echo "$model: no such model here" >&2; exit 2; }
    cp "$model" "$work/"
    (
        cd "$work"
        spin -a "$model" > /dev/null
        gcc -O2 -DSAFETY -DNOCLAIM -DCOLLAPSE -o pan-safety pan.c
        ./pan-safety -m200000 > safety.out 2>&1 || true
        cat safety.out
        if grep -q "max search depth too small" safety.out; then
            echo "$model: the search was cut off by the depth limit: raise -m" >&2
            exit 1
        fi
        grep -q "errors: 0" safety.out || { echo "$model: safety errors (run spin -t on the trail by hand)" >&2; exit 1; }
        echo "$model: safety, no errors"
        for ltl in $(sed -n 's/^ltl \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$model"); do
            [ -x pan-live ] || gcc -O2 -DCOLLAPSE -o pan-live pan.c
            ./pan-live -a -f -m200000 -N "$ltl" > "$ltl.out" 2>&1 || true
            cat "$ltl.out"
            if grep -q "max search depth too small" "$ltl.out"; then
                echo "$model: $ltl: the search was cut off by the depth limit: raise -m" >&2
                exit 1
            fi
            grep -q "errors: 0" "$ltl.out" || { echo "$model: $ltl violated (acceptance cycle)" >&2; exit 1; }
            echo "$model: $ltl holds (weak fairness)"
        done
    ) || status=1
done
exit $status
