#!/bin/sh
# check_valgrind.sh COHMOD - a smoke set of commands under valgrind
# memcheck: every command must exit as expected (0, or 2 for the bad
# inputs) with no memcheck error and no definite leak (tests/valgrind.supp
# covers fontconfig's cache under PLplot).  Prints one line per command and
# exits 1 on the first that fails, with valgrind's report.
set -u
bin=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/cohmod-vg-XXXXXX")
trap 'rm -rf "$dir"' EXIT
prof=tests/fuzz/corpus/profile
n=0
# run EXPECTED-STATUS ARGS... (EXPECTED-STATUS: 0, 2, or 0/2 where the
# verdict is the command's own business, as fit's on one sample)
run() {
    want=$1
    shift
    n=$((n + 1))
    valgrind --quiet --error-exitcode=99 --leak-check=full \
        --show-leak-kinds=definite --errors-for-leak-kinds=definite \
        --suppressions=tests/valgrind.supp --log-file="$dir/vg.log" \
        "$bin" "$@" > "$dir/out" 2> "$dir/err"
    got=$?
    case "/$want/" in
    */"$got"/*) ok=1 ;;
    *) ok=0 ;;
    esac
    if [ "$ok" -ne 1 ] || [ -s "$dir/vg.log" ]; then
        echo "check-valgrind: FAILED (exit $got, want $want): cohmod $*"
        cat "$dir/err" "$dir/vg.log"
        exit 1
    fi
    echo "check-valgrind: ok: cohmod $*"
}
printf 'name,type,demand\ncpu,queue,2\ndisk,queue,3\nthink,delay,10\n' \
    > "$dir/st.csv"
run 0 params --csv --config li2014 --set l1.mshrs=64
run 0 model mshr --sweep l1.mshrs=8,16 --sweep wl.mem_rate=0.005,0.02 \
    --out "$dir/m.csv"
run 0 model mshr --pmf --set l1.mshrs=16
run 0 plot "$dir/m.csv" --x l1.mshrs --y p_full --by wl.mem_rate \
    --out "$dir/p.svg"
run 0 queue erlang-b --servers 32 --load 25
run 0 queue mmck --servers 2 --capacity 9000 --arrival 1.9 --service 1 \
    --pmf --out "$dir/pmf.csv"
run 0 queue mva --stations "$dir/st.csv" --population 20
run 0 reuse tests/data/traces/ls.lackey --per all --out "$dir/h.csv"
run 0 reuse tests/data/traces/ls.lackey --sample shards:0.1 --fit
run 0 mrc tests/data/traces/ls.lackey --exact --sample shards:0.5 \
    --sets 4,8 --ways 2 --plot "$dir/mrc.png" --out "$dir/mrc.csv"
run 0 cache tests/data/traces/ls.din --size 4K --ways 2 --policy lru
run 0 model lifetime --profile "$prof/tcw.csv" --lifetimes 0:2000:500 \
    --equilibrium --set model.lifetime_states=2000
run 0 model recall --profile "$prof/gpu_vini.csv" --protocol gpu-vini \
    --sweep dir.ratio=1,4
run 0 model directory --profile "$prof/gpu_vini.csv" --protocol all
run 0 sim --workload kmn --set sim.max_cycles=5000 --quiet \
    --out "$dir/s.csv"
run 0 sim --workload bh --protocol tcw --set sim.max_cycles=5000 --quiet \
    --profile-out "$dir/prof.csv" --out "$dir/tcw.csv"
run 0/2 fit mshr --samples "$dir/s.csv" --out "$dir/calib.csv" --quiet
run 0 sim --trace tests/data/simtrace/kernelslist.g --set gpu.sms=2 \
    --quiet --out "$dir/trace.csv"
run 0 litmus --protocol tcw --test mp --runs 20 --quiet
run 2 model mshr --sweep l1.mshrs=8,16 --sweep l1.mshrs=32
run 2 params --set wl.mem_rate=1e-320
run 2 sim --workload kmn --out /nonexistent/x.csv
run 2 model lifetime --profile "$prof/tcw.csv" --lifetimes 4294967296
echo "check-valgrind: $n commands, no memcheck error, no definite leak"
