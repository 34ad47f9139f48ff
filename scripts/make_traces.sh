#!/bin/sh
# make_traces.sh - real CPU memory traces from valgrind's lackey tool.
#
#   scripts/make_traces.sh DIR          the test traces, into DIR
#   scripts/make_traces.sh --committed  regenerate the small traces kept in
#                                       the repository (run from its root)
#
# Models of reuse distance are checked against traces of real programs, not
# only synthetic ones, so `make test` runs this once into build/traces/
# (COHMOD_TRACES points the tests there).  Each trace is cut at a fixed
# number of data accesses (" L", " S", " M" lines) so every machine tests
# the same amount of data; valgrind's "==pid==" banner lines are kept.
# Instruction-fetch lines ("I ...") are dropped from the large traces: they
# carry no data access and would triple the size.  Inputs are generated here
# (a Park-Miller generator in awk, exact in double precision), the
# environment is emptied and the locale fixed, so the programs do the same
# work everywhere; addresses still depend on the libc and valgrind build.
#
# The committed traces were made by `--committed`:
#   data/traces/sort.lackey        sort, 200000 data accesses, no I lines
#                                  (the study's CPU trace)
#   tests/data/traces/ls.lackey    ls -l /usr/bin, 3000 data accesses with
#                                  every I line: raw lackey output
#   tests/data/traces/ls.din       the same accesses as Dinero din (L -> 0,
#                                  S -> 1; M has no din label and is left out)
#   tests/data/traces/ls.csv       the same accesses as CSV, M included
#   tests/data/traces/gzip.lackey  gzip -c, 2000 data accesses, no I lines
set -eu

command -v valgrind >/dev/null 2>&1 || {
    echo "make_traces: valgrind is missing (make deps installs it)" >&2
    exit 1
}

# The deterministic input: 200000 lines of a pseudo-random key and a label.
make_input() {
    awk 'BEGIN { x = 12345
        for (i = 0; i < 200000; i++) {
            x = (x * 16807) % 2147483647
            printf "%010d line %d\n", x, i % 977
        } }' > "$1"
}

# trace OUT ACCESSES KEEP_I PROGRAM ARGS...: the first ACCESSES data accesses
# of PROGRAM.  timeout: some programs outlive a closed log pipe under
# valgrind; cutting the pipe is what ends the others early.
trace() {
    out=$1 n=$2 keep_i=$3
    shift 3
    filter='^I '
    if [ "$keep_i" = 1 ]; then filter='^$'; fi
    env -i PATH=/usr/bin:/bin LC_ALL=C timeout 120 \
        valgrind --tool=lackey --trace-mem=yes --log-fd=3 "$@" \
        3>&1 >/dev/null 2>/dev/null |
        grep -v "$filter" |
        awk -v n="$n" '{ print } /^ [LSM] / { if (++c == n) exit }' \
        > "$out.tmp" || true
    got=$(grep -c '^ [LSM] ' "$out.tmp" || true)
    if [ "$got" -ne "$n" ]; then
        echo "make_traces: $*: $got data accesses, wanted $n" >&2
        rm -f "$out.tmp"
        return 1
    fi
    mv "$out.tmp" "$out"
}

if [ "${1:-}" = "--committed" ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    make_input "$tmp/input.txt"
    mkdir -p data/traces tests/data/traces
    trace data/traces/sort.lackey 200000 0 sort "$tmp/input.txt"
    trace tests/data/traces/ls.lackey 3000 1 ls -l /usr/bin
    trace tests/data/traces/gzip.lackey 2000 0 gzip -c "$tmp/input.txt"
    awk '/^ [LS] / { split(substr($0, 4), f, ",")
                     print ($1 == "L" ? 0 : 1), f[1], f[2] }' \
        tests/data/traces/ls.lackey > tests/data/traces/ls.din
    awk 'BEGIN { print "op,addr,size"; op["L"] = "load"
                 op["S"] = "store"; op["M"] = "modify" }
         /^ [LSM] / { split(substr($0, 4), f, ",")
                      print op[$1] ",0x" f[1] "," f[2] }' \
        tests/data/traces/ls.lackey > tests/data/traces/ls.csv
    exit 0
fi

dir=${1:?usage: make_traces.sh DIR | --committed}
mkdir -p "$dir"
make_input "$dir/input.txt"
# Two at a time: valgrind is single-threaded and this keeps the total short.
trace "$dir/ls.lackey" 1000000 0 ls -l /usr/bin &
a=$!
trace "$dir/sort.lackey" 2000000 0 sort "$dir/input.txt"
wait $a
trace "$dir/gzip.lackey" 2000000 0 gzip -c "$dir/input.txt" &
a=$!
trace "$dir/sha256sum.lackey" 1000000 0 sha256sum "$dir/input.txt"
wait $a
rm -f "$dir/input.txt"
