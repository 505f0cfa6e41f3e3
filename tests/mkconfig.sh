# tests/mkconfig.sh: Debian's grub-mkconfig run for a target root's
# /etc/default/grub(.d) (sourced by tests/grub.sh and tests/boot-tools.sh).
# It runs in a private mount namespace (unshare -m): a tmpfs over
# /etc/default holding the root's files, a fake /boot with an empty kernel
# and initrd, an /etc/grub.d holding only 10_linux and a fake grub-probe; it
# writes to a file of the test (-o), never to /boot/grub of this machine.
# can_mkconfig is set when root, unshare and grub-mkconfig are there.
can_mkconfig=
if command -v grub-mkconfig >/dev/null 2>&1 && command -v grub-probe >/dev/null 2>&1 &&
        [ -x /etc/grub.d/10_linux ] && root_ns; then
        can_mkconfig=1
        mkdir -p "$tmp/grub.d" "$tmp/boot"
        cp /etc/grub.d/10_linux "$tmp/grub.d/"
        : >"$tmp/boot/vmlinuz-6.1.0-99-amd64"
        : >"$tmp/boot/initrd.img-6.1.0-99-amd64"
        cat >"$tmp/grub-probe" <<'EOF'
#!/bin/sh
for a; do case $a in --target=*) t=${a#--target=} ;; esac; done
case $t in
device) echo /dev/sda1 ;; fs) echo ext2 ;; fs_uuid) echo 0123-4567 ;; partuuid) echo 0badf00d-01 ;;
partmap) echo msdos ;; drive) echo '(hd0,msdos1)' ;; compatibility_hint) echo hd0,msdos1 ;;
hints_string) echo --hint=hd0,msdos1 ;;
esac
EOF
        chmod +x "$tmp/grub-probe"
fi
# mkconfig DIR [OUT]: grub.cfg for root DIR into OUT ($tmp/grub.cfg); prints
# the arguments of its first `linux` line (the normal entry) after
# "linux PATH root=... ro"
mkconfig() {
        _dir=$1 _out=${2:-$tmp/grub.cfg}
        unshare -m sh -ec '
                mount --make-rprivate / 2>/dev/null || true
                mount -t tmpfs idlecfg-test /etc/default
                cp -R "$1/etc/default/." /etc/default/
                mount --bind "$2/boot" /boot
                mount --bind "$2/grub.d" /etc/grub.d
                mount --bind "$2/grub-probe" "$(command -v grub-probe)"
                grub-mkconfig -o "$3"' sh "$_dir" "$tmp" "$_out" >"$tmp/mkconfig.log" 2>&1 || return 1
        awk '$1 == "linux" { for (i = 5; i <= NF; i++) printf "%s%s", $i, (i < NF ? " " : ""); print ""; exit }' \
                "$_out"
}

