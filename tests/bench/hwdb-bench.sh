#!/bin/sh
# tests/bench/hwdb-bench.sh: hwdb_load() and hwdb_query() times and peak RSS on this system's hwdb.d
#
# Usage: tests/bench/hwdb-bench.sh [RUNS]
# Environment: HWDB_DIR (default /usr/lib/udev/hwdb.d, only read: its files are
# copied into a temporary root), HWDB_BENCH (the built tests/bench/hwdb-bench;
# compiled here with $CC when missing), top_srcdir, top_builddir,
# HWDB_BUDGET_MS (default 50: a slower median load fails the run).
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir/_build}
runs=${1:-15}
src=${HWDB_DIR:-/usr/lib/udev/hwdb.d}
budget=${HWDB_BUDGET_MS:-50}
bench=${HWDB_BENCH:-$top_builddir/tests/bench/hwdb-bench}

if ! ls "$src"/*.hwdb >/dev/null 2>&1; then
        echo "hwdb-bench: no .hwdb files in $src" >&2
        exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/idlecfg-hwdb-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$bench" ]; then
        bench=$tmp/hwdb-bench
        ${CC:-cc} -std=gnu11 -O2 -include "$top_builddir/config.h" -I"$top_srcdir/src" -I"$top_builddir" \
                "$top_srcdir/tests/bench/hwdb-bench.c" "$top_srcdir/src/db/hwdb.c" "$top_srcdir/src/base/util.c" \
                -o "$bench" || exit 1
fi

root=$tmp/root
mkdir -p "$root/usr/lib/udev/hwdb.d"
cp "$src"/*.hwdb "$root/usr/lib/udev/hwdb.d/"
ln -s usr/lib "$root/lib"
# queries: every 7th match line made into a modalias, two ways
cat "$root"/usr/lib/udev/hwdb.d/*.hwdb | grep -a '^[^ #]' | sed 's/[[:space:]]*#.*//' | awk 'NR % 7 == 1' |
        sed -e 'p' -e 's/\*/X/g' | sed -e 's/\*//g' -e 's/?/0/g' -e 's/\[!*\(.\)[^]]*\]/\1/g' >"$tmp/modaliases"

echo "hwdb.d: $src ($(ls "$src"/*.hwdb | wc -l) files, $(cat "$src"/*.hwdb | wc -c) bytes), $(nproc 2>/dev/null || echo '?') CPUs"
"$bench" "$root" "$runs" "$tmp/modaliases" | tee "$tmp/out" || exit 1

if [ -x /usr/bin/time ]; then
        /usr/bin/time -v "$bench" "$root" 1 >/dev/null 2>"$tmp/time" &&
                sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): /peak RSS, one load (time -v): /p' "$tmp/time" |
                sed 's/$/ KiB/'
fi
if command -v systemd-hwdb >/dev/null 2>&1; then
        start=$(date +%s%N)
        systemd-hwdb --root "$root" update 2>/dev/null
        end=$(date +%s%N)
        echo "for scale: systemd-hwdb update of the same files: $(( (end - start) / 1000000 )) ms"
fi

median=$(sed -n 's/^load: median \([0-9.]*\) ms.*/\1/p' "$tmp/out")
if awk -v m="$median" -v b="$budget" 'BEGIN { exit !(m + 0 <= b + 0) }'; then
        echo "budget: median load $median ms <= $budget ms"
else
        echo "budget: median load $median ms > $budget ms: too slow" >&2
        exit 1
fi
