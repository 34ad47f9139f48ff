#!/bin/sh
# make_validity.sh - remakes data/validity.csv, the held-out errors that
# `cohmod model` prints beside its results (data/validity.h).
#
#   sh scripts/make_validity.sh [WORKDIR [SEED [OUT]]]
#
# Runs every validation on its default design (seed SEED, default 1; all
# built-in workloads on both presets), each into WORKDIR/<name> (default
# validity-runs/) with its summary in WORKDIR/<name>.log, and writes the
# concatenation of their validity.csv to OUT (default data/validity.csv).
# About an hour on two cores; --resume lets a killed run carry on.  Each
# validation is one line below: the commands a user would type.
set -e
bin=${COHMOD_BIN:-build/cohmod}
work=${1:-validity-runs}
seed=${2:-1}
out=${3:-data/validity.csv}
mkdir -p "$work"
run() { # name, then the validate arguments
    name=$1
    shift
    nice "$bin" validate "$@" --seed "$seed" --out "$work/$name" --resume \
        2> "$work/$name.log" || { cat "$work/$name.log" >&2; exit 1; }
}
run mshr mshr --design lhs:200
run reuse reuse --design lhs:200
run directory directory --design lhs:250
run recall recall --design lhs:250
run lifetime-tcs lifetime --protocol tcs --design lhs:250
run lifetime-tcw-fixed lifetime --protocol tcw-fixed --design lhs:250
run lifetime-tcw lifetime --protocol tcw --design lhs:250
tmp="$out.tmp.$$"
for name in mshr reuse directory recall lifetime-tcs lifetime-tcw-fixed \
            lifetime-tcw; do
    cat "$work/$name/validity.csv"
done | awk 'NR == 1 || !/^model,protocol,/' > "$tmp"
mv "$tmp" "$out"
