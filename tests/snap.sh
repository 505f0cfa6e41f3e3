# tests/snap.sh: snap FILE, a snapshot of the mock /sys of a umockdev testbed
# (sourced by tests/lib.sh, and by scripts that run inside the testbed).
# Every device attribute compares byte for byte. Module parameters compare by
# value: the recorded pcie_aspm/parameters/policy reads "[default] performance
# ...", a list the kernel shows but does not take back, so rollback writes the
# selected word, which the real kernel shows as the same list again.
snap() {
        (cd "$UMOCKDEV_DIR/sys" &&
         find . -type f ! -path '*/parameters/*' -exec sha256sum {} + | sort -k2 &&
         find . -type f -path '*/parameters/*' | sort | while IFS= read -r f; do
                v=$(cat "$f")
                case $v in *\[*) v=$(printf '%s' "$v" | sed -n 's/.*\[\([^]]*\)\].*/\1/p') ;; esac
                printf '%s value=%s\n' "$f" "$v"
         done) >"$1"
}
