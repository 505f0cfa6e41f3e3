# tests/vm/suite.sh: the Debian suites make check-vm boots (sourced by
# tests/vm/check-vm.sh). IDLECFG_VM_SUITES lists them (default "bookworm
# trixie"): bookworm, Debian 12 with its own kernel (6.1) and systemd 252, as
# the host's apt serves it; trixie, Debian 13 with systemd 257 and the kernel
# of trixie-backports (linux-image-amd64, 7.x), through a private apt
# configuration in the cache (the host's apt sources stay untouched).
#
# suite_setup SUITE sets, for the flow of check-vm.sh: include (debootstrap's
# --include), tarball and cache_key (one cached root per suite, its own key),
# work (bookworm keeps IDLECFG_VM_WORK itself, other suites a subdirectory of
# it), suite_tag (prefix of the test names: "" for bookworm), apt_get and
# apt_cache (powertop's packages come from the suite's archive), chroot_cmd
# (chroot, or for trixie tests/vm/chroot-proc.sh: systemd 257's tools need
# /proc in the chroot).

suites=${IDLECFG_VM_SUITES:-bookworm trixie}
work_base=$work

suite_known() {
        case $1 in bookworm|trixie) return 0 ;; esac
        return 1
}

suite_desc() {
        case $1 in
        bookworm) echo "Debian 12 (bookworm), its kernel and systemd 252" ;;
        trixie) echo "Debian 13 (trixie), systemd 257, linux-image-amd64 from trixie-backports" ;;
        esac
}

suite_setup() {
        suite=$1
        include=systemd,systemd-sysv,udev,kmod,linux-image-amd64,umockdev,zstd
        suite_tag=
        work=$work_base
        apt_get=apt-get
        apt_cache=apt-cache
        chroot_cmd=chroot
        case $suite in
        trixie)
                # the kernel comes from backports after debootstrap (one kernel
                # in the root: the harness boots the one in /lib/modules)
                include=systemd,systemd-sysv,udev,kmod,umockdev,zstd,initramfs-tools
                suite_tag="$suite "
                work=$work_base/$suite
                chroot_cmd=$vmdir/chroot-proc.sh
                ;;
        esac
        tarball=$cache/$suite-minbase.tar.zst
        cache_key="debootstrap --variant=minbase --include=$include $suite (check-vm 1)"
        [ "$suite" = trixie ] && cache_key="$cache_key + linux-image-amd64/$suite-backports"
        return 0
}

# after debootstrap, in the new root: the backports kernel of trixie, with
# /proc mounted in a private mount namespace only
suite_after_debootstrap() {
        _r=$1
        [ "$suite" = trixie ] || return 0
        echo "deb $m $suite-backports main" >"$_r/etc/apt/sources.list.d/backports.list"
        unshare -m sh -c 'mount -t proc proc "$1/proc" &&
                env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
                        chroot "$1" sh -c "apt-get -q update && apt-get -q -y --no-install-recommends install -t $2-backports linux-image-amd64 && apt-get clean"' \
                sh "$_r" "$suite" || return 1
        [ "$(ls "$_r/lib/modules" | wc -l)" -eq 1 ] || { echo "not one kernel in the root: $(ls "$_r/lib/modules")"; return 1; }
}

# apt for powertop's packages: the host's for bookworm (as before); for
# another suite a private configuration in $cache/apt-SUITE (lists refreshed
# once a day)
suite_apt() {
        [ "$suite" = bookworm ] && return 0
        _a=$cache/apt-$suite
        mkdir -p "$_a/lists/partial" "$_a/archives/partial" "$_a/etc"
        [ -n "${m:-}" ] || m=$(mirror)
        printf 'deb %s %s main\ndeb %s %s-backports main\n' "$m" "$suite" "$m" "$suite" >"$_a/etc/sources.list"
        : >>"$_a/status"
        set -- -o Dir::Etc::sourcelist="$_a/etc/sources.list" -o Dir::Etc::sourceparts=- \
                -o Dir::State::Lists="$_a/lists" -o Dir::Cache="$_a" -o Dir::Cache::Archives="$_a/archives" \
                -o Dir::State::status="$_a/status" -o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1
        apt_get="apt-get $*"
        apt_cache="apt-cache $*"
        if [ -z "$(find "$_a/lists" -name '*_Packages*' -mtime -1 2>/dev/null)" ]; then
                $apt_get -q update >"$_a/update.log" 2>&1 || return 1
        fi
}

# the idle summaries and timings of every suite, in the base directory
suite_done() {
        [ "$work" = "$work_base" ] && return 0
        { echo "== $(suite_desc "$suite") =="; cat "$work/idle-summary" 2>/dev/null; } >>"$work_base/idle-summary.suites"
        sed "s/^/$suite: /" "$work/timings" >>"$work_base/timings" 2>/dev/null
}
