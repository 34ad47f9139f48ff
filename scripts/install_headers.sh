#!/bin/sh
# Installs the public headers: include/cohmod/cohmod.h and every header of
# the source tree it reaches through `#include "..."`, followed
# recursively, into DEST (PREFIX/include/cohmod) with their tree kept and
# each such include rewritten to <cohmod/...>, so an installed program
# compiles with -I PREFIX/include alone.
#   sh scripts/install_headers.sh DEST
set -eu
dest=$1
todo="include/cohmod/cohmod.h"
done_list=""
while [ -n "$todo" ]; do
    set -- $todo
    f=$1
    shift
    todo="$*"
    case " $done_list " in *" $f "*) continue ;; esac
    done_list="$done_list $f"
    for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
        todo="$todo $inc"
    done
    out=$dest/${f#include/cohmod/}
    mkdir -p "$(dirname "$out")"
    sed 's/^#include "\([^"]*\)"/#include <cohmod\/\1>/' "$f" >"$out"
    chmod 644 "$out"
done
