#!/bin/sh
# Model-checks the reliable stream of the network rails (rails.pml): safety (assertions: exactly
# once, in order, intact, slots not reused early) and no invalid end states. Needs spin and gcc.
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp rails.pml "$work/"
cd "$work"
spin -a rails.pml
gcc -O2 -DSAFETY -DCOLLAPSE -o pan pan.c
./pan -m200000 > pan.out 2>&1 || true
cat pan.out
if grep -q "max search depth too small" pan.out; then
    echo "rails.pml: the search was cut off by the depth limit: raise -m" >&2
    exit 1
fi
if grep -q "errors: 0" pan.out; then
    echo "rails.pml: no errors"
else
    echo "rails.pml: errors found (a trail is in rails.pml.trail when run by hand)" >&2
    exit 1
fi
