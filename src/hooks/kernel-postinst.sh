#!/bin/sh
# /etc/kernel/postinst.d/zz-idlecfg: after a kernel package is installed, check
# idlecfg's configuration against the new kernel's modules (Debian's kernel
# hook directory; run-parts passes the kernel release as $1). It re-installs
# only if something changed, and only if idlecfg was installed (a manifest).
set -e
version=${1:-}
[ -n "$version" ] || exit 0
IDLECFG=${IDLECFG:-/usr/sbin/idlecfg}
[ -x "$IDLECFG" ] || exit 0
# No --kernel: idlecfg plans for the kernel the system boots next (the boot
# loader's default, else the newest installed), which is this one unless an
# older kernel is being reinstalled; so this hook, the package triggers and a
# manual "idlecfg refresh" all plan for the same kernel and never undo each
# other's files. --boot-steps: when the refresh rewrote what the initramfs
# or grub.cfg holds (made by the hooks before this one), they are made again
# (update-initramfs in a maintainer script only activates initramfs-tools'
# trigger). A failure here must not fail the kernel's installation: say it
# and go on. Exit 4 is no failure: done, and idlecfg said the step only the
# administrator can do (idlecfg(8), EXIT STATUS)
"$IDLECFG" refresh --boot-steps || [ $? -eq 4 ] ||
        echo "idlecfg: refresh after installing kernel $version failed; run 'idlecfg refresh'" >&2
exit 0
