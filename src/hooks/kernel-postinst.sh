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
# a failure here must not fail the kernel's installation: say it and go on.
# Exit 4 is no failure: done, and refresh said what the boot configuration
# still lacks (idlecfg(8), EXIT STATUS)
"$IDLECFG" --kernel "$version" refresh || [ $? -eq 4 ] ||
        echo "idlecfg: refresh for kernel $version failed; run 'idlecfg refresh --kernel $version'" >&2
exit 0
