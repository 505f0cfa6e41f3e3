#!/bin/sh
# tests/integrations.sh: the shipped integrations of src/integrations
# (idlecfg(8), INSTALLERS). Read as their clients read them: Calamares'
# shellprocess config and settings.conf part as YAML (the instance before the
# initramfs and bootloader modules, a timeout of at least 120 s, no "-" that
# would hide every failure), the shell of each script and of the kickstart's
# %post and the preseed's late_command. Run where this machine can: the
# debian-installer hook under run-parts in a Debian 12 root (lib.sh:
# debian_root) with idlecfg installed (make install DESTDIR), through an
# emulation of in-target (policy-rc.d exiting 101, the installer's /run bound
# onto the target's /run, chroot; /sys and /proc of this machine read-only,
# in a mount namespace of its own), Calamares itself (offscreen) with the
# shipped module in its exec sequence against that root, and mkosi.finalize
# against it before and after install --image. Anaconda, mkosi and bootc
# themselves are not run here (not in Debian 12, or no image build here).
. "$top_srcdir/tests/lib.sh"
plan 14

i=$top_srcdir/src/integrations
have() { command -v "$1" >/dev/null 2>&1; }

# ---- read as their clients read them ----
if python3 -c 'import yaml' 2>/dev/null; then
        check "Calamares: shellprocess_idlecfg.conf and settings.conf.snippet as YAML: chrooted, timeout >= 120 s, no leading '-', the instance before initramfs and bootloader" \
                python3 - "$i/calamares/shellprocess_idlecfg.conf" "$i/calamares/settings.conf.snippet" <<'PY'
import sys, yaml
conf = yaml.safe_load(open(sys.argv[1]))
settings = yaml.safe_load(open(sys.argv[2]))
assert conf["dontChroot"] is False, conf
assert conf["timeout"] >= 120, conf
for s in conf["script"]:
    cmd = s["command"] if isinstance(s, dict) else s
    assert not cmd.startswith("-"), cmd
    assert "idlecfg install" in cmd and "-eq 4" in cmd, cmd
    if isinstance(s, dict) and "timeout" in s:
        assert s["timeout"] >= 120, s
inst = [x for x in settings["instances"] if x["id"] == "idlecfg"]
assert inst and inst[0]["module"] == "shellprocess" and inst[0]["config"] == "shellprocess_idlecfg.conf", settings
seq = [m for step in settings["sequence"] for m in step.get("exec", [])]
k = seq.index("shellprocess@idlecfg")
assert k < seq.index("initramfs") and k < seq.index("bootloader") and k > seq.index("packages"), seq
PY
else
        skip "Calamares: the config as YAML" "no python3-yaml"
fi
# the shell the configs carry, as their clients hand it to sh
cmd=$(sed -n 's/^    - command: "\(.*\)"$/\1/p' "$i/calamares/shellprocess_idlecfg.conf" | sed 's/\\"/"/g')
late=$(sed -n "s/^d-i preseed\/late_command string in-target //p" "$i/debian-installer/preseed.cfg")
post=$(sed -n '/^%post/,/^%end/p' "$i/anaconda/idlecfg.ks" | sed '1d;$d')
check "the shell of every script, of the Calamares command, the preseed's late_command and the kickstart's %post parses" sh -c "
        for f in '$i/debian-installer/65idlecfg' '$i/mkosi/mkosi.postinst.chroot' '$i/mkosi/mkosi.postinst' '$i/mkosi/mkosi.finalize'; do sh -n \"\$f\" || exit 1; done
        test -n \"\$1\" && sh -n -c \"\$1\" && test -n \"\$2\" && sh -n -c \"\$2\" && test -n \"\$3\" && sh -n -c \"\$3\"" sh "$cmd" "$late" "$post"

# ---- the debian-installer hook, under an emulation of in-target ----
B=$tmp/target
why=
if have unshare && have run-parts && debian_root "$B"; then
        # the build's own prefix (its profiles are where the binary looks), and
        # the binary where a distribution's package puts it, which the hook checks
        ${MAKE:-make} -s -C "$top_builddir" install DESTDIR="$B" >"$tmp/make-install.log" 2>&1 ||
                { cat "$tmp/make-install.log"; echo "Bail out! make install"; exit 1; }
        sbin=$(sed -n 's/^sbindir = //p' "$top_builddir/Makefile" | sed "s|\${exec_prefix}|$(sed -n 's/^exec_prefix = //p' "$top_builddir/Makefile")|; s|\${prefix}|$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")|")
        [ "$sbin" = /usr/sbin ] || ln -s "../..$sbin/idlecfg" "$B/usr/sbin/idlecfg"
        tree() { (cd "$1" && find . \( -path ./var/log -o -path ./run -o -path ./proc -o -path ./sys \) -prune -o \
                -printf '%p %y %m %l\n' | LC_ALL=C sort); }
        # the installer: its own /run (bound onto the target's), finish-install.d,
        # and in-target as debian-installer-utils has it
        irun=$tmp/installer-run
        mkdir -p "$irun/udev" "$tmp/bin" "$tmp/finish-install.d"
        echo installer >"$irun/installer-was-here"
        cp "$i/debian-installer/65idlecfg" "$tmp/finish-install.d/"
        cat >"$tmp/bin/in-target" <<SH
#!/bin/sh
# in-target (emulated): services blocked, the installer's /run bound, chroot
printf '#!/bin/sh\nexit 101\n' >"$B/usr/sbin/policy-rc.d" && chmod 0755 "$B/usr/sbin/policy-rc.d"
echo "\$*" >>"$tmp/in-target.calls"
unshare -m sh -c '
        mount --bind "\$1" "\$2/run" && mount --rbind /sys "\$2/sys" && mount -o remount,bind,ro "\$2/sys" &&
                mount -t proc -o ro proc "\$2/proc" || exit 99
        root=\$2; shift 2
        # what the hook sees of the installer: policy-rc.d in place, /run the installer'"'"'s
        test -x "\$root/usr/sbin/policy-rc.d" && test -e "\$root/run/installer-was-here" && echo ok >>"$tmp/in-target.saw"
        exec chroot "\$root" "\$@"' sh "$irun" "$B" "\$@"
rc=\$?
rm -f "$B/usr/sbin/policy-rc.d"
exit \$rc
SH
        chmod 0755 "$tmp/bin/in-target"
        tree "$B" >"$tmp/tree.before"
        PATH=$tmp/bin:$PATH IDLECFG_TARGET=$B run-parts "$tmp/finish-install.d" >"$tmp/di.out" 2>&1; rc=$?
        log=$B/var/log/installer/idlecfg.log
        check "debian-installer: run-parts finish-install.d with 65idlecfg: exit 0, in-target ran idlecfg install --boot-steps (policy-rc.d there, the installer's /run bound)" sh -c "
                test $rc -eq 0 && grep -q 'idlecfg install --boot-steps' '$tmp/in-target.calls' && grep -qx ok '$tmp/in-target.saw' &&
                test ! -e '$B/usr/sbin/policy-rc.d'" || diag "$(cat "$tmp/di.out" "$log" 2>/dev/null)"
        check "  installed for this machine (the manifest's fingerprint), its output and exit status in /var/log/installer/idlecfg.log of the target" sh -c "
                test -f '$B/var/lib/idlecfg/manifest' && ! grep -qx 'fingerprint image' '$B/var/lib/idlecfg/manifest' &&
                grep -q '^Installing profile ' '$log' && grep -Eq '^idlecfg: done \\(exit [04]\\)' '$log'" || diag "$(cat "$log" 2>/dev/null)"
        # a failure: a damaged manifest (exit 2) is logged, and fails finish-install only when asked
        cp "$B/var/lib/idlecfg/manifest" "$tmp/manifest.good"
        echo 'not a manifest line' >>"$B/var/lib/idlecfg/manifest"
        PATH=$tmp/bin:$PATH IDLECFG_TARGET=$B run-parts "$tmp/finish-install.d" >"$tmp/di2.out" 2>&1; rc=$?
        PATH=$tmp/bin:$PATH IDLECFG_TARGET=$B IDLECFG_STRICT=yes run-parts "$tmp/finish-install.d" >"$tmp/di3.out" 2>&1; rc2=$?
        check "  idlecfg failing (a damaged manifest): logged with its exit status, finish-install goes on (exit 0); with IDLECFG_STRICT=yes it fails" sh -c "
                test $rc -eq 0 && test $rc2 -ne 0 && grep -q '^idlecfg: failed (exit 2)' '$log'" || diag "$(cat "$tmp/di2.out" "$tmp/di3.out")"
        cp "$tmp/manifest.good" "$B/var/lib/idlecfg/manifest"
        chroot "$B" idlecfg rollback >"$tmp/rb.out" 2>&1
        rm -rf "$B/var/log/installer"
        tree "$B" >"$tmp/tree.after"
        check "  rollback in the target then: the target as before the hook (nothing of the installer's /run or policy-rc.d left)" \
                sh -c "diff -u '$tmp/tree.before' '$tmp/tree.after'" || diag "$(cat "$tmp/rb.out")"
        # Calamares itself (Debian 12 ships it), offscreen: a settings.conf whose
        # exec sequence holds the shipped module; rootMountPoint, which the
        # mount module sets in a real installation, set by a python job of the
        # test's; /sys and /proc bound into the root as Calamares' mount module does
        if have calamares; then
                C=$tmp/calamares
                mkdir -p "$C/modules/setroot" "$tmp/home"
                ln -s /usr/share/calamares/qml "$C/qml"
                ln -s /usr/share/calamares/branding "$C/branding"
                cp "$i/calamares/shellprocess_idlecfg.conf" "$C/modules/"
                printf -- '---\ntype: "job"\nname: "setroot"\ninterface: "python"\nscript: "main.py"\n' >"$C/modules/setroot/module.desc"
                printf 'import os\nimport libcalamares\ndef pretty_name():\n    return "the test'"'"'s target"\ndef run():\n    libcalamares.globalstorage.insert("rootMountPoint", os.environ["IDLECFG_TEST_TARGET"])\n    return None\n' \
                        >"$C/modules/setroot/main.py"
                { printf -- '---\nmodules-search: [ %s, %s ]\n' "$C/modules" "$(ls -d /usr/lib/*/calamares/modules | head -n 1)"
                  sed -n '/^instances:/,/^$/p' "$i/calamares/settings.conf.snippet"
                  printf 'sequence:\n- exec:\n  - setroot\n  - shellprocess@idlecfg\n- show:\n  - finished\n'
                  printf 'branding: default\nprompt-install: false\ndont-chroot: false\nquit-at-end: true\noem-setup: false\n'
                  printf 'disable-cancel: false\ndisable-cancel-during-exec: false\nhide-back-and-next-during-exec: false\n'
                } >"$C/settings.conf"
                calamares_run() {
                        (cd "$C" && HOME=$tmp/home IDLECFG_TEST_TARGET=$B QT_QPA_PLATFORM=offscreen QT_QUICK_BACKEND=software \
                                timeout 300 unshare -m sh -c 'mount --rbind /sys "$1/sys" && mount -o remount,bind,ro "$1/sys" &&
                                        mount -t proc -o ro proc "$1/proc" && exec calamares -D6 -c "$2"' sh "$B" "$C")
                }
                calamares_run >"$tmp/cal1" 2>&1; rc=$?
                check "Calamares (offscreen), settings.conf exec: setroot, shellprocess@idlecfg: the shipped job runs chrooted in the root, idlecfg installs for this machine, no failure" sh -c "
                        test $rc -eq 0 && grep -q 'Starting job \"Configuring idle power management\"' '$tmp/cal1' &&
                        ! grep -q 'Installation failed' '$tmp/cal1' && grep -Eq '^idlecfg: exit [04]\$' '$B/var/log/idlecfg-install.log' &&
                        test -f '$B/var/lib/idlecfg/manifest' && ! grep -qx 'fingerprint image' '$B/var/lib/idlecfg/manifest'" ||
                        diag "$(tail -n 30 "$tmp/cal1")"
                cp "$B/var/lib/idlecfg/manifest" "$tmp/manifest.good"
                echo 'not a manifest line' >>"$B/var/lib/idlecfg/manifest"
                calamares_run >"$tmp/cal2" 2>&1
                check "  idlecfg failing (exit 2) fails the job: Calamares reports the installation failed" \
                        grep -q 'Installation failed' "$tmp/cal2" || diag "$(tail -n 30 "$tmp/cal2")"
                cp "$tmp/manifest.good" "$B/var/lib/idlecfg/manifest"
                chroot "$B" idlecfg rollback >/dev/null 2>&1
                rm -f "$B/var/log/idlecfg-install.log"
        else
                skip "Calamares with the shipped module" "no calamares (Debian: calamares)"
                skip "Calamares: a failing idlecfg fails the job" "no calamares (Debian: calamares)"
        fi
        # mkosi.finalize on the host, against the image's root
        BUILDROOT=$B sh "$i/mkosi/mkosi.finalize" >"$tmp/mf1" 2>&1; rc=$?
        cp "$i/mkosi/mkosi.postinst.chroot" "$B/tmp/"
        chroot "$B" sh /tmp/mkosi.postinst.chroot >"$tmp/mp" 2>&1; rc2=$?
        rm -f "$B/tmp/mkosi.postinst.chroot"
        BUILDROOT=$B sh "$i/mkosi/mkosi.finalize" >"$tmp/mf2" 2>&1; rc3=$?
        check "mkosi: finalize fails a root without idlecfg install --image; postinst.chroot (in the root) makes it pass" sh -c "
                test $rc -ne 0 && grep -q 'idlecfg-firstboot.service is not enabled' '$tmp/mf1' && test $rc2 -eq 0 && test $rc3 -eq 0" ||
                diag "$(cat "$tmp/mf1" "$tmp/mp" "$tmp/mf2")"
        # mkosi 15 to 18 run mkosi.postinst on the host (BUILDROOT set): it goes into
        # the image with mkosi-chroot (a stand-in: chroot with container=mkosi)
        chroot "$B" idlecfg rollback >/dev/null 2>&1
        mkdir -p "$tmp/mkbin" "$B/work"
        printf '#!/bin/sh\nexec chroot "$BUILDROOT" env container=mkosi sh "$@"\n' >"$tmp/mkbin/mkosi-chroot"
        chmod 0755 "$tmp/mkbin/mkosi-chroot"
        cp "$i/mkosi/mkosi.postinst" "$B/work/postinst"
        BUILDROOT=$B CHROOT_SCRIPT=/work/postinst PATH="$tmp/mkbin:$PATH" sh "$i/mkosi/mkosi.postinst" final >"$tmp/mp2" 2>&1; rc=$?
        rm -rf "$B/work"
        BUILDROOT=$B sh "$i/mkosi/mkosi.finalize" >"$tmp/mf4" 2>&1; rc2=$?
        check "mkosi before 19: the fallback mkosi.postinst run on the host (mkosi 15-18) goes into the image; finalize passes" sh -c "
                test $rc -eq 0 && test $rc2 -eq 0" || diag "$(cat "$tmp/mp2" "$tmp/mf4")"
        # (from outside: in the root's chroot, without /sys, install refuses)
        "$IDLECFG" --root "$B" --profiles-dir "$top_srcdir/profiles" install >/dev/null 2>&1
        BUILDROOT=$B sh "$i/mkosi/mkosi.finalize" >"$tmp/mf3" 2>&1; rc=$?
        check "  and fails one where a plain install wrote the build host's hardware" sh -c "
                test $rc -ne 0 && grep -q 'not an image' '$tmp/mf3'" || diag "$(cat "$tmp/mf3")"
else
        for n in 1 2 3 4 5 6 7 8 9; do
                skip "debian-installer hook and mkosi.finalize in a Debian 12 root" "${why:-no unshare or run-parts}"
        done
fi
# ---- Anaconda's %post, with stand-ins for idlecfg and grubby ----
# (in a mount namespace with a tmpfs over /etc: the %post reads /etc/idlecfg/cmdline)
a=$tmp/anaconda
mkdir -p "$a/bin"
cat >"$a/bin/idlecfg" <<SH
#!/bin/sh
[ "\$1" = plan ] && { echo 'pcie_aspm.policy=powersupersave nmi_watchdog=0'; exit 0; }
exit \$(cat '$a/rc')
SH
cat >"$a/bin/grubby" <<SH
#!/bin/sh
case "\$1" in
--info=ALL) cat '$a/entries' ;;
*) echo "grubby \$*" >>'$a/calls' ;;
esac
SH
chmod 0755 "$a/bin/idlecfg" "$a/bin/grubby"
printf '%s\n' "$post" >"$a/post.sh"
# ana RC ARGS: the %post with install exiting RC and boot entries with ARGS: "EXIT CALLS"
ana() {
        echo "$1" >"$a/rc"
        printf 'index=0\nkernel="/boot/vmlinuz-6.1"\nargs="%s"\nindex=1\nkernel="/boot/vmlinuz-6.2"\nargs="%s"\n' "$2" "$2" >"$a/entries"
        rm -f "$a/calls"
        unshare -m sh -c 'mount -t tmpfs tmpfs /etc && mkdir /etc/idlecfg &&
                echo "pcie_aspm.policy=powersupersave nmi_watchdog=0" >/etc/idlecfg/cmdline &&
                PATH="$1/bin:$PATH" exec sh "$1/post.sh"' sh "$a" >>"$a/out" 2>&1
        echo "$? $(cat "$a/calls" 2>/dev/null)"
}
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
        r3=$(ana 3 "ro quiet") r0=$(ana 0 "ro quiet") r4=$(ana 4 "ro quiet")
        r4b=$(ana 4 "ro quiet nmi_watchdog=0 pcie_aspm.policy=powersupersave") r4c=$(ana 4 "ro nmi_watchdog=0")
        check "Anaconda %post: grubby only after an install that succeeded with words left (exit 4), once, with the words an entry lacks" sh -c "
                test '$r3' = '1 ' && test '$r0' = '0 ' &&
                test '$r4' = '0 grubby --update-kernel=ALL --args=pcie_aspm.policy=powersupersave nmi_watchdog=0' &&
                test '$r4b' = '0 ' && test '$r4c' = '0 grubby --update-kernel=ALL --args=pcie_aspm.policy=powersupersave'" ||
                diag "install 3: $r3; 0: $r0; 4: $r4; 4, words there: $r4b; 4, one there: $r4c" "$(cat "$a/out")"
else
        skip "Anaconda %post with stand-ins" "needs root and unshare -m (a tmpfs over /etc)"
fi

# ---- mkosi: which script each version runs ----
# mkosi before 19 (Debian 12's 14) runs mkosi.postinst and never
# mkosi.postinst.chroot: the shipped fallback is what it finds
if have mkosi && mkosi --version 2>/dev/null | grep -q 'mkosi 1[0-8]\b'; then
        mk=$tmp/mkosi
        mkdir -p "$mk"
        printf '[Distribution]\nDistribution=debian\nRelease=bookworm\n' >"$mk/mkosi.conf"
        cp "$i/mkosi/mkosi.postinst" "$i/mkosi/mkosi.finalize" "$mk/"
        (cd "$mk" && mkosi summary) >"$tmp/mks" 2>&1
        check "mkosi $(mkosi --version 2>/dev/null | sed 's/^mkosi //'): with the shipped mkosi.postinst copied, summary names it as the postinstall script" \
                grep -q "Postinstall Script: $mk/mkosi.postinst\$" "$tmp/mks" || diag "$(cat "$tmp/mks")"
else
        skip "mkosi summary with the shipped fallback" "no mkosi before 19 here (Debian 12: mkosi)"
fi
check "Makefile.am installs every file of src/integrations under \$(pkgdatadir)/integrations" sh -c "
        cd '$top_srcdir' && for f in \$(find src/integrations -type f); do grep -q \"\$f\" Makefile.am || { echo \"\$f\"; exit 1; }; done"
done_testing
