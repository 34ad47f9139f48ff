#!/bin/sh
# Writes the manual page cohmod.1 from the binary's own help texts, so the
# page cannot drift from the program: help2man turns `cohmod --help` and
# `cohmod --version` into the page, and a COMMANDS section carries every
# command's `cohmod help CMD` (and each model's of `cohmod model`) verbatim.
#   sh scripts/make_man.sh BIN OUT
set -eu
bin=$1
out=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One command's help as a roff subsection, preformatted.  Backslashes are
# roff escapes and a leading dot or quote a request, so both are escaped.
section() {
    printf '.SS "cohmod %s"\n.nf\n' "$*"
    "$bin" help "$@" | sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
    printf '.fi\n'
}

{
    echo "[COMMANDS]"
    for c in $("$bin" --complete commands); do
        [ "$c" = help ] && continue
        section "$c"
        # the models of model and queue have help texts of their own
        # (validate's share the command's)
        [ "$c" = validate ] && continue
        for m in $("$bin" --complete subcommands "$c"); do
            [ "$c $m" = "model mshr" ] || section "$c" "$m"
        done
    done
    echo "[FILES]"
    echo "Shipped data (machine presets, the study's trace) is installed under"
    echo ".IR PREFIX /share/cohmod."
    echo "[SEE ALSO]"
    echo ".BR help2man (1),"
    echo ".BR parallel (1)"
} >"$tmp/commands.h2m"

help2man --no-info --section=1 \
    --name="models of GPU memory systems, calibrated against a simulator" \
    --include="$tmp/commands.h2m" --output="$tmp/cohmod.1" "$bin"
mv "$tmp/cohmod.1" "$out"
