#!/bin/sh
# tests/completion.sh: the bash completion, with bash-completion's
# _init_completion absent (fallback) and, when installed, present
. "$top_srcdir/tests/lib.sh"
command -v bash >/dev/null 2>&1 || skip_all "bash not installed"

COMPLETION=$top_srcdir/src/completion/idlecfg.bash-completion
BASH_COMPLETION=${BASH_COMPLETION_SCRIPT:-/usr/share/bash-completion/bash_completion}
export COMPLETION BASH_COMPLETION

N=24
plan $((2 * N))

# a target root with profiles and module trees, an extra profiles dir and a
# fake sysfs; nothing is written outside $tmp
R=$tmp/root
mkdir -p "$R/usr/share/idlecfg/profiles" "$R/etc/idlecfg/profiles" \
        "$R/lib/modules/6.1.0-1" "$R/lib/modules/6.2.0-2" "$tmp/extra"
: >"$R/usr/share/idlecfg/profiles/balanced.profile"
: >"$R/usr/share/idlecfg/profiles/server.profile"
: >"$R/etc/idlecfg/profiles/mine.profile"
: >"$R/etc/idlecfg/profiles/server.profile"
: >"$R/etc/idlecfg/profiles/README"
: >"$R/lib/modules/not-a-kernel"
: >"$tmp/extra/extra.profile"
: >"$tmp/extra/balanced.profile"
S=$tmp/sys
mkdir -p "$S/bus/pci/devices/0000:00:14.0" "$S/bus/usb/devices/1-4" "$S/bus/usb/devices/1-4:1.0" \
        "$S/class/scsi_host/host0" "$S/class/nvme/nvme0"
echo 046d >"$S/bus/usb/devices/1-4/idVendor"
echo c53f >"$S/bus/usb/devices/1-4/idProduct"

# comp MODE LINE WORD...: complete the last WORD (COMP_WORDS as bash splits
# LINE, at '=' and ':' too); prints COMPREPLY sorted, fails on any stderr
comp() {
        bash --norc --noprofile -c '
                mode=$1 line=$2
                shift 2
                if [ "$mode" = full ]; then
                        . "$BASH_COMPLETION" || exit 1
                        declare -F _init_completion >/dev/null || { echo "no _init_completion" >&2; exit 1; }
                else
                        unset -f _init_completion _filedir __ltrim_colon_completions 2>/dev/null
                fi
                . "$COMPLETION" || exit 1
                complete -p idlecfg >/dev/null || exit 1
                COMP_WORDS=("$@")
                COMP_CWORD=$(($# - 1))
                COMP_LINE=$line
                COMP_POINT=${#line}
                COMP_TYPE=9 COMP_KEY=9
                COMPREPLY=()
                _idlecfg idlecfg "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                printf "%s\n" "${COMPREPLY[@]}"
        ' comp "$@" >"$tmp/comp.raw" 2>"$tmp/comp.err" || { cat "$tmp/comp.err"; return 1; }
        if [ -s "$tmp/comp.err" ]; then
                cat "$tmp/comp.err"
                return 1
        fi
        grep -v '^$' "$tmp/comp.raw" | sort
}

# expect EXPECTED MODE LINE WORD...: the sorted completions are EXPECTED
# (newline-separated)
expect() {
        _want=$1
        shift
        comp "$@" >"$tmp/comp.out" || return 1
        printf '%s\n' "$_want" | grep -v '^$' | sort >"$tmp/comp.want"
        diff -u "$tmp/comp.want" "$tmp/comp.out"
}

# every completion of the live system's devices looks like a device name
sane_devices() {
        comp "$@" >"$tmp/comp.out" || return 1
        cat "$tmp/comp.out"
        ! grep -Ev '^([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]|[0-9a-f]{4}:[0-9a-f]{4}|host[0-9]+|nvme[0-9]+)$' "$tmp/comp.out"
}

# the long options are all offered
all_options() {
        comp "$@" >"$tmp/comp.out" || return 1
        for _o in --root --kernel --json --profile --profiles-dir --format --dry-run --force --keep-going --wait \
                --seconds --measure --verbose --help --version; do
                grep -qx -- "$_o" "$tmp/comp.out" || { echo "missing $_o"; cat "$tmp/comp.out"; return 1; }
        done
}

# for each verb: the long options completed after "idlecfg VERB --" are the
# ones "idlecfg help VERB" lists (the verb table of src/cli/idlecfg.c)
verb_options() {
        for _v in detect plan explain install apply rollback verify refresh measure; do
                comp "$1" "idlecfg $_v --" idlecfg "$_v" -- >"$tmp/comp.out" || return 1
                "$IDLECFG" help "$_v" | sed -n '/^Options:/,/^$/s/^  \(-[a-zA-Z], \|    \)\(--[a-z-]*\).*/\2/p' | sort >"$tmp/help.out"
                diff -u "$tmp/help.out" "$tmp/comp.out" || { echo "verb $_v"; return 1; }
        done
}

# the fake sysfs for the device completions
with_sys() (
        _IDLECFG_SYSFS=$S
        export _IDLECFG_SYSFS
        "$@"
)

FORMATS='cmdline
json
link
modprobe
networkmanager
sysctl
text
tmpfiles
udev'

run_mode() {
        m=$1
        check "$m: verbs after 'idlecfg '" expect 'apply
detect
explain
facts
help
install
measure
plan
power-source
refresh
report
rollback
steps
verify' "$m" 'idlecfg ' idlecfg ''
        check "$m: each verb offers the options 'idlecfg help VERB' lists, no other" verb_options "$m"
        check "$m: help takes a verb" expect 'refresh
report
rollback' "$m" 'idlecfg help r' idlecfg help r
        check "$m: an option install does not take is not offered" expect '--kernel' "$m" 'idlecfg install --k' idlecfg install --k
        check "$m: rollback takes apply, install or all" expect 'all
apply' "$m" 'idlecfg rollback a' idlecfg rollback a
        check "$m: steps done takes the boot steps' ids" expect 'update-grub
update-initramfs' "$m" 'idlecfg steps done kernel-install up' idlecfg steps done kernel-install up
        check "$m: options after 'idlecfg -'" all_options "$m" 'idlecfg -' idlecfg -
        check "$m: --format= values" expect "$FORMATS" "$m" 'idlecfg plan --format=' idlecfg plan --format =
        check "$m: --format VALUE values" expect "$FORMATS" "$m" 'idlecfg plan --format ' idlecfg plan --format ''
        check "$m: --format=j prefix" expect json "$m" 'idlecfg plan --format=j' idlecfg plan --format = j
        check "$m: install --format offers install's format" expect salt "$m" 'idlecfg install --format ' idlecfg install --format ''
        check "$m: verify --format= offers verify's formats" expect 'json
prometheus
text' "$m" 'idlecfg verify --format=' idlecfg verify --format =
        check "$m: -f t prefix" expect 'text
tmpfiles' "$m" 'idlecfg -f t' idlecfg -f t
        check "$m: profiles from --root" expect 'balanced
mine
server' "$m" "idlecfg --root $R plan --profile " idlecfg --root "$R" plan --profile ''
        check "$m: profiles from -r, --profiles-dir, deduplicated" expect 'balanced
extra
mine
server' "$m" "idlecfg -r $R --profiles-dir $tmp/extra plan -p " idlecfg -r "$R" --profiles-dir "$tmp/extra" plan -p ''
        check "$m: kernels from --root" expect '6.1.0-1
6.2.0-2' "$m" "idlecfg --root $R --kernel " idlecfg --root "$R" --kernel ''
        check "$m: kernels from --root=, with a prefix" expect '6.2.0-2' "$m" "idlecfg --root=$R -k 6.2" idlecfg --root = "$R" -k 6.2
        check "$m: verb after options with values" expect plan "$m" "idlecfg -r $R -k 6.1.0-1 pl" idlecfg -r "$R" -k 6.1.0-1 pl
        check "$m: explain devices on this machine are sane" sane_devices "$m" 'idlecfg explain ' idlecfg explain ''
        check "$m: explain devices from a fake sysfs" with_sys expect '0000:00:14.0
046d:c53f
host0
nvme0' "$m" 'idlecfg explain ' idlecfg explain ''
        check "$m: explain vendor:product after the colon" with_sys expect c53f "$m" 'idlecfg explain 046d:c' idlecfg explain 046d : c
        check "$m: --seconds offers lengths" expect '10
20
60' "$m" 'idlecfg measure --seconds ' idlecfg measure --seconds ''
        check "$m: a verb after --measure N" expect 'rollback' "$m" 'idlecfg --measure 20 ro' idlecfg --measure 20 ro
        check "$m: explain takes one device, then nothing" expect '' "$m" 'idlecfg explain host0 ' idlecfg explain host0 ''
}

run_mode fallback
if [ -f "$BASH_COMPLETION" ]; then
        run_mode full
else
        _i=0
        while [ $_i -lt $N ]; do
                skip "full: $BASH_COMPLETION not installed"
                _i=$((_i + 1))
        done
fi
done_testing
