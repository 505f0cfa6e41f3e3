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
# other's files. A failure here must not fail the kernel's installation: say
# it and go on. Exit 4 is no failure: done, and refresh said what the boot
# configuration still lacks (idlecfg(8), EXIT STATUS)
"$IDLECFG" refresh || [ $? -eq 4 ] ||
        echo "idlecfg: refresh after installing kernel $version failed; run 'idlecfg refresh'" >&2
exit 0
