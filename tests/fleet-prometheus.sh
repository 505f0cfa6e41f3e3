#!/bin/sh
# tests/fleet-prometheus.sh: verify --format=prometheus for node_exporter's
# textfile collector (#34), under a recorded machine and a temporary root:
# idlecfg_build_info, idlecfg_error, the time of the last success, the
# pending boot steps; a failed run writes the error gauge (atomically, the
# last success kept) instead of leaving the old file; promtool (Debian's
# prometheus) checks every file; Debian's prometheus-node-exporter reads a
# temporary textfile directory and is scraped over 127.0.0.1 (a free port,
# stopped at the end); the shipped service and timer (systemd-analyze verify).
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod python3
. "$top_srcdir/tests/fleet-lib.sh"
plan 11

root=$tmp/root
fleet_root "$root" || { echo "Bail out! no root"; exit 1; }
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
dir=$tmp/node-exporter
mkdir -p "$dir"
prom=$dir/idlecfg.prom
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"/\1/p' "$top_builddir/config.h")
# promcheck FILE: promtool check metrics (the parser and linter of
# Prometheus) accepts FILE, or no promtool: pc is 0, else 1 (said)
promtool_note=
command -v promtool >/dev/null 2>&1 || promtool_note=" (promtool not installed, Debian: prometheus: not checked by it)"
promcheck() {
        pc=0
        if command -v promtool >/dev/null 2>&1 && ! promtool check metrics <"$1" >"$tmp/promtool.out" 2>&1; then
                pc=1
                diag "promtool on $1:" "$(cat "$tmp/promtool.out")"
        fi
}

ic install --profile powersave >/dev/null 2>&1
start=$(date +%s)
ic verify --format prometheus --output "$prom" >"$tmp/p1.out" 2>&1; rc=$?
end=$(date +%s)
last=$(sed -n 's/^idlecfg_last_success_timestamp_seconds //p' "$prom")
check "verify --output: exit 0, idlecfg_build_info{version=\"$version\"} 1, idlecfg_error 0, the last success now ($last)" sh -c "
        test $rc -eq 0 && grep -qx 'idlecfg_build_info{version=\"$version\"} 1' '$prom' && grep -qx 'idlecfg_error 0' '$prom' &&
        test '${last:-0}' -ge $start && test '${last:-0}' -le $end"; last_failed && diag "exit $rc" "$(cat "$tmp/p1.out")" "$(head -12 "$prom")"
check "  the pending boot step (kernel-install): idlecfg_boot_steps_pending 1; the installed profile" sh -c "
        grep -qx 'idlecfg_boot_steps_pending 1' '$prom' && grep -qx 'idlecfg_installed{profile=\"powersave\"} 1' '$prom'"
promcheck "$prom"
check "  each metric with its HELP and TYPE gauge; promtool check metrics accepts the file$promtool_note" sh -c "
        for m in idlecfg_build_info idlecfg_error idlecfg_last_success_timestamp_seconds idlecfg_boot_steps_pending; do
                grep -q \"^# HELP \$m \" '$prom' && grep -qx \"# TYPE \$m gauge\" '$prom' || exit 1
        done; test $pc -eq 0"

# ---- a failed run: the error gauge, atomically, the last success kept ----
cp "$prom" "$tmp/prom.ok"
sleep 1
ic verify --profile no-such-profile --format prometheus --output "$prom" >"$tmp/p2.out" 2>"$tmp/p2.err"; rc=$?
promcheck "$prom"
check "a failed run (no such profile): exit 2, said, the file replaced by idlecfg_error 1 and the last success of before" sh -c "
        test $rc -eq 2 && grep -q 'no-such-profile' '$tmp/p2.err' && grep -qx 'idlecfg_error 1' '$prom' &&
        grep -qx 'idlecfg_last_success_timestamp_seconds $last' '$prom' && grep -q '^idlecfg_build_info{' '$prom' &&
        ! grep -q '^idlecfg_installed\|^idlecfg_setting_in_effect' '$prom' && test \"\$(ls -A '$dir')\" = idlecfg.prom && test $pc -eq 0" 
        last_failed && diag "exit $rc" "$(cat "$tmp/p2.err")" "$(cat "$prom")"
cp "$root/var/lib/idlecfg/manifest" "$tmp/manifest"
echo garbage >"$root/var/lib/idlecfg/manifest"
ic verify --format prometheus --output "$prom" >/dev/null 2>"$tmp/p3.err"; rc=$?
ic verify --format prometheus >"$tmp/p3.out" 2>/dev/null; rc2=$?
cp "$tmp/manifest" "$root/var/lib/idlecfg/manifest"
check "a damaged manifest: exit 2, idlecfg_error 1 in the file and on stdout, no idlecfg_installed" sh -c "
        test $rc -eq 2 && test $rc2 -eq 2 && grep -qx 'idlecfg_error 1' '$prom' && grep -qx 'idlecfg_error 1' '$tmp/p3.out' &&
        grep -qx 'idlecfg_last_success_timestamp_seconds $last' '$prom' && ! grep -q '^idlecfg_installed' '$tmp/p3.out'" 
        last_failed && diag "exit $rc $rc2" "$(cat "$tmp/p3.err")" "$(cat "$tmp/p3.out")"
ic verify --format prometheus --output "$prom" >/dev/null 2>&1; rc=$?
check "the next good run: idlecfg_error 0 and a new last success" sh -c "
        test $rc -eq 0 && grep -qx 'idlecfg_error 0' '$prom' &&
        test \"\$(sed -n 's/^idlecfg_last_success_timestamp_seconds //p' '$prom')\" -gt '${last:-0}'"

# ---- the shipped units ----
service=$top_builddir/src/units/idlecfg-prometheus.service
timer=$top_srcdir/src/units/idlecfg-prometheus.timer
check "the service writes verify --format=prometheus into /var/lib/prometheus/node-exporter; the timer starts it every 15 min" sh -c "
        grep -qx 'ExecStart=/.*/idlecfg verify --format=prometheus --output=/var/lib/prometheus/node-exporter/idlecfg.prom' '$service' &&
        grep -qx 'ReadWritePaths=/var/lib/prometheus/node-exporter -/var/lib/idlecfg' '$service' &&
        grep -qx 'OnUnitActiveSec=15min' '$timer' && grep -qx 'WantedBy=timers.target' '$timer'"
if command -v systemd-analyze >/dev/null 2>&1; then
        sa=$tmp/sa-root
        bin=$(sed -n 's|^ExecStart=\(/[^ ]*\) .*|\1|p' "$service")
        mkdir -p "$sa/usr/lib/systemd/system" "$sa${bin%/*}"
        cp "$service" "$timer" "$sa/usr/lib/systemd/system/"
        # the targets of the default dependencies, empty: the root holds no systemd
        for t in sysinit shutdown timers local-fs; do
                printf '[Unit]\nDescription=%s\n' "$t" >"$sa/usr/lib/systemd/system/$t.target"
        done
        cp "$IDLECFG" "$sa$bin"
        env -u LD_PRELOAD systemd-analyze verify --man=no --root="$sa" /usr/lib/systemd/system/idlecfg-prometheus.service \
                /usr/lib/systemd/system/idlecfg-prometheus.timer >"$tmp/sa.out" 2>&1; rc=$?
        check "systemd-analyze verify of the service and the timer: clean" sh -c "test $rc -eq 0 && ! test -s '$tmp/sa.out'" 
                last_failed && diag "$(cat "$tmp/sa.out")"
else
        skip "systemd-analyze verify of the service and the timer" "no systemd-analyze"
fi
# the service's own command line, its directory a temporary one
cmd=$(sed -n 's|^ExecStart=||p' "$service" | sed "s|^[^ ]*/idlecfg |$IDLECFG --root $root --kernel $KVER |; s|/var/lib/prometheus/node-exporter/|$dir/|")
rm -f "$prom"
$cmd >/dev/null 2>&1; rc=$?
check "  its ExecStart (directory and root made temporary) writes the file: exit 0, the gauges" sh -c "
        test $rc -eq 0 && grep -qx 'idlecfg_error 0' '$prom' && grep -q '^idlecfg_setting_in_effect{' '$prom'"

# ---- node_exporter reads the directory; scraped over the loopback address ----
exporter=$(command -v prometheus-node-exporter || command -v node_exporter)
# a free port on the loopback address; none where the loopback is down (a
# package build in a network namespace of its own, as buildds run)
port=$(python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
socket.create_connection(s.getsockname(), timeout=5).close()
print(s.getsockname()[1])' 2>/dev/null)
if [ -z "$port" ]; then
        skip "node_exporter's textfile collector serves the metrics" "no loopback network here (nothing answers on 127.0.0.1)"
        skip "  after a failed run: the exporter serves idlecfg_error 1" "no loopback network here (nothing answers on 127.0.0.1)"
elif [ -n "$exporter" ]; then
        env -u LD_PRELOAD "$exporter" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
                --collector.textfile --collector.textfile.directory="$dir" >"$tmp/exporter.log" 2>&1 &
        pid=$!
        trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
        # scrape: up to 20 s for the exporter to listen
        scrape() {
                env -u LD_PRELOAD python3 - "$port" "$1" <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        body = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read()
        open(sys.argv[2], "wb").write(body)
        sys.exit(0)
    except OSError:
        time.sleep(0.2)
sys.exit("no answer from the exporter")
PY
        }
        scrape "$tmp/scrape1"; rc=$?
        promcheck "$tmp/scrape1"
        check "node_exporter's textfile collector serves the metrics, typed, no scrape error; promtool accepts the scrape" sh -c "
                test $rc -eq 0 && grep -qx '# TYPE idlecfg_build_info gauge' '$tmp/scrape1' && grep -qx 'idlecfg_error 0' '$tmp/scrape1' &&
                grep -qx '# TYPE idlecfg_setting_in_effect gauge' '$tmp/scrape1' && grep -q '^idlecfg_boot_steps_pending 1\$' '$tmp/scrape1' &&
                grep -q '^node_textfile_scrape_error 0\$' '$tmp/scrape1' && test $pc -eq 0" 
                last_failed && diag "$(grep -v '^#' "$tmp/scrape1" 2>/dev/null | grep -v '^go_\|^process_\|^promhttp_' | head -20)" "$(cat "$tmp/exporter.log" | tail -5)"
        ic verify --profile no-such-profile --format prometheus --output "$prom" >/dev/null 2>&1
        scrape "$tmp/scrape2"; rc=$?
        check "  after a failed run: the exporter serves idlecfg_error 1 and the last success" sh -c "
                test $rc -eq 0 && grep -qx 'idlecfg_error 1' '$tmp/scrape2' && grep -q '^idlecfg_last_success_timestamp_seconds ' '$tmp/scrape2' &&
                ! grep -q '^idlecfg_setting_in_effect' '$tmp/scrape2' && grep -q '^node_textfile_scrape_error 0\$' '$tmp/scrape2'"
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        trap 'rm -rf "$tmp"' EXIT
else
        skip "node_exporter's textfile collector serves the metrics" "prometheus-node-exporter not installed"
        skip "  after a failed run: the exporter serves idlecfg_error 1" "prometheus-node-exporter not installed"
fi
done_testing
