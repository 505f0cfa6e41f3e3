#!/bin/sh
# tests/bench/detect-bench.sh [BUILDDIR]: wall time and peak RSS of
# `idlecfg detect --json` on the largest recorded machine and on a generated
# machine of 2,000 devices, both replayed under umockdev (whose LD_PRELOAD
# redirection of every open() is included in the figures).
# Needs GNU time (Debian package "time"). Run: make bench
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/_build}
idlecfg=$build/src/idlecfg
runs=${RUNS:-7}
[ -x /usr/bin/time ] || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/root/etc"
sh "$top/tests/mkmodroot.sh" "$top/tests/data/modroot.spec" "$tmp/root" 6.1.0-18-amd64 >/dev/null

largest=$(ls -S "$top"/tests/data/machines/*/machine.umockdev | head -n 1)
sh "$top/tests/bench/gen-machine.sh" 2000 > "$tmp/gen.umockdev"

bench() {
        name=$1 rec=$2
        devices=$(grep -c '^P:' "$rec")
        for i in $(seq "$runs"); do
                "$top/tests/run-machine" "$rec" /usr/bin/time -f '%e %M' -o "$tmp/t.$i" \
                        "$idlecfg" detect --json --root "$tmp/root" --kernel 6.1.0-18-amd64 >/dev/null
        done
        cat "$tmp"/t.* | sort -n | awk -v name="$name" -v d="$devices" -v n="$runs" '
                { t[NR] = $1; if ($2 > rss) rss = $2 }
                END { printf "%-28s %5d devices  median %6.1f ms  max RSS %6.1f MiB  (%d runs)\n",
                             name, d, t[int((NR + 1) / 2)] * 1000, rss / 1024, n }'
        rm -f "$tmp"/t.*
}
bench "$(basename "$(dirname "$largest")")" "$largest"
bench "generated" "$tmp/gen.umockdev"
# the floor under umockdev: udevadm reading the same devices through libudev
"$top/tests/run-machine" "$tmp/gen.umockdev" /usr/bin/time -f '%e %M' -o "$tmp/u" udevadm info --export-db >/dev/null
awk '{ printf "%-28s %5s          once   %6.1f ms  max RSS %6.1f MiB  (reference)\n", "udevadm info --export-db", "", $1 * 1000, $2 / 1024 }' "$tmp/u"
