# Background load for the comparison scripts: N busy processes (`while :; do :; done`, as a user
# on a shared node would see beside a job), started before the first round and stopped when the
# script exits, however it exits. Sourced, not run: start_load N.
load_pids=()
start_load() {
    local n="$1" i
    [[ "$n" =~ ^[0-9]+$ ]] || { echo "--load takes a number of busy processes, got '$n'" >&2; exit 2; }
    trap stop_load EXIT INT TERM
    for ((i = 0; i < n; i++)); do
        sh -c 'while :; do :; done' &
        load_pids+=("$!")
    done
    [[ "$n" == 0 ]] || echo "# background load: $n busy process(es), pids ${load_pids[*]}" >&2
}
stop_load() {
    [[ ${#load_pids[@]} -eq 0 ]] || kill "${load_pids[@]}" 2>/dev/null || true
    load_pids=()
}
