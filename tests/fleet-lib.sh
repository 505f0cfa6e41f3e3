# tests/fleet-lib.sh: what the fleet tests share, sourced after tests/lib.sh
# and the script's need: the script runs again under tests/run-machine with
# the recorded intel-laptop

PATH=$PATH:/sbin:/usr/sbin
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/intel-laptop" sh "$0" "$@"
fi

# fleet_root DIR: an installed root of the recorded machine whose boot
# configuration lacks a step after install: /etc/kernel/cmdline (kernel-install)
fleet_root() {
        mkroot_installed "$TESTS_DATA/machines/intel-laptop" "$1" || return 1
        mkdir -p "$1/etc/kernel" "$1/boot"
        printf 'root=UUID=0b5b5f4e-5d0e-4e4b-9d62-3f9d2b2a5c11 ro quiet\n' >"$1/etc/kernel/cmdline"
}

# $tmp/fakebin/chroot: the next step "chroot ROOT kernel-install add VERSION
# IMAGE" done as kernel-install would, for the test: the boot entry with the
# words of ROOT/etc/kernel/cmdline
mkdir -p "$tmp/fakebin"
cat >"$tmp/fakebin/chroot" <<'SH'
#!/bin/sh
root=$1
[ "$2 $3" = "kernel-install add" ] || { echo "unexpected: $*" >&2; exit 1; }
mkdir -p "$root/boot/loader/entries"
printf 'title Debian\nlinux /vmlinuz-%s\noptions %s\n' "$4" "$(cat "$root/etc/kernel/cmdline")" >"$root/boot/loader/entries/debian-$4.conf"
# (and the options of each entry it made, in order, beside the root)
printf '%s\n' "$(cat "$root/etc/kernel/cmdline")" >>"$root.kernel-install.log"
SH
chmod +x "$tmp/fakebin/chroot"

# fleet_ansible CMD...: an ansible command with the collection of src/ansible,
# its state under $tmp, in the UTF-8 locale it needs, quiet about localhost
fleet_ansible() {
        ANSIBLE_HOME=$tmp/ansible-home ANSIBLE_LOCAL_TEMP=$tmp/ansible-home/tmp ANSIBLE_REMOTE_TEMP=$tmp/ansible-home/remote \
        ANSIBLE_COLLECTIONS_PATH=$top_srcdir/src/ansible ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
        ANSIBLE_LOCALHOST_WARNING=0 ANSIBLE_INVENTORY_UNPARSED_WARNING=0 ANSIBLE_PYTHON_INTERPRETER=auto_silent \
        LC_ALL=C.UTF-8 "$@"
}
