# tests/vm/installers.sh: sourced by tests/vm/check-vm.sh (make check-vm): the
# two ways an installer runs idlecfg, each booted on the machine after its
# baseline boot, for one profile (IDLECFG_VM_INSTALLER_PROFILE, default
# balanced; IDLECFG_VM_INSTALLERS=no leaves them out).
#
# The package is a .deb as a distribution builds it: make install DESTDIR of
# the package build (--prefix=/usr) with src/hooks' triggers, postinst, prerm
# and postrm as its maintainer scripts and the kernel hook in
# /etc/kernel/postinst.d, depending on libinih1 (which the minbase root lacks;
# fetched once with apt-get download into the cache). In each root it goes in
# with dpkg -i in a chroot, as an installer's in-target apt-get does.
#
# (a) debian-installer style: chroot ROOT idlecfg install --json, with /proc,
#     /sys and /dev bound into ROOT (in a mount namespace of its own; /sys and
#     /proc/sys read only, so nothing reaches this machine's live settings)
#     and the VM's umockdev recording as /sys (the preload library is the
#     root's own umockdev), while this machine runs its own kernel, not the
#     root's. The next steps its JSON gives run in that chroot, unless one
#     would touch the live system (udevadm, sysctl, systemd-tmpfiles,
#     modprobe, systemctl): that is a failure, and it is not run.
# (b) idlecfg install --root ROOT --json from outside, under the recording;
#     its next steps run as given (chroot ROOT ...).
# Both must plan for the root's kernel, write the same files (contents,
# modes, directories) and boot with every planned setting in effect
# (compare.py against the baseline). Then dpkg --purge idlecfg in root (a)
# must take back what install wrote: idlecfg's files, /var/lib/idlecfg, the
# lock, /etc/kernel/cmdline as before.

# the number of test points per machine
installer_npoints() {
        [ "${IDLECFG_VM_INSTALLERS:-yes}" = no ] && { echo 0; return; }
        echo 18
}
installer_profile=${IDLECFG_VM_INSTALLER_PROFILE:-balanced}

# once per run, after the package build: $work/installer/idlecfg.deb and
# libinih1's .deb from the cache
installer_prepare() {
        installer_why=
        [ "${IDLECFG_VM_INSTALLERS:-yes}" = no ] && return 0
        i_id=$work/installer
        rm -rf "$i_id"
        mkdir -p "$i_id/debs"
        [ "$pkg_rc" -eq 0 ] || { installer_why="the package did not build"; return 1; }
        command -v dpkg-deb >/dev/null || { installer_why="dpkg-deb not installed"; return 1; }
        i_t=$i_id/tree
        make -s -C "$pkg" install DESTDIR="$i_t" >"$i_id/make-install.log" 2>&1 ||
                { installer_why="make install DESTDIR failed: $(tail -n 5 "$i_id/make-install.log")"; return 1; }
        mkdir -p "$i_t/DEBIAN" "$i_t/etc/kernel/postinst.d"
        install -m 755 "$top_srcdir/src/hooks/kernel-postinst.sh" "$i_t/etc/kernel/postinst.d/zz-idlecfg"
        cp "$top_srcdir/src/hooks/dpkg.triggers" "$i_t/DEBIAN/triggers"
        for i_s in postinst prerm postrm; do
                install -m 755 "$top_srcdir/src/hooks/dpkg.$i_s" "$i_t/DEBIAN/$i_s"
        done
        echo /etc/kernel/postinst.d/zz-idlecfg >"$i_t/DEBIAN/conffiles"
        i_v=$("$pkg/src/idlecfg" --version 2>/dev/null | awk 'NR == 1 { print $NF }')
        printf 'Package: idlecfg\nVersion: %s\nArchitecture: %s\nDepends: libinih1, libudev1\nMaintainer: idlecfg check-vm <check-vm@invalid>\nDescription: idle power configuration (make check-vm)\n' \
                "${i_v:-0}" "$(dpkg --print-architecture)" >"$i_t/DEBIAN/control"
        dpkg-deb --root-owner-group --build "$i_t" "$i_id/debs/idlecfg.deb" >"$i_id/dpkg-deb.log" 2>&1 ||
                { installer_why="dpkg-deb --build failed: $(cat "$i_id/dpkg-deb.log")"; return 1; }
        # libinih1 for the root's suite, fetched once into the cache (shared
        # with other runs: under the cache's lock)
        i_c=$cache/installer
        i_want="libinih1 for $suite: $(apt-cache policy libinih1 2>/dev/null | awk '/Candidate:/ { print $2 }')"
        (
                flock 9
                if [ ! -f "$i_c/key" ] || [ "$(cat "$i_c/key")" != "$i_want" ] || ! ls "$i_c"/libinih1_*.deb >/dev/null 2>&1; then
                        apt-cache policy libinih1 2>/dev/null | grep -q " $suite[/ ]" || exit 1
                        rm -rf "$i_c" && mkdir -p "$i_c" && (cd "$i_c" && apt-get download -q libinih1) >"$i_id/download.log" 2>&1 || exit 1
                        echo "$i_want" >"$i_c/key"
                fi
        ) 9>"$cache/lock" || { installer_why="libinih1 for $suite: not in this machine's apt sources, or apt-get download failed"; return 1; }
        cp "$i_c"/libinih1_*.deb "$i_id/debs/"
}

# installer_root ROOT LOG: a fresh root with the package, dpkg -i in a chroot
installer_root() {
        unpack_root "$1" || return 1
        mkdir -p "$1/tmp/installer-debs"
        cp "$work/installer/debs/"*.deb "$1/tmp/installer-debs/"
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 nice chroot "$1" sh -c 'dpkg -i /tmp/installer-debs/*.deb' >"$2" 2>&1 || return 1
        rm -rf "$1/tmp/installer-debs"
        [ -x "$1/usr/sbin/idlecfg" ] && [ -f "$1/usr/share/idlecfg/profiles/$installer_profile.profile" ]
}

# in_chroot ROOT CMD...: CMD in a chroot of ROOT as an installer runs it: /proc,
# /sys and /dev bound (in a mount namespace of this command only; /sys and
# /proc/sys read only), the VM's recording as /sys (umockdev: its directory
# bound into the root, whose own preload library loads). in_chroot_steps: the
# same without the recording, for the next steps (update-initramfs, ...),
# which act on the root's files, not on the machine (under umockdev's
# preload depmod would take a directory named dev in the module tree for /dev)
installer_binds='
        set -e
        r=$1
        shift
        for d in proc sys dev; do mount --rbind "/$d" "$r/$d"; done
        mount -o remount,bind,ro "$r/sys"
        mount --bind "$r/proc/sys" "$r/proc/sys"
        mount -o remount,bind,ro "$r/proc/sys"
        if [ -n "${UMOCKDEV_DIR:-}" ]; then
                mkdir -p "$r$UMOCKDEV_DIR"
                mount --bind "$UMOCKDEV_DIR" "$r$UMOCKDEV_DIR"
                exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 LD_PRELOAD="$LD_PRELOAD" UMOCKDEV_DIR="$UMOCKDEV_DIR" \
                        chroot "$r" "$@"
        fi
        exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 chroot "$r" "$@"'
in_chroot() {
        nice "$top_srcdir/tests/run-machine" "$mw/machine" unshare -m --propagation private sh -c "$installer_binds" sh "$@"
}
in_chroot_steps() {
        env -u UMOCKDEV_DIR -u LD_PRELOAD nice unshare -m --propagation private sh -c "$installer_binds" sh "$@"
}

# installer_check JSON EXIT ROOT-OR-- : install's JSON is valid, its exit 0 or
# 4 (done; done but the boot configuration lacks something: the steps), it
# planned for the root's kernel $kver; prints what is wrong
installer_check() {
        python3 - "$1" "$2" "$kver" <<'PY'
import json, sys
path, rc, kver = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    j = json.load(open(path))
except Exception as e:
    print("no JSON: %s" % e)
    sys.exit(1)
bad = []
if rc not in (0, 4):
    bad.append("exit %d (0 or 4 expected)" % rc)
k = j.get("kernel")
if isinstance(k, dict):
    k = k.get("version") or k.get("release") or k.get("name")
if k != kver:
    bad.append("planned for kernel %r, not the root's %s (kernel in the JSON: %s)" % (k, kver, json.dumps(j.get("kernel"))))
if not j.get("files"):
    bad.append("no files written")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
}

# installer_steps JSON ROOT MODE >STEPS: the next steps of install's JSON, one
# a line as shell words to run in the chroot of ROOT; MODE chroot: idlecfg ran
# in the chroot (a step runs as given, or as "chroot / ..."); outside: every
# step must be "chroot ROOT ...", ROOT its own word. A step that would touch
# the live system, or one the harness does not know, becomes a "bad" line.
installer_steps() {
        python3 - "$1" "$2" "$3" <<'PY'
import json, shlex, sys
root, mode = sys.argv[2], sys.argv[3]
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    print("bad\tno JSON from install: %s" % e)
    sys.exit(0)
LIVE = {"udevadm", "sysctl", "systemd-tmpfiles", "modprobe", "systemctl", "rmmod", "insmod"}
KNOWN = {"update-initramfs", "dracut", "kernel-install", "update-grub", "grub-mkconfig", "grub2-mkconfig", "mkinitcpio", "bootctl"}
for s in j.get("next_steps") or []:
    if isinstance(s, dict):
        argv = s.get("argv") or s.get("command") or s.get("cmd")
    else:
        argv = s
    if isinstance(argv, str):
        argv = shlex.split(argv)
    if not isinstance(argv, list) or not argv or not all(isinstance(w, str) for w in argv):
        print("bad\tnot a command: %s" % json.dumps(s))
        continue
    shown = shlex.join(argv)
    if argv[0] == "chroot":
        want = "/" if mode == "chroot" else root
        if len(argv) < 3 or argv[1].rstrip("/") != want.rstrip("/"):
            print("bad\tchroot into %r, not %s: %s" % (argv[1] if len(argv) > 1 else "", want, shown))
            continue
        argv = argv[2:]
    elif mode == "outside":
        print("bad\truns on this machine, not in the target: %s" % shown)
        continue
    name = argv[0].rsplit("/", 1)[-1]
    if name in LIVE:
        print("bad\ttouches the live system: %s" % shown)
    elif name not in KNOWN:
        print("bad\tunknown to the harness: %s" % shown)
    else:
        print("run\t" + shlex.join(argv))
PY
}

# installer_run_steps ROOT MODE NAME: the steps of $i_d/NAME.json; pass/fail
installer_run_steps() {
        i_r=$1 i_mode=$2 i_n=$3
        installer_steps "$i_d/$i_n.json" "$i_r" "$i_mode" >"$i_d/$i_n.steps" 2>&1
        i_ok=true
        grep -q '^run	' "$i_d/$i_n.steps" || grep -q . "$i_d/$i_n.steps" || true
        grep -v '^run	' "$i_d/$i_n.steps" | grep -q . && i_ok=false
        : >"$i_d/$i_n.steps.log"
        while IFS= read -r i_line; do
                case $i_line in "run	"*) ;; *) continue ;; esac
                eval "set -- ${i_line#run	}"
                i_t=$(date +%s)
                if [ "$i_mode" = chroot ]; then
                        in_chroot_steps "$i_r" "$@" >>"$i_d/$i_n.steps.log" 2>&1
                else
                        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 nice chroot "$i_r" "$@" >>"$i_d/$i_n.steps.log" 2>&1
                fi || { i_ok=false; echo "failed: $*" >>"$i_d/$i_n.steps.log"; }
                timing "$machine installer $i_n: $*" "$(($(date +%s) - i_t))"
        done <"$i_d/$i_n.steps"
        i_shown=$(sed -n 's/^run	//p' "$i_d/$i_n.steps" | paste -sd';' | sed 's/;/; /g')
        if $i_ok; then
                inst_pass "$i_n: the next steps of the JSON ran in the chroot, none touches the live system: ${i_shown:-none}"
        else
                inst_fail "$i_n: the next steps of the JSON ran in the chroot, none touches the live system"
                diag "$(cat "$i_d/$i_n.steps" "$i_d/$i_n.steps.log")"
        fi
}

# installer_same A B: idlecfg wrote the same files into both roots (the
# manifest's file and dir lines, the files' contents, modes and owners,
# /etc/kernel/cmdline)
installer_same() {
        python3 - "$1" "$2" <<'PY'
import hashlib, os, sys
roots = sys.argv[1:3]
def state(r):
    lines = open(os.path.join(r, "var/lib/idlecfg/manifest")).read().splitlines()
    kept = sorted(l for l in lines if l.split(" ", 1)[0] in ("file", "dir", "cmdline", "profile", "kernel", "fingerprint"))
    files = {}
    for l in lines:
        w = l.split()
        if w and w[0] == "file":
            p = os.path.join(r, w[1].lstrip("/"))
            st = os.lstat(p)
            files[w[1]] = (hashlib.sha256(open(p, "rb").read()).hexdigest(), oct(st.st_mode), st.st_uid, st.st_gid)
    files["/etc/kernel/cmdline"] = open(os.path.join(r, "etc/kernel/cmdline")).read()
    return kept, files
(ka, fa), (kb, fb) = state(roots[0]), state(roots[1])
bad = []
for l in sorted(set(ka) ^ set(kb)):
    bad.append("manifest line only in %s: %s" % ("(a)" if l in ka else "(b)", l))
for p in sorted(set(fa) | set(fb)):
    if fa.get(p) != fb.get(p):
        bad.append("%s differs: (a) %s, (b) %s" % (p, fa.get(p), fb.get(p)))
print("\n".join(bad) if bad else "%d files" % (len(fa) - 1))
sys.exit(1 if bad else 0)
PY
}

# installer_boot NAME ROOT: boot, then compare.py against the baseline (5 points)
installer_boot() {
        i_n=$1 i_r=$2
        ic plan --json --root "$i_r" --profile "$installer_profile" >"$i_d/$i_n.plan.json" 2>"$i_d/$i_n.plan.err"
        if boot "installer-$i_n" "$i_r"; then
                inst_pass "$i_n: boot with what the installer left and '$(cat "$i_r/etc/kernel/cmdline")': powered off by itself ($boot_secs s)"
        else
                inst_fail "$i_n: boot with what the installer left"
                return 1
        fi
        python3 "$vmdir/compare.py" "$i_d/$i_n.plan.json" "$base/snapshot.txt" "$mw/installer-$i_n/out/snapshot.txt" \
                "$base/vm.umockdev" >"$i_d/$i_n.compare.out" 2>&1
        i_c=0
        while IFS= read -r i_line; do
                case $i_line in
                "ok	"*) inst_pass "$i_n: ${i_line#ok	}"; i_c=$((i_c + 1)) ;;
                "not ok	"*) inst_fail "$i_n: ${i_line#not ok	}"; i_c=$((i_c + 1)) ;;
                "# "*) echo "$i_line" ;;
                *) diag "$i_line" ;;
                esac
        done <"$i_d/$i_n.compare.out"
        [ $i_c -eq 4 ] || inst_fail "$i_n: compare.py gave $i_c results, not 4"
}

# installer_flows: both flows on $machine after its baseline boot
installer_flows() {
        i_np=$(installer_npoints)
        [ "$i_np" -eq 0 ] && return 0
        inst_left=$i_np
        inst_pass() { inst_left=$((inst_left - 1)); pass "installer: $*"; }
        inst_fail() { inst_left=$((inst_left - 1)); fail "installer: $*"; }
        i_d=$mw/installer
        rm -rf "$i_d"
        mkdir -p "$i_d"
        p=$installer_profile
        if [ -n "$installer_why" ]; then
                while [ $inst_left -gt 0 ]; do inst_left=$((inst_left - 1)); left=$((left - 1)); skip "$machine: installer flows: $installer_why"; done
                return 0
        fi
        if [ ! -s "$mw/machine/machine.umockdev" ] || [ -z "$base" ]; then
                while [ $inst_left -gt 0 ]; do inst_fail "(not reached: no baseline recording)"; done
                return 1
        fi
        i_ti=$(date +%s)
        ra=$i_d/chroot-root
        rb=$i_d/outside-root
        # (a) the package with dpkg, then idlecfg install inside the chroot
        if installer_root "$ra" "$i_d/chroot.dpkg.log"; then
                inst_pass "chroot: the .deb (make install DESTDIR, src/hooks' maintainer scripts) and libinih1 installed into the root with dpkg -i in a chroot"
        else
                inst_fail "chroot: the .deb and libinih1 installed into the root with dpkg -i in a chroot"
                diag "$(tail -n 20 "$i_d/chroot.dpkg.log")"
        fi
        in_chroot "$ra" idlecfg install --json --profile "$p" >"$i_d/chroot.json" 2>"$i_d/chroot.err"
        i_rc=$?
        if i_why=$(installer_check "$i_d/chroot.json" $i_rc); then
                inst_pass "chroot: chroot ROOT idlecfg install --json --profile $p (this machine runs $(uname -r), the root has $kver; /proc, /sys, /dev bound): exit $i_rc, planned for $kver"
        else
                inst_fail "chroot: chroot ROOT idlecfg install --json --profile $p (this machine runs $(uname -r), the root has $kver): $i_why"
                diag "$(cat "$i_d/chroot.err")"
        fi
        installer_run_steps "$ra" chroot chroot
        # (b) the package with dpkg, then idlecfg install --root from outside
        if installer_root "$rb" "$i_d/outside.dpkg.log"; then
                inst_pass "outside: the same .deb and libinih1 installed into a second root with dpkg -i in a chroot"
        else
                inst_fail "outside: the same .deb and libinih1 installed into a second root with dpkg -i in a chroot"
                diag "$(tail -n 20 "$i_d/outside.dpkg.log")"
        fi
        ic install --root "$rb" --json --profile "$p" >"$i_d/outside.json" 2>"$i_d/outside.err"
        i_rc=$?
        if i_why=$(installer_check "$i_d/outside.json" $i_rc); then
                inst_pass "outside: idlecfg install --root ROOT --json --profile $p: exit $i_rc, planned for $kver"
        else
                inst_fail "outside: idlecfg install --root ROOT --json --profile $p: $i_why"
                diag "$(cat "$i_d/outside.err")"
        fi
        installer_run_steps "$rb" outside outside
        if i_why=$(installer_same "$ra" "$rb" 2>&1); then
                inst_pass "both flows wrote the same files for the same target ($i_why, contents, modes, the manifest's file and dir lines, /etc/kernel/cmdline)"
        else
                inst_fail "both flows wrote the same files for the same target"
                diag "$i_why"
        fi
        timing "$machine installer flows: host side (roots, dpkg, install, steps)" "$(($(date +%s) - i_ti))"
        installer_boot chroot "$ra" || true
        while [ $inst_left -gt 6 ]; do inst_fail "chroot: (not reached: the boot failed)"; done
        installer_boot outside "$rb" || true
        while [ $inst_left -gt 1 ]; do inst_fail "outside: (not reached: the boot failed)"; done
        # dpkg --purge in root (a): what install wrote goes, the root as before it
        i_files=$(awk '$1 == "file" && $NF == "new" { print $2 }' "$ra/var/lib/idlecfg/manifest" 2>/dev/null)
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 chroot "$ra" dpkg --purge idlecfg >"$i_d/purge.log" 2>&1
        i_rc=$?
        i_left=
        for i_f in $i_files /var/lib/idlecfg /run/idlecfg.lock /usr/sbin/idlecfg; do
                [ -e "$ra$i_f" ] && i_left="$i_left $i_f"
        done
        if [ $i_rc -eq 0 ] && [ -n "$i_files" ] && [ -z "$i_left" ] && [ "$(cat "$ra/etc/kernel/cmdline")" = "$base_cmdline" ] &&
           grep -q 'rolling back' "$i_d/purge.log"; then
                inst_pass "chroot: dpkg --purge idlecfg in the chroot rolled back and said so: $(echo $i_files | wc -w) files, /var/lib/idlecfg and the lock gone, /etc/kernel/cmdline as before"
        else
                inst_fail "chroot: dpkg --purge idlecfg in the chroot (exit $i_rc) rolled back; left:${i_left:- nothing}"
                diag "$(cat "$i_d/purge.log")" "/etc/kernel/cmdline: $(cat "$ra/etc/kernel/cmdline")"
        fi
        rm -rf "$ra" "$rb"
        while [ $inst_left -gt 0 ]; do inst_fail "(not reached)"; done
}
