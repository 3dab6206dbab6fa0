#!/usr/bin/env bash
# Coverage-guided fuzzing of every Jazzer target (@FuzzTest) for a bounded time each: what CI runs
# after the tests (about 20 s a target), and a longer campaign by hand, e.g.
#   FUZZ_SECONDS=3600 bench/fuzz.sh                         # an hour per target
#   FUZZ_SECONDS=600 bench/fuzz.sh DatagramFuzzTest#frames  # one target
# New inputs that reach new code go to each module's .cifuzz-corpus/ (not committed; copy the
# interesting ones into src/test/resources/<package>/<Class>Inputs/<method>/ to keep them); a
# finding is written there as crash-<sha1> and fails the run. Builds with ./mvnw -o, installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-20}
# module and target, one a line; every @FuzzTest of the project
targets=(
    "tutti-net DatagramFuzzTest#check"
    "tutti-net DatagramFuzzTest#frames"
    "tutti-net DatagramFuzzTest#tcpStream"
    "tutti-net NetConfigFuzzTest#settings"
    "tutti-core RecordFuzzTest#records"
    "tutti-core BootstrapWireFuzzTest#rendezvousFrames"
    "tutti-core BootstrapWireFuzzTest#pmiAnswers"
    "tutti-core BootstrapWireFuzzTest#pmiCommandsRoundTrip"
    "tutti-core SettingsFuzzTest#settings"
    "tutti-switch SwitchFuzzTest#packets"
    "tutti-cli HostsFuzzTest#hosts"
)
if [ "$#" -gt 0 ]; then
    chosen=()
    for t in "${targets[@]}"; do
        for want in "$@"; do
            [ "${t#* }" = "$want" ] && chosen+=("$t")
        done
    done
    targets=("${chosen[@]}")
    [ "${#targets[@]}" -gt 0 ] || { echo "bench/fuzz.sh: no target named $*" >&2; exit 2; }
fi

mkdir -p target
failed=""
for t in "${targets[@]}"; do
    module=${t%% *}
    target=${t#* }
    echo "bench/fuzz.sh: fuzzing $target ($module) for ${seconds} s"
    # -Xmx (and the direct buffers'): an input that makes a decoder allocate without bound is a
    # finding (OutOfMemoryError), not a machine that swaps. No JUnit timeout: JUnit would apply it
    # to the whole fuzzing run, which is one invocation of the test
    # -am: the module's dependencies come from this tree, not from ~/.m2 (their tests are filtered out)
    if ! JAZZER_FUZZ=1 ./mvnw -o -q -pl "$module" -am test -Dmaven.javadoc.skip -Dtest="$target" \
        -Dsurefire.failIfNoSpecifiedTests=false -Djazzer.max_duration="${seconds}s" \
        -Dtutti.test.jvm="-Xmx1g -XX:MaxDirectMemorySize=256m" >"target/fuzz-${target//#/-}.log" 2>&1; then
        failed="$failed $target"
        grep -E 'FuzzTestFinding|Caused by|^\s+at io\.tutti' "target/fuzz-${target//#/-}.log" | head -n 20 >&2 || true
    fi
    grep -E '^#[0-9]+\s+DONE' "target/fuzz-${target//#/-}.log" | tail -n 1 || true
done
if [ -n "$failed" ]; then
    echo "bench/fuzz.sh: findings in$failed (logs in target/fuzz-*.log; the inputs are in its .cifuzz-corpus/ or src/test/resources/)" >&2
    exit 1
fi
echo "bench/fuzz.sh: ${#targets[@]} targets fuzzed for ${seconds} s each, nothing found"
