#!/bin/sh
# tests/fleet-output.sh: what verify writes and judges for a fleet (#34),
# under a recorded machine and a temporary root: verify --output FILE never
# replaces what is not a regular file (a FIFO, a symbolic link, a directory,
# a device node, /dev/null in a private mount namespace), keeps an existing
# file's mode and owner, and leaves no temporary file when SIGTERM ends the
# write; verify judges the installed profile (the manifest's) unless
# --profile, and says which; a manifest that exists but is refused is an
# error of verify, UNKNOWN of --nagios, no "not installed".
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod python3
. "$top_srcdir/tests/fleet-lib.sh"
plan 16

root=$tmp/root
mkroot_installed "$TESTS_DATA/machines/intel-laptop" "$root" || { echo "Bail out! no root"; exit 1; }
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
out=$tmp/out
mkdir -p "$out"
prom() { ic verify --profile balanced --format prometheus --output "$@"; }

# ---- --output FILE that is not a regular file: refused, exit 3, left as it is ----
mkfifo "$out/fifo.prom"
prom "$out/fifo.prom" >/dev/null 2>"$tmp/e1"; rc=$?
check "--output to a FIFO: exit 3, said, the FIFO left as it is, no temporary file" sh -c "
        test $rc -eq 3 && test -p '$out/fifo.prom' && grep -q 'cannot write $out/fifo.prom: not a regular file (a FIFO)' '$tmp/e1' &&
        test \$(ls -A '$out' | wc -l) -eq 1"; last_failed && diag "exit $rc" "$(cat "$tmp/e1")"
echo keep >"$out/target"
ln -s target "$out/link.prom"
prom "$out/link.prom" >/dev/null 2>"$tmp/e2"; rc=$?
check "--output to a symbolic link: exit 3, said, the link and the file it names as they were" sh -c "
        test $rc -eq 3 && test -L '$out/link.prom' && test \"\$(cat '$out/target')\" = keep &&
        grep -q 'cannot write $out/link.prom: a symbolic link' '$tmp/e2'"; last_failed && diag "exit $rc" "$(cat "$tmp/e2")"
mkdir "$out/dir.prom"
prom "$out/dir.prom" >/dev/null 2>"$tmp/e3"; rc=$?
check "--output to a directory: exit 3, said, the directory still one and empty" sh -c "
        test $rc -eq 3 && test -d '$out/dir.prom' && test -z \"\$(ls -A '$out/dir.prom')\" &&
        grep -q 'cannot write $out/dir.prom: is a directory' '$tmp/e3'"; last_failed && diag "exit $rc" "$(cat "$tmp/e3")"
if is_root && mknod "$out/null.prom" c 1 3 2>/dev/null; then
        prom "$out/null.prom" >/dev/null 2>"$tmp/e4"; rc=$?
        check "--output to a character device node: exit 3, said, the node left as it is" sh -c "
                test $rc -eq 3 && test -c '$out/null.prom' && test \"\$(stat -c %t:%T '$out/null.prom')\" = 1:3 &&
                grep -q 'not a regular file (a character device node)' '$tmp/e4'"; last_failed && diag "exit $rc" "$(cat "$tmp/e4")"
else
        skip "--output to a character device node is refused" "mknod needs root"
fi
# /dev/null itself, in a mount namespace of its own (a tmpfs on /dev with a
# null node made there): the system's /dev/null is out of reach whatever idlecfg does
# (the look at /dev without umockdev's preload, which shows its own /dev)
if root_ns; then
        E=$tmp/e5 unshare -m sh -c '
                mount --make-rprivate / && mount -t tmpfs none /dev && mknod -m 666 /dev/null c 1 3 || exit 99
                "$@" >/dev/null 2>"$E"; rc=$?
                printf "%s %s %s\n" "$rc" "$(env -u LD_PRELOAD stat -c %F /dev/null)" "$(env -u LD_PRELOAD ls -A /dev | wc -l)"' sh \
                "$IDLECFG" --root "$root" --kernel "$KVER" verify --profile balanced --format prometheus --output /dev/null \
                >"$tmp/n5"
        check "--output /dev/null (in a private mount namespace): exit 3, still the character device, nothing beside it" sh -c "
                test \"\$(cat '$tmp/n5')\" = '3 character special file 1' && grep -q 'cannot write /dev/null: not a regular file' '$tmp/e5'" 
                last_failed && diag "$(cat "$tmp/n5")" "$(cat "$tmp/e5")"
else
        skip "--output /dev/null is refused" "$why"
fi

# ---- an existing file keeps its mode and owner; a new one is 0644 ----
echo old >"$out/idlecfg.prom"
chmod 0640 "$out/idlecfg.prom"
owner=$(id -u):$(id -g)
if is_root; then
        chown 65534:65534 "$out/idlecfg.prom" && owner=65534:65534
fi
prom "$out/idlecfg.prom" >/dev/null 2>"$tmp/e6"; rc=$?
check "--output over an existing file: exit 0, replaced, its mode 0640 and owner $owner kept" sh -c "
        test $rc -eq 0 && grep -q '^idlecfg_installed' '$out/idlecfg.prom' &&
        test \"\$(stat -c %a:%u:%g '$out/idlecfg.prom')\" = 640:$owner" 
        last_failed && diag "exit $rc" "$(cat "$tmp/e6")" "$(stat -c %a:%u:%g "$out/idlecfg.prom")"

# ---- SIGTERM while the new file is written: the old one, no temporary file ----
cp "$out/idlecfg.prom" "$tmp/prom.before"
ls -A "$out" >"$tmp/ls.before"
IDLECFG_FAULT="term:1:EIO:write temporary file" prom "$out/idlecfg.prom" >/dev/null 2>"$tmp/e7"; rc=$?
check "SIGTERM during the write of --output: exit 143, the old file whole, no temporary file beside it" sh -c "
        test $rc -eq 143 && grep -q 'injected SIGTERM' '$tmp/e7' && cmp -s '$tmp/prom.before' '$out/idlecfg.prom' &&
        ls -A '$out' | cmp -s - '$tmp/ls.before'"; last_failed && diag "exit $rc" "$(cat "$tmp/e7")" "$(ls -A "$out")"

# ---- verify judges the installed profile unless --profile ----
ic install --profile powersave >/dev/null 2>&1
ic verify >"$tmp/v1" 2>&1; rc=$?
check "verify without --profile after install --profile powersave: the installed profile, said so" sh -c "
        grep -q '^Settings of profile powersave (installed, from the manifest): ' '$tmp/v1'"; last_failed && diag "exit $rc" "$(head -3 "$tmp/v1")"
ic verify --nagios >"$tmp/v2" 2>&1
ic verify --format prometheus >"$tmp/v3" 2>&1
ic verify --json >"$tmp/v4" 2>/dev/null
check "  --nagios, prometheus and --json judge powersave too" sh -c "
        grep -q '^IDLECFG [A-Z]* - profile powersave' '$tmp/v2' && grep -q '^idlecfg_installed{profile=\"powersave\"} 1\$' '$tmp/v3' &&
        python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert (d[\"profile\"], d[\"profile_reason\"]) == (\"powersave\", \"installed, from the manifest\"), d[\"profile\"]' '$tmp/v4'" 
        last_failed && diag "$(cat "$tmp/v2")" "$(head -3 "$tmp/v3")"
ic verify --profile balanced >"$tmp/v5" 2>&1
check "verify --profile balanced judges balanced, given" grep -q '^Settings of profile balanced (--profile): ' "$tmp/v5"

# ---- a manifest that exists but is refused: no "not installed" ----
m=$root/var/lib/idlecfg/manifest
cp "$m" "$tmp/manifest"
for kind in garbage cut fifo directory link-out empty; do
        rm -rf "$m"
        case $kind in
        garbage) echo 'zz garbage' >"$m" ;;
        cut) head -c 200 "$tmp/manifest" >"$m" ;;
        fifo) mkfifo "$m" ;;
        directory) mkdir "$m" ;;
        link-out) ln -s ../../../../../../../../etc/passwd "$m" ;;
        empty) : >"$m" ;;
        esac
        ic rollback >/dev/null 2>"$tmp/r.err"; want=$?
        ic verify >"$tmp/m.out" 2>"$tmp/m.err"; rc=$?
        ic verify --nagios >"$tmp/m.nagios" 2>/dev/null; nrc=$?
        ic verify --format prometheus >"$tmp/m.prom" 2>/dev/null
        check "a manifest refused ($kind): verify exits $want as rollback does and names the file; --nagios UNKNOWN (3); no idlecfg_installed 0" sh -c "
                test $want -ge 2 && test $rc -eq $want && grep -q 'var/lib/idlecfg/manifest' '$tmp/m.err' &&
                test $nrc -eq 3 && grep -q '^IDLECFG UNKNOWN' '$tmp/m.nagios' && ! grep -q 'not installed' '$tmp/m.nagios' &&
                ! grep -q '^idlecfg_installed.* 0\$' '$tmp/m.prom'" 
                last_failed && diag "rollback $want, verify $rc, nagios $nrc" "$(cat "$tmp/m.err")" "$(cat "$tmp/m.nagios")"
done
done_testing
