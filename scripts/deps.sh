#!/bin/sh
# Installs the Debian packages cohmod builds and tests with, and only the
# ones that are missing: each package is checked by its pkg-config module or
# its header, so a machine that already has everything is left untouched
# (no apt-get call at all).
set -eu

missing=""
need() { # need PACKAGE CHECK-COMMAND...
    pkg=$1; shift
    if ! "$@" >/dev/null 2>&1; then missing="$missing $pkg"; fi
}
have_header() { [ -f "/usr/include/$1" ]; }
have_pc() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1"; }
# libFuzzer's runtime, for `make fuzz` (clang -fsanitize=fuzzer).
have_fuzzer_rt() {
    ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a \
        2>/dev/null | grep -q .
}
have_cairo_driver() {
    ls /usr/lib/*/plplot*/drivers/cairo.so /usr/lib/plplot*/drivers/cairo.so 2>/dev/null | grep -q .
}

need pkg-config command -v pkg-config
need libgsl-dev have_header gsl/gsl_sf_gamma.h
need libplplot-dev have_header plplot/plplot.h
need plplot-driver-cairo have_cairo_driver
need libcsv-dev have_header csv.h
need check have_header check.h
need make command -v make
need gcc command -v gcc
need valgrind command -v valgrind
need help2man command -v help2man     # the manual page (scripts/make_man.sh)
need man-db command -v man            # its test renders it
need parallel command -v parallel     # docs/cluster.md's one-liner, tested
need clang command -v clang
need libclang-rt-dev have_fuzzer_rt
need chromium command -v chromium     # renders report.html in a test

if [ -z "$missing" ]; then
    echo "deps: all present"
    exit 0
fi

echo "deps: installing$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists; update once before the first install.
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
