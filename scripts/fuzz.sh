#!/bin/sh
# fuzz.sh BUILD SECONDS TARGET... - runs each libFuzzer target of `make
# fuzz` for SECONDS from its committed seeds (tests/fuzz/corpus/<t>) and
# past findings (tests/fuzz/regress/<t>), with the formats' dictionary.
# New inputs go to BUILD/corpus/<t>, findings to BUILD/findings/<t>/, the
# log to BUILD/logs/<t>.log.  Prints one line per target (executions,
# corpus, findings) and exits 1 when any target found something: its
# input then belongs in tests/fuzz/regress/<t>/ with the fix.
set -u
build=$1
secs=$2
shift 2
failed=""
# fontconfig's cache under PLplot's cairo driver (tests/lsan.supp) is not
# a leak of ours.
LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0"
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS UBSAN_OPTIONS
for t in "$@"; do
    mkdir -p "$build/corpus/$t" "$build/findings/$t" "$build/logs"
    dirs="$build/corpus/$t tests/fuzz/corpus/$t"
    [ -d "tests/fuzz/regress/$t" ] && dirs="$dirs tests/fuzz/regress/$t"
    extra=""
    # The CLI target's commands write on stdout and stderr; libFuzzer keeps
    # its own report.
    [ "$t" = cli ] && extra="-close_fd_mask=3"
    # shellcheck disable=SC2086
    "$build/fuzz/$t" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 \
        -max_len=8192 -dict=tests/fuzz/cohmod.dict -print_final_stats=1 \
        -artifact_prefix="$build/findings/$t/" $extra $dirs \
        > "$build/logs/$t.log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
        "$build/logs/$t.log" | tail -n 1)
    units=$(grep -o 'corp: [0-9]*/[0-9a-zA-Z]*' "$build/logs/$t.log" |
        tail -n 1)
    found=$(ls "$build/findings/$t" | wc -l)
    echo "fuzz $t: ${execs:-?} executions in ${secs} s, ${units:-corp: ?}," \
        "findings: $found"
    if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
        failed="$failed $t"
        tail -n 30 "$build/logs/$t.log" | sed "s/^/  $t| /"
    fi
done
if [ -n "$failed" ]; then
    echo "fuzz: findings in:$failed (inputs under $build/findings/)"
    exit 1
fi
echo "fuzz: no findings"
