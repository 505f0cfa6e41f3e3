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
        shift 2
        verb=${*:-detect --json}
        devices=$(grep -c '^P:' "$rec")
        for i in $(seq "$runs"); do
                # wall time in microseconds from date(1), peak RSS in KiB from GNU time
                "$top/tests/run-machine" "$rec" sh -c 'out=$1; shift; s=$(date +%s%N); /usr/bin/time -f %M -o "$out.rss" "$@" >/dev/null;
                        e=$(date +%s%N); echo "$(( (e - s) / 1000 )) $(cat "$out.rss")" > "$out"' sh "$tmp/t.$i" \
                        "$idlecfg" $verb --root "$tmp/root" --kernel 6.1.0-18-amd64
        done
        cat "$tmp"/t.[0-9] "$tmp"/t.[0-9][0-9] 2>/dev/null | sort -n | awk -v name="$name" -v d="$devices" -v n="$runs" '
                { t[NR] = $1; if ($2 > rss) rss = $2 }
                END { printf "%-28s %5d devices  median %7.1f ms  max RSS %6.1f MiB  (%d runs)\n",
                             name, d, t[int((NR + 1) / 2)] / 1000, rss / 1024, n }'
        rm -f "$tmp"/t.*
}
bench "detect $(basename "$(dirname "$largest")")" "$largest"
bench "detect generated" "$tmp/gen.umockdev"
# plan: with the profiles, our hwdb and this system's whole hwdb.d in the root
mkdir -p "$tmp/root/usr/share/idlecfg/profiles" "$tmp/root/usr/lib/udev/hwdb.d"
cp "$top"/profiles/*.profile "$tmp/root/usr/share/idlecfg/profiles/"
cp /usr/lib/udev/hwdb.d/*.hwdb "$top"/hwdb/*.hwdb "$tmp/root/usr/lib/udev/hwdb.d/" 2>/dev/null || true
for m in "$top"/tests/data/machines/*/machine.umockdev; do
        bench "plan $(basename "$(dirname "$m")")" "$m" plan --profile balanced
done
# the floor under umockdev: udevadm reading the same devices through libudev
"$top/tests/run-machine" "$tmp/gen.umockdev" /usr/bin/time -f '%e %M' -o "$tmp/u" udevadm info --export-db >/dev/null
awk '{ printf "%-28s %5s          once   %6.1f ms  max RSS %6.1f MiB  (reference)\n", "udevadm info --export-db", "", $1 * 1000, $2 / 1024 }' "$tmp/u"
