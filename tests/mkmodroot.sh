#!/bin/sh
# mkmodroot.sh SPEC OUTROOT KVER
#
# Build a fake kernel module tree OUTROOT/lib/modules/KVER from SPEC and run
# `depmod -b OUTROOT KVER` on it, for tests that use libkmod offline.
#
# SPEC: one module a line; '#' starts a comment line; blank lines are ignored.
#   <name> <builtin|loadable> [field=value ...]
# Fields are modinfo fields, repeated as needed (alias=, parm=, parmtype=,
# license=, description=, depends=, softdep=, ...).  Quoting rule: a value
# runs until the next whitespace-separated word that looks like a field key,
# i.e. matches ^[a-z_][a-z0-9_]*= ; so values may contain spaces (runs of
# whitespace become one space).  A word of the form key=... inside a value
# would start a new field: write it with a leading backslash, "\mode=off"; a
# backslash that starts a word (other than the first of a value) is dropped.
# Example (no line continuation: one module, one line):
#   usbcore builtin parm=autosuspend:default autosuspend delay parmtype=autosuspend:int
#
# loadable: kernel/drivers/idlecfg-test/<name>.ko, a relocatable object built
#   with $CC (default cc) holding a .modinfo section (name=, vermagic= and the
#   fields); depmod and libkmod need nothing else.  Each one also exports the
#   symbol idlecfg_export_<name> (__ksymtab_strings), and depends=a,b makes it
#   reference those of loadable modules a and b, so that depmod writes the
#   dependency to modules.dep as it would for a real module.
# builtin: a line in modules.builtin and <name>.<field>=<value>\0 entries in
#   modules.builtin.modinfo, from which depmod makes modules.builtin.bin and
#   modules.builtin.alias.bin.
# MKMODROOT_CACHE=DIR: copy a tree made before for the same SPEC, KVER and
#   CC from DIR, and keep one made now there (the test suite's cache).
set -eu

if [ "$#" -ne 3 ]; then
	echo "usage: $0 SPEC OUTROOT KVER" >&2
	exit 2
fi
spec=$1 root=$2 kver=$3
: "${CC:=cc}"
PATH=$PATH:/sbin:/usr/sbin
export PATH

moddir=$root/lib/modules/$kver
rm -rf "$moddir"

# MKMODROOT_CACHE=DIR (the test suite sets it under the build directory): a
# tree built once for a SPEC, KVER and CC is copied from DIR/KEY the next
# time (KEY: their SHA-256). The 20-odd compiler runs of a tree cost a second
# of CPU, and the suite builds some hundred roots.
key=
if [ -n "${MKMODROOT_CACHE:-}" ]; then
	key=$( { cat "$spec"; printf '%s\n' "$kver" "$CC"; } | sha256sum | cut -c1-32)
	if [ -d "$MKMODROOT_CACHE/$key" ]; then
		mkdir -p "$moddir"
		cp -R "$MKMODROOT_CACHE/$key/." "$moddir/"
		exit 0
	fi
fi
mkdir -p "$moddir/kernel/drivers/idlecfg-test"
work=$moddir/.mkmodroot
mkdir -p "$work"

# awk writes one C file per loadable module (and its name to $work/loadable),
# modules.builtin, and newline-separated modinfo entries for builtin modules.
awk -v work="$work" -v kver="$kver" -v moddir="$moddir" '
function cstr(s,   i, c, r) {
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		r = r (c == "\\" || c == "\"" || c == "?" ? "\\" : "") c
	}
	return "\"" r "\""
}
function emit(field, value) {
	if (kind == "builtin") {
		print name "." field "=" value > (work "/builtin.modinfo")
	} else {
		printf "static const char mi%d[] __attribute__((section(\".modinfo\"), used, aligned(1))) = %s;\n", ++n, cstr(field "=" value) > cfile
	}
	if (kind == "loadable" && field == "depends") {
		nd = split(value, dep, ",")
		for (d = 1; d <= nd; d++) {
			gsub(/-/, "_", dep[d])
			printf "extern char idlecfg_export_%s[];\nstatic void *const ref_%s __attribute__((used)) = idlecfg_export_%s;\n", dep[d], dep[d], dep[d] > cfile
		}
	}
}
/^[ \t]*(#|$)/ { next }
{
	name = $1; kind = $2
	gsub(/-/, "_", name)
	if (kind != "builtin" && kind != "loadable" || name !~ /^[A-Za-z0-9_]+$/) {
		printf "%s:%d: bad module line\n", FILENAME, FNR > "/dev/stderr"
		exit 1
	}
	if (kind == "builtin") {
		print "kernel/drivers/idlecfg-test/" name ".ko" > (moddir "/modules.builtin")
	} else {
		cfile = work "/" name ".c"; n = 0
		print name > (work "/loadable")
		print "kernel/drivers/idlecfg-test/" name ".ko" > (moddir "/modules.order")
		emit("name", name)
		emit("vermagic", kver " SMP mod_unload ")
		printf "static const char ksym[] __attribute__((section(\"__ksymtab_strings\"), used, aligned(1))) = \"idlecfg_export_%s\";\n", name > cfile
	}
	field = ""
	for (i = 3; i <= NF; i++) {
		if ($i ~ /^[a-z_][a-z0-9_]*=/) {
			if (field != "") emit(field, value)
			field = substr($i, 1, index($i, "=") - 1)
			value = substr($i, index($i, "=") + 1)
		} else if (field == "") {
			printf "%s:%d: value without field: %s\n", FILENAME, FNR, $i > "/dev/stderr"
			exit 1
		} else {
			value = value " " ($i ~ /^\\/ ? substr($i, 2) : $i)
		}
	}
	if (field != "") emit(field, value)
	if (kind == "loadable") close(cfile)
}' "$spec"

: >>"$moddir/modules.builtin"
: >>"$moddir/modules.order"
if [ -f "$work/builtin.modinfo" ]; then
	tr '\n' '\000' <"$work/builtin.modinfo" >"$moddir/modules.builtin.modinfo"
else
	: >"$moddir/modules.builtin.modinfo"
fi
if [ -f "$work/loadable" ]; then
	while read -r m; do
		$CC -c -o "$moddir/kernel/drivers/idlecfg-test/$m.ko" "$work/$m.c"
	done <"$work/loadable"
fi
rm -rf "$work"
depmod -b "$root" "$kver"

# into the cache: copied beside it, then renamed into place (a test running
# in parallel that made the same tree first wins; its copy is the same)
if [ -n "$key" ] && mkdir -p "$MKMODROOT_CACHE" 2>/dev/null; then
	part=$(mktemp -d "$MKMODROOT_CACHE/.part.XXXXXX") &&
		cp -R "$moddir/." "$part/" &&
		{ mv -T "$part" "$MKMODROOT_CACHE/$key" 2>/dev/null || rm -rf "$part"; }
fi
exit 0
