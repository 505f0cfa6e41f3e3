#!/bin/sh
# tests/fuzz/libfuzzer.sh: build the fuzz targets with clang's libFuzzer, ASan and UBSan, and run
# each for FUZZ_TIME seconds (TAP). Run by "make fuzz" (300 s each) and by .ci/run (a short run).
#
# From the Makefile, in the build directory: FUZZ_CC (clang), FUZZ_TARGETS, FUZZ_SOURCES (the
# library's sources, relative to top_srcdir), FUZZ_CPPFLAGS and FUZZ_LIBS (as the Makefile has
# them: evaluated by the shell, as make would), FUZZ_TIME, top_srcdir, top_builddir; FUZZ_JOBS
# targets run at once (default: the number of CPUs).
# Found crashes stay in tests/fuzz/libfuzzer/artifacts/ of the build directory; what the runs
# learnt stays in tests/fuzz/libfuzzer/corpus/ for the next run.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
FUZZ_TIME=${FUZZ_TIME:-300}
FUZZ_CC=${FUZZ_CC:-}
FUZZ_CPPFLAGS=${FUZZ_CPPFLAGS:-} FUZZ_LIBS=${FUZZ_LIBS:-} FUZZ_SOURCES=${FUZZ_SOURCES:-} FUZZ_TARGETS=${FUZZ_TARGETS:-}
export FUZZ_CC FUZZ_CPPFLAGS top_srcdir
jobs=$(nproc 2>/dev/null || echo 2)

skip_all() { echo "1..0 # SKIP $*"; exit 0; }
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
diag() { sed 's/^/# /'; }

[ -n "$FUZZ_CC" ] && command -v "$FUZZ_CC" >/dev/null 2>&1 || skip_all "no clang (configure looks for clang, or set FUZZ_CC)"

out=$top_builddir/tests/fuzz/libfuzzer
mkdir -p "$out/obj" "$out/corpus" "$out/artifacts"
# the scratch files of the targets: in memory when possible, and removed even after a crash
scratch=$(mktemp -d /dev/shm/idlecfg-fuzz-run.XXXXXX 2>/dev/null || mktemp -d "${TMPDIR:-/tmp}/idlecfg-fuzz-run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export FUZZ_TMPDIR="$scratch"

sanitize="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"
cflags="-g -O1 -fno-omit-frame-pointer"

# clang without its runtime (libclang-rt-NN-dev on Debian) compiles but cannot link
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void) d; (void) n; return 0; }\n' \
        >"$scratch/probe.c"
"$FUZZ_CC" $sanitize "$scratch/probe.c" -o "$scratch/probe" >"$scratch/probe.log" 2>&1 ||
        skip_all "$FUZZ_CC cannot link -fsanitize=fuzzer: $(head -n 1 "$scratch/probe.log") (install the clang runtime, libclang-rt-dev)"

set -- $FUZZ_TARGETS
echo "1..$(($# + 1))"

# ---- build: the library's sources once, with coverage for the fuzzer but not its main ----
build() {
        objs=
        for src in $FUZZ_SOURCES; do
                case $src in *.c) objs="$objs $out/obj/$(echo "${src%.c}" | tr / _).o" ;; esac
        done
        # the library's sources in parallel, instrumented for coverage but without libFuzzer's main
        for src in $FUZZ_SOURCES; do echo "$src"; done | grep '\.c$' | xargs -P "$jobs" -I{} sh -c '
                eval "\"\$FUZZ_CC\" $2 $FUZZ_CPPFLAGS -fsanitize=fuzzer-no-link,address,undefined \
                        -fno-sanitize-recover=all -c \"\$top_srcdir/\$1\" -o \"\$3/obj/\$(echo \${1%.c} | tr / _).o\""
                ' sh {} "$cflags" "$out" || return 1
        rm -f "$out/libidlecfg-fuzz.a"
        ${AR:-ar} rcs "$out/libidlecfg-fuzz.a" $objs || return 1
        for t in $FUZZ_TARGETS; do
                eval "\"\$FUZZ_CC\" $cflags $sanitize $FUZZ_CPPFLAGS \"\$top_srcdir/tests/fuzz/fuzz-$t.c\" \
                        \"\$out/libidlecfg-fuzz.a\" $FUZZ_LIBS -o \"\$out/fuzz-$t\"" || return 1
        done
}
start=$(date +%s)
if build >"$out/build.log" 2>&1; then
        ok "build: $# libFuzzer targets with $FUZZ_CC ($(($(date +%s) - start)) s)"
else
        not_ok "build: $# libFuzzer targets with $FUZZ_CC"
        tail -n 40 "$out/build.log" | diag
        for t in "$@"; do not_ok "fuzz-$t: not built"; done
        exit 1
fi

# ---- run: each target for FUZZ_TIME seconds on its corpus, FUZZ_JOBS (default: the
# number of CPUs) at a time; each writes its TAP line and diagnostics to $out/fuzz-$t.tap ----
fuzz_one() {
        t=$1
        corpus=$out/corpus/$t
        mkdir -p "$corpus"
        # new inputs go to the first directory (ours); the seeds in the source tree stay as they are
        dirs="$corpus $top_srcdir/tests/fuzz/$t"
        [ -d "$top_srcdir/tests/fuzz/regress/$t" ] && dirs="$dirs $top_srcdir/tests/fuzz/regress/$t"
        dict=
        [ -f "$top_srcdir/tests/fuzz/$t.dict" ] && dict="-dict=$top_srcdir/tests/fuzz/$t.dict"
        log=$out/fuzz-$t.log
        # -timeout: one input that long is a hang; -rss_limit_mb: a leak or a blow-up
        "$out/fuzz-$t" -max_total_time="$FUZZ_TIME" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
                -artifact_prefix="$out/artifacts/$t-" $dict $dirs >"$log" 2>&1
        rc=$?
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
        rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
        cov=$(sed -n 's/.*\(DONE\|pulse\|NEW\|REDUCE\|INITED\) *cov: \([0-9]*\) .*/\2/p' "$log" | tail -n 1)
        if [ "$rc" -eq 0 ]; then
                echo "ok fuzz-$t: ${runs:-?} runs in $FUZZ_TIME s (${rate:-?}/s), ${cov:-?} edges covered, no crash, leak or hang"
        else
                echo "not ok fuzz-$t: exit $rc after ${runs:-?} runs"
                grep -E '^(==[0-9]+==|SUMMARY|fuzz:|.*runtime error|    #[0-9]|artifact_prefix|Test unit written)' "$log" |
                        grep -v -e 'in fuzzer::' -e '__libc_start' -e ' in _start ' -e ' in main ' | head -n 60
                echo "log: $log"
                echo "reproduce: $out/fuzz-$t FILE; keep it as tests/fuzz/regress/$t/NAME with the fix"
        fi >"$out/fuzz-$t.tap"
}
running=0
for t in "$@"; do
        rm -f "$out/fuzz-$t.tap"
        fuzz_one "$t" &
        running=$((running + 1))
        if [ "$running" -ge "${FUZZ_JOBS:-$jobs}" ]; then
                wait
                running=0
        fi
done
wait
for t in "$@"; do
        result=$(head -n 1 "$out/fuzz-$t.tap" 2>/dev/null)
        case $result in
        "ok "*) ok "${result#ok }" ;;
        "not ok "*) not_ok "${result#not ok }"; tail -n +2 "$out/fuzz-$t.tap" | diag ;;
        *) not_ok "fuzz-$t: no result" ;;
        esac
done
[ "$failed" -eq 0 ]
