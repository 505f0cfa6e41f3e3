#!/bin/sh
# tests/grub.sh: the kernel command line idlecfg reads from a target's
# /etc/default/grub and /etc/default/grub.d/*.cfg (src/root/grubenv.c), case by
# case against a recorded answer, and that answer against what Debian's
# grub-mkconfig really writes into the normal entry's `linux` line for the
# same files. grub-mkconfig runs in a private mount namespace (unshare -m):
# a tmpfs over /etc/default, a fake /boot with an empty kernel and initrd, an
# /etc/grub.d holding only 10_linux and a fake grub-probe; it writes to a file
# of the test (-o), never to /boot/grub. Without root, unshare or grub-mkconfig
# those points skip; the parser's own points always run. Last, the planner: a
# grub.d file setting pcie_aspm=off, a later line clearing it, a FIFO. The
# shell forms other than assignments ({ } groups, return, functions,
# here-documents) against grub-mkconfig too; readonly and exit, which
# grub-mkconfig itself refuses, warned.
. "$top_srcdir/tests/lib.sh"
PATH=$PATH:/sbin:/usr/sbin
GRUBENV=${top_builddir:-.}/tests/grubenv-unit
[ -x "$GRUBENV" ] || skip_all "tests/grubenv-unit not built"

cases=
# mkcase NAME EXPECTED: the files come from the here-documents written after it
mkcase() {
        cases="$cases $1"
        mkdir -p "$tmp/c/$1/etc/default"
        printf '%s\n' "$2" >"$tmp/c/$1.expect"
}
grubd() { mkdir -p "$tmp/c/$1/etc/default/grub.d"; cat >"$tmp/c/$1/etc/default/grub.d/$2"; }
grubf() { cat >"$tmp/c/$1/etc/default/grub"; }
# warns NAME TEXT: idlecfg must warn with TEXT (else: no warning at all)
warns() { printf '%s\n' "$2" >"$tmp/c/$1.warn"; }
# rejects NAME: grub-mkconfig itself fails on these files (makes no grub.cfg)
rejects() { : >"$tmp/c/$1.rejects"; }

mkcase plain "quiet"
grubf plain <<'EOF'
GRUB_DEFAULT=0
GRUB_TIMEOUT=5
GRUB_CMDLINE_LINUX_DEFAULT="quiet"
GRUB_CMDLINE_LINUX=""
EOF
mkcase last-wins "a"
grubf last-wins <<'EOF'
GRUB_CMDLINE_LINUX="pcie_aspm=off"
GRUB_CMDLINE_LINUX="a"
EOF
mkcase comments "a b#c"
grubf comments <<'EOF'
# GRUB_CMDLINE_LINUX="pcie_aspm=off"
GRUB_CMDLINE_LINUX="a" # pcie_aspm=off
GRUB_CMDLINE_LINUX_DEFAULT=b#c   # nmi_watchdog=1
EOF
mkcase export "pcie_aspm=off quiet"
grubf export <<'EOF'
export GRUB_CMDLINE_LINUX="pcie_aspm=off"
GRUB_CMDLINE_LINUX_DEFAULT=quiet
export GRUB_CMDLINE_LINUX_DEFAULT
EOF
mkcase continuation "quiet pcie_aspm=off splash nmi_watchdog=0"
grubf continuation <<'EOF'
GRUB_CMDLINE_LINUX="quiet \
pcie_aspm=off"
GRUB_CMDLINE_LINUX_DEFAULT=splash\ \
nmi_watchdog=0
EOF
mkcase vars "pcie_aspm=off pcie_aspm=off2 quiet nmi_watchdog=0"
grubf vars <<'EOF'
OFF=pcie_aspm=off
GRUB_CMDLINE_LINUX="$OFF ${OFF}2"
GRUB_CMDLINE_LINUX_DEFAULT="quiet"
GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT nmi_watchdog=0 $UNSET_VARIABLE"
EOF
mkcase quotes 'a $OFF "b" c="d" $e \q'
grubf quotes <<'EOF'
OFF=pcie_aspm=off
GRUB_CMDLINE_LINUX='a $OFF "b"'
GRUB_CMDLINE_LINUX_DEFAULT="c=\"d\" \$e \\q"
EOF
mkcase recovery-xen "a quiet"
grubf recovery-xen <<'EOF'
GRUB_CMDLINE_LINUX=a
GRUB_CMDLINE_LINUX_DEFAULT=quiet
GRUB_CMDLINE_LINUX_RECOVERY="pcie_aspm=off"
GRUB_CMDLINE_LINUX_XEN_REPLACE="pcie_aspm=off"
GRUB_CMDLINE_LINUX_XEN_REPLACE_DEFAULT="nmi_watchdog=0"
EOF
mkcase grub.d "a quiet x y"
grubf grub.d <<'EOF'
GRUB_CMDLINE_LINUX=pcie_aspm=off
GRUB_CMDLINE_LINUX_DEFAULT=quiet
EOF
grubd grub.d 20-b.cfg <<'EOF'
GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT y"
EOF
grubd grub.d 10-a.cfg <<'EOF'
GRUB_CMDLINE_LINUX=a
GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT x"
EOF
grubd grub.d not-cfg.conf <<'EOF'
GRUB_CMDLINE_LINUX=pcie_aspm=off
EOF
grubd grub.d .hidden.cfg <<'EOF'
GRUB_CMDLINE_LINUX=pcie_aspm=off
EOF
mkcase grub.d-only "nmi_watchdog=0"
grubd grub.d-only 50-x.cfg <<'EOF'
GRUB_CMDLINE_LINUX_DEFAULT="nmi_watchdog=0"
EOF
mkcase several "pcie_aspm=off b"
grubf several <<'EOF'
A=pcie_aspm=off GRUB_CMDLINE_LINUX=$A; GRUB_CMDLINE_LINUX_DEFAULT=b
EOF
mkcase unset ""
grubf unset <<'EOF'
GRUB_CMDLINE_LINUX=pcie_aspm=off
unset GRUB_CMDLINE_LINUX
EOF

# the shell forms grub-mkconfig's /bin/sh reads otherwise than a list of assignments
mkcase group "pcie_aspm=off quiet a"
grubf group <<'EOF'
{ GRUB_CMDLINE_LINUX="pcie_aspm=off"; }
GRUB_CMDLINE_LINUX_DEFAULT=quiet
{
GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT a"
}
EOF
mkcase return "a c"
grubd return 50-a.cfg <<'EOF'
GRUB_CMDLINE_LINUX=a
return
GRUB_CMDLINE_LINUX=b
EOF
grubd return 60-c.cfg <<'EOF'
GRUB_CMDLINE_LINUX_DEFAULT=c
EOF
mkcase function "good quiet"
grubf function <<'EOF'
GRUB_CMDLINE_LINUX_DEFAULT=quiet
f() {
        GRUB_CMDLINE_LINUX=bad
}
g() { GRUB_CMDLINE_LINUX_DEFAULT=bad; }
GRUB_CMDLINE_LINUX=good
EOF
mkcase heredoc "good"
warns heredoc 'is not run'
grubf heredoc <<'EOF'
cat >/dev/null <<END
GRUB_CMDLINE_LINUX=bad
END
cat >/dev/null <<-'END'
	GRUB_CMDLINE_LINUX_DEFAULT=bad
	END
GRUB_CMDLINE_LINUX=good
EOF
# a quoted value over two lines: grub-mkconfig writes the rest on a grub.cfg line of its own,
# and the kernel gets the words before the newline only (GRUB_CMDLINE_LINUX_DEFAULT's too): said
mkcase multiline "a quiet"
warns multiline 'etc/default/grub:1: the value of GRUB_CMDLINE_LINUX spans lines: grub-mkconfig writes what follows'
grubf multiline <<'EOF'
GRUB_CMDLINE_LINUX="a quiet
pcie_aspm=off"
GRUB_CMDLINE_LINUX_DEFAULT="splash"
EOF
# NUL bytes: grub-mkconfig's shell (dash) drops them and reads on; so does idlecfg, and says so
mkcase nul "ab quiet splash c"
warns nul 'etc/default/grub: holds NUL bytes: grub-mkconfig'"'"'s shell drops them and reads on'
printf 'GRUB_CMDLINE_LINUX="a\000b quiet"\nX=1\000\nGRUB_CMDLINE_LINUX_DEFAULT="splash c"\n' >"$tmp/c/nul/etc/default/grub"
# what grub-mkconfig itself refuses: idlecfg warns (and grub-mkconfig makes no grub.cfg)
mkcase readonly "a"
warns readonly 'etc/default/grub:2: GRUB_CMDLINE_LINUX is readonly ('
rejects readonly
grubf readonly <<'EOF'
readonly GRUB_CMDLINE_LINUX=a
GRUB_CMDLINE_LINUX=b
EOF
mkcase exit "a"
warns exit '"exit": grub-mkconfig stops here and makes no grub.cfg'
rejects exit
grubf exit <<'EOF'
GRUB_CMDLINE_LINUX=a
exit 0
EOF
grubd exit 50-b.cfg <<'EOF'
GRUB_CMDLINE_LINUX=b
EOF

n_cases=$(echo $cases | wc -w)
plan $((2 * n_cases + 5))

. "$top_srcdir/tests/mkconfig.sh"

for c in $cases; do
        expect=$(cat "$tmp/c/$c.expect")
        got=$("$GRUBENV" --root "$tmp/c/$c" 2>"$tmp/$c.err")
        if [ -f "$tmp/c/$c.warn" ]; then
                grep -qF -- "$(cat "$tmp/c/$c.warn")" "$tmp/$c.err" && warned=1 || warned=
        else
                [ ! -s "$tmp/$c.err" ] && warned=1 || warned=
        fi
        if [ "$got" = "$expect" ] && [ -n "$warned" ]; then
                ok "$c: idlecfg reads \"$expect\""
        else
                not_ok "$c: idlecfg reads \"$got\", expected \"$expect\""
                diag "$(cat "$tmp/$c.err")"
        fi
        if [ -z "$can_mkconfig" ]; then
                skip "$c: grub-mkconfig agrees" "needs root, unshare and grub-mkconfig (Debian's grub2-common)"
                continue
        fi
        rm -f "$tmp/grub.cfg"
        if [ -f "$tmp/c/$c.rejects" ]; then
                if mkconfig "$tmp/c/$c" >/dev/null; then
                        not_ok "$c: grub-mkconfig makes no grub.cfg from these files either"
                        diag "$(cat "$tmp/grub.cfg")"
                else
                        ok "$c: grub-mkconfig makes no grub.cfg from these files either"
                fi
        elif ! theirs=$(mkconfig "$tmp/c/$c"); then
                not_ok "$c: grub-mkconfig runs"
                diag "$(cat "$tmp/mkconfig.log")"
        elif [ "$theirs" = "$expect" ]; then
                ok "$c: grub-mkconfig agrees"
        else
                not_ok "$c: grub-mkconfig writes \"$theirs\", expected \"$expect\""
        fi
done

# files that cannot be read: a warning naming the file, and nothing assumed from it
r=$tmp/hostile
mkdir -p "$r/etc/default/grub.d" "$tmp/outside"
mkfifo "$r/etc/default/grub"
printf 'GRUB_CMDLINE_LINUX=pcie_aspm=off\n' >"$tmp/outside/x.cfg"
ln -s "$tmp/outside/x.cfg" "$r/etc/default/grub.d/10-out.cfg"
printf 'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX ok"\nif true; then :; fi\n' >"$r/etc/default/grub.d/20-ok.cfg"
got=$(timeout 10 "$GRUBENV" --root "$r" 2>"$tmp/hostile.err"); rc=$?
check "a FIFO /etc/default/grub, a grub.d link out of the root, shell code: no hang, no host file, each said" sh -c "
        test $rc -eq 0 && test '$got' = ok &&
        grep -q '$r/etc/default/grub: not a regular file' '$tmp/hostile.err' &&
        grep -q '$r/etc/default/grub.d/20-ok.cfg:2: \"if\" is not run' '$tmp/hostile.err'"

# the planner: a grub.d file turning ASPM off is respected; a later one clearing it too
if ! command -v umockdev-run >/dev/null 2>&1 || ! command -v depmod >/dev/null 2>&1; then
        for i in 1 2 3 4; do skip "the planner on a GRUB root" "needs umockdev-run and depmod"; done
        done_testing
fi
root=$tmp/root
mkroot_installed "$TESTS_DATA/machines/intel-laptop" "$root" >/dev/null 2>&1 || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/etc/default/grub.d"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n' >"$root/etc/default/grub"
# four plans in one recorded-machine session (starting one costs seconds)
printf 'root=%s tmp=%s KVER=%s IDLECFG=%s\n' "$root" "$tmp" "$KVER" "$IDLECFG" >"$tmp/plans"
cat >>"$tmp/plans" <<'EOF'
set -u
d=$root/etc/default/grub.d
pl() { "$IDLECFG" --root "$root" --kernel "$KVER" plan >"$tmp/$1" 2>&1; }
printf 'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT pcie_aspm=off"\n' >"$d/50-aspm.cfg"
pl p1
printf 'GRUB_CMDLINE_LINUX_DEFAULT=quiet # pcie_aspm=off\n' >"$d/60-undo.cfg"
pl p2
rm "$d/60-undo.cfg"
printf 'GRUB_CMDLINE_LINUX_RECOVERY="pcie_aspm=off"\n' >"$d/50-aspm.cfg"
pl p3
printf 'GRUB_CMDLINE_LINUX_DEFAULT="$(echo pcie_aspm=off)"\n' >"$d/50-aspm.cfg"
pl p4
EOF
"$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/intel-laptop" sh "$tmp/plans"
check "pcie_aspm=off from /etc/default/grub.d: no ASPM policy planned" sh -c "
        tr '\n' ' ' <'$tmp/p1' | tr -s ' ' | grep -q 'booted with pcie_aspm=off' && ! grep -q 'pcie_aspm.policy=' '$tmp/p1'"
check "a later grub.d file that clears it: the ASPM policy is planned" sh -c "
        grep -q 'pcie_aspm.policy' '$tmp/p2' && ! tr '\n' ' ' <'$tmp/p2' | tr -s ' ' | grep -q 'booted with pcie_aspm=off'"
check "pcie_aspm=off for the recovery entries only: the ASPM policy is planned" sh -c "
        grep -q 'pcie_aspm.policy' '$tmp/p3' && ! tr '\n' ' ' <'$tmp/p3' | tr -s ' ' | grep -q 'booted with pcie_aspm=off'"
check "a command substitution: a warning naming file and line" sh -c "
        tr '\n' ' ' <'$tmp/p4' | tr -s ' ' | grep -q '50-aspm.cfg:1: \"\$(\" is not expanded'"
done_testing
