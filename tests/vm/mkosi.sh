# tests/vm/mkosi.sh: sourced by check-vm.sh. The image flow's root built by
# the real image builder (issue #32): Debian 13's mkosi (trixie's package,
# fetched once into the cache with a private apt configuration and unpacked:
# it is a Python program and runs on Debian 12's python3) builds a Debian
# image of the suite as a directory, with idlecfg's .deb (dpkg-buildpackage of
# the package's tarball with src/debian, as tests/packages.sh builds it) in
# Packages= from a local package directory, and the mkosi scripts idlecfg
# ships (/usr/share/idlecfg/integrations/mkosi, taken out of that .deb) next
# to mkosi.conf, as a user copies them. The profile goes in the way an image
# builder chooses it: /etc/idlecfg/idlecfg.conf ([main] profile =) in
# mkosi.extra. mkosi applies the presets after the postinst scripts
# ("systemctl preset-all"): the image's preset enables idlecfg-firstboot.service
# (and systemd-pstore.service) and disables the rest, so that the image boots the units of the
# debootstrapped baseline (Debian's own 90-systemd.preset would enable
# systemd-networkd, which loads cfg80211 and rfkill, as image-flow.sh says).
# image-flow.sh then boots the directory as it boots the host-built image.
#
# Environment: IDLECFG_VM_MKOSI, a mkosi command to use instead of trixie's
# (e.g. "mkosi" when the host has one of version 25 or later).

# mkosi_get: sets mkosi_cmd (and mkosi_source), or mkosi_why
mkosi_get() {
        mkosi_cmd= mkosi_why=
        if [ -n "${IDLECFG_VM_MKOSI:-}" ]; then
                mkosi_cmd=$IDLECFG_VM_MKOSI
                mkosi_source="IDLECFG_VM_MKOSI ($($mkosi_cmd --version 2>/dev/null))"
                return 0
        fi
        command -v reprepro >/dev/null || { mkosi_why="reprepro not installed (mkosi's PackageDirectories= needs it)"; return 1; }
        command -v python3 >/dev/null || { mkosi_why="python3 not installed"; return 1; }
        _mc=$cache/mkosi
        mkdir -p "$_mc"
        # trixie's archive through suite.sh's private apt configuration
        # ($cache/apt-trixie), the current suite's apt_get and apt_cache kept
        _ms=$suite _mag=$apt_get _mac=$apt_cache
        suite=trixie
        suite_apt
        _mr=$?
        _tget=$apt_get _tcache=$apt_cache
        suite=$_ms apt_get=$_mag apt_cache=$_mac
        [ $_mr -eq 0 ] || { mkosi_why="apt-get update for trixie failed: $(tail -n 3 "$cache/apt-trixie/update.log")"; return 1; }
        _mv=$($_tcache policy mkosi 2>/dev/null | awk '/Candidate:/ { print $2 }')
        [ -n "$_mv" ] && [ "$_mv" != "(none)" ] || { mkosi_why="trixie's archive at $m has no mkosi"; return 1; }
        if [ "$(cat "$_mc/key" 2>/dev/null)" != "mkosi $_mv" ] || [ ! -d "$_mc/root/usr/lib/python3/dist-packages/mkosi" ]; then
                rm -rf "$_mc/root" "$_mc"/*.deb
                (cd "$_mc" && $_tget -q download mkosi) >"$_mc/download.log" 2>&1 &&
                        dpkg-deb -x "$_mc"/mkosi_*.deb "$_mc/root" ||
                        { mkosi_why="mkosi $_mv from trixie: $(tail -n 3 "$_mc/download.log")"; return 1; }
                echo "mkosi $_mv" >"$_mc/key"
        fi
        mkosi_cmd="env PYTHONPATH=$_mc/root/usr/lib/python3/dist-packages python3 -m mkosi"
        mkosi_source="Debian 13's mkosi $_mv (trixie's package, unpacked in $_mc)"
}

# mkosi_deb: the package's .deb, built once per run into $work/mkosi-deb
# (sets mkosi_deb_file, or mkosi_why)
mkosi_deb() {
        _md=$work_base/mkosi-deb
        mkosi_deb_file=$(ls "$_md"/idlecfg_*_*.deb 2>/dev/null | head -n 1)
        [ -n "$mkosi_deb_file" ] && return 0
        command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
                { mkosi_why="dpkg-buildpackage or debhelper not installed"; return 1; }
        rm -rf "$_md"
        mkdir -p "$_md"
        _t=$(date +%s)
        _v=$(sed -n 's/^PACKAGE_VERSION = //p' "$pkg/Makefile")
        if make -s -C "$pkg" dist-gzip >"$_md/dist.log" 2>&1 &&
           mv "$pkg/idlecfg-$_v.tar.gz" "$_md/idlecfg_$_v.orig.tar.gz" &&
           tar -C "$_md" -xzf "$_md/idlecfg_$_v.orig.tar.gz" &&
           cp -a "$top_srcdir/src/debian" "$_md/idlecfg-$_v/debian" &&
           (cd "$_md/idlecfg-$_v" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) >"$_md/build.log" 2>&1; then
                mkosi_deb_file=$(ls "$_md"/idlecfg_"$_v"-*_*.deb 2>/dev/null | head -n 1)
        fi
        [ -n "$mkosi_deb_file" ] || { mkosi_why="the .deb did not build: $(tail -n 5 "$_md/build.log" "$_md/dist.log" 2>/dev/null)"; return 1; }
        timing "the .deb for mkosi (make dist, dpkg-buildpackage -b)" "$(($(date +%s) - _t))"
}

# mkosi_image_root DIR PROFILE: the image's root, built by mkosi, in DIR;
# mkosi's output in $mw/image/mkosi.log. Returns 2 (with mkosi_why) when
# mkosi or the .deb cannot be had here, 1 when the build fails.
mkosi_image_root() {
        _dir=$1 _p=$2
        mkosi_get || return 2
        mkosi_deb || return 2
        _b=$mw/image/mkosi
        rm -rf "$_b" "$_dir"
        mkdir -p "$_b/pkgs" "$_b/ship" "$_b/mkosi.extra/etc/idlecfg" "$_b/mkosi.extra/etc/systemd/system-preset" \
                "$_b/mkosi.sandbox/etc/apt/sources.list.d" "$cache/mkosi-cache"
        cp "$mkosi_deb_file" "$_b/pkgs/"
        # the shipped scripts, out of the package, next to mkosi.conf
        dpkg-deb -x "$mkosi_deb_file" "$_b/ship" &&
                cp "$_b/ship/usr/share/idlecfg/integrations/mkosi/mkosi.postinst.chroot" \
                   "$_b/ship/usr/share/idlecfg/integrations/mkosi/mkosi.finalize" "$_b/" || return 1
        rm -rf "$_b/ship"
        printf '[main]\nprofile = %s\n' "$_p" >"$_b/mkosi.extra/etc/idlecfg/idlecfg.conf"
        # (systemd-pstore.service: enabled in the debootstrapped baseline, it
        # loads efi_pstore, whose pstore_disable the comparison reads)
        printf 'enable idlecfg-firstboot.service\nenable systemd-pstore.service\ndisable *\n' \
                >"$_b/mkosi.extra/etc/systemd/system-preset/00-idlecfg-vm.preset"
        # the host's mirror, without the debug archive mkosi adds by default
        [ -n "${m:-}" ] || m=$(mirror)
        _suites=$suite
        _kernel=linux-image-amd64
        [ "$suite" = trixie ] && { _suites="$suite $suite-backports"; _kernel=linux-image-amd64/$suite-backports; }
        printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
                "$m" "$_suites" >"$_b/mkosi.sandbox/etc/apt/sources.list.d/mkosi.sources"
        cat >"$_b/mkosi.conf" <<EOF
[Distribution]
Distribution=debian
Release=$suite

[Output]
Format=directory
Output=image
CacheDirectory=$cache/mkosi-cache

[Content]
Bootable=no
PackageDirectories=pkgs
Packages=systemd
         systemd-sysv
         udev
         kmod
         $_kernel
         initramfs-tools
         zstd
         umockdev
         idlecfg
EOF
        _t=$(date +%s)
        (cd "$_b" && nice timeout 1800 $mkosi_cmd -f build) >"$mw/image/mkosi.log" 2>&1 || return 1
        mkosi_secs=$(($(date +%s) - _t))
        timing "$machine: mkosi build of the image ($_p)" "$mkosi_secs"
        mv "$_b/image" "$_dir" || return 1
        rm -rf "$_b/pkgs"
}
