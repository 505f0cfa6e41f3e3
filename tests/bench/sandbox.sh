#!/bin/sh
# tests/bench/sandbox.sh OUT CMD [ARGS...]: run CMD (as root) where it cannot
# change the live system, for tools that are not ours (powertop --auto-tune):
#   - a mount namespace (unshare -m, private) in which every mount is
#     remounted read-only but OUT (a directory), bind-mounted writable; TMPDIR
#     is OUT/tmp (umockdev's testbed goes there);
#   - a tmpfs over /proc/sys holding copies of the sysctls power tools tune
#     (kernel defaults), so their sysctl writes go there and can be read back
#     from OUT/procsys after the run;
#   - a network namespace (unshare -n) with only lo: no interface of this
#     machine for Wake-on-LAN or Wi-Fi ioctls, no Bluetooth sockets;
#   - modprobe, iw, ethtool, hciconfig, rfkill and systemctl replaced by a stub
#     that logs its arguments to OUT/commands and does nothing.
# The masking is verified before CMD runs (every mount read-only but the two
# above, /proc/sys a tmpfs, no network interface but lo, the stubs in place);
# if any check fails CMD does not run and the exit status is 99. Writes to
# /sys go through umockdev's redirection into the testbed, which is in OUT/tmp.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 OUT CMD [ARGS...]" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "sandbox: needs root (unshare -m -n)" >&2; exit 2; }
out=$(cd "$1" && pwd)
shift
if [ -z "${IDLECFG_SANDBOXED:-}" ]; then
        IDLECFG_SANDBOXED=1 exec unshare -m -n --propagation private sh "$0" "$out" "$@"
fi

# ---- inside the namespaces ----
# remount OUT on itself first (a mount of its own, writable whatever its
# parent becomes), then bind the stubs
mount --bind "$out" "$out"
stubdir=$out/.stub
mkdir -p "$stubdir"
cat >"$stubdir/stub" <<EOF
#!/bin/sh
echo "\$(basename "\$0") \$*" >>"$out/commands"
exit 0
EOF
chmod 755 "$stubdir/stub"
: >"$out/commands"
stubbed=
for c in modprobe insmod rmmod iw ethtool hciconfig rfkill systemctl udevadm; do
        for d in /sbin /usr/sbin /bin /usr/bin; do
                p=$d/$c
                [ -e "$p" ] || continue
                p=$(readlink -f "$p")
                case " $stubbed " in *" $p "*) continue ;; esac
                mount --bind "$stubdir/stub" "$p"
                stubbed="$stubbed $p"
        done
done

# every mount read-only, deepest first does not matter for bind remounts
awk '{ print $5 }' /proc/self/mountinfo | sort -u | while IFS= read -r m; do
        case $m in "$out") continue ;; esac
        mount -o remount,bind,ro "$m" 2>/dev/null || true
done
mkdir -p "$out/tmp"
export TMPDIR="$out/tmp"
mount -t tmpfs -o mode=755,size=1m idlecfg-sandbox-procsys /proc/sys
mkdir -p /proc/sys/kernel /proc/sys/vm
echo 1 >/proc/sys/kernel/nmi_watchdog
echo 500 >/proc/sys/vm/dirty_writeback_centisecs
echo 3000 >/proc/sys/vm/dirty_expire_centisecs
echo 0 >/proc/sys/vm/laptop_mode
(cd /proc/sys && find . -type f | sort | while IFS= read -r f; do printf '%s\t%s\n' "$f" "$(cat "$f")"; done) >"$out/procsys.before"

# ---- verify the masking ----
bad=
# the mount on top at each mount point (mountinfo lists covered ones first)
awk '{ top[$5] = $6; if (!($5 in seen)) { seen[$5] = 1; order[++n] = $5 } }
     END { for (i = 1; i <= n; i++) print order[i], top[order[i]] }' /proc/self/mountinfo >"$out/mounts"
while read -r mp opts; do
        case $mp in "$out"|/proc/sys) continue ;; esac
        case " $stubbed " in *" $mp "*) continue ;; esac
        case ",$opts," in *,ro,*) ;; *) bad="$bad
  $mp is mounted read-write ($opts)" ;; esac
done <"$out/mounts"
[ "$(stat -f -c %T /proc/sys)" = tmpfs ] || bad="$bad
  /proc/sys is not the masking tmpfs"
ifs=$(awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' /proc/net/dev | grep -vx lo || true)
[ -z "$ifs" ] || bad="$bad
  network interfaces visible: $ifs"
for p in $stubbed; do
        cmp -s "$p" "$stubdir/stub" || bad="$bad
  $p is not the stub"
done
# access(2) says EROFS without writing anything
for p in /sys/power/state /sys/bus/pci/rescan /etc /var/cache /tmp /root; do
        if [ -e "$p" ] && [ -w "$p" ]; then
                bad="$bad
  $p is writable"
        fi
done
if [ -n "$bad" ]; then
        echo "sandbox: the masking is not complete, not running $1:$bad" >&2
        exit 99
fi
echo "sandbox: every mount read-only but /proc/sys (tmpfs) and $out; no network; stubs:$stubbed" >"$out/sandbox"

set +e
"$@"
rc=$?
(cd /proc/sys && find . -type f | sort | while IFS= read -r f; do printf '%s\t%s\n' "$f" "$(cat "$f")"; done) >"$out/procsys.after"
exit $rc
