#!/bin/sh
# check_layers.sh - the layers include only what lies below them
# (design.md "Layers"): data/ nothing above it; solvers/ data/; models/
# data/ and solvers/, never sim/ (models and simulator meet in CSV);
# sim/ data/ and solvers/; plots/ data/ only (it draws); study/ and cli/
# anything.  Prints each offending include and fails if there is one.
cd "$(dirname "$0")/.." || exit 2
bad=0
check() { # dir, allowed prefixes (regex)
    for f in "$1"/*.c "$1"/*.h; do
        [ -e "$f" ] || continue
        grep -n '^#include "[a-z_]*/' "$f" | grep -Ev "#include \"($2)/" |
            while IFS= read -r line; do
                echo "$f:$line: $1/ may include only $2" >&2
                echo x
            done
    done
}
out=$( {
    check data 'data'
    check solvers 'data|solvers'
    check models 'data|solvers|models'
    check sim 'data|solvers|sim'
    check plots 'data|plots'
} )
[ -z "$out" ] || bad=1
exit $bad
