#!/bin/sh
# tests/vm/chroot-proc.sh ROOT CMD [ARGS...]: chroot ROOT CMD with /proc
# mounted in ROOT for the command only, in a private mount namespace (the
# host's mounts and the root's directory stay as they were). systemd 257's
# tools (systemd-hwdb update, kernel-install) fail with ENOSYS without /proc;
# check-vm uses it for the trixie root (tests/vm/suite.sh).
[ $# -ge 2 ] || { echo "usage: $0 ROOT CMD [ARGS...]" >&2; exit 2; }
exec unshare -m --propagation private sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$@"
