#!/usr/bin/env bash
# Run a command on this host as if no Python were installed: every Python standard library,
# site-packages folder and libpython that the Pythons on PATH (and the usual system places) use
# is hidden behind an empty mount, in a private mount namespace that ends with the command.
#
#   packaging/without_python.sh dist/cann-config/cann-config --version
#
# This is how the release check shows that the bundle needs no Python on the target. Exit status:
# the command's own, or 125 when Python cannot be hidden here (no `unshare`, no permission for a
# mount namespace, or a Python still starts inside it) — callers treat 125 as "not checked".
set -euo pipefail

[ $# -gt 0 ] || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 2; }
command -v unshare >/dev/null || { echo "without_python.sh: unshare not found" >&2; exit 125; }

# What to hide, asked of each Python we can find (it knows its own prefixes).
hide=$(
    for py in python3 python "${PYTHON:-}" /usr/bin/python3 /usr/local/bin/python3; do
        [ -n "$py" ] && command -v "$py" >/dev/null 2>&1 || continue
        "$py" - <<'EOF' 2>/dev/null || true
import glob, sys
roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, "/usr", "/usr/local"}
for root in sorted(roots):
    for path in glob.glob(root + "/lib/python3*") + glob.glob(root + "/lib64/python3*"):
        print(path)
    for path in glob.glob(root + "/lib/libpython3*") + glob.glob(root + "/lib/*-linux-gnu/libpython3*"):
        print(path)
EOF
    done | sort -u
)

# The namespace: as root a plain mount namespace; otherwise a user namespace mapped to root.
if [ "$(id -u)" = 0 ] && unshare --mount --propagation private true 2>/dev/null; then
    ns=(unshare --mount --propagation private)
elif unshare --map-root-user --mount --propagation private true 2>/dev/null; then
    ns=(unshare --map-root-user --mount --propagation private)
else
    echo "without_python.sh: cannot create a mount namespace here" >&2
    exit 125
fi

exec "${ns[@]}" bash -c '
    hide=$1; shift
    while IFS= read -r path; do
        [ -n "$path" ] || continue
        if [ -d "$path" ] && [ ! -L "$path" ]; then
            mount -t tmpfs -o size=1k,mode=555 none "$path" || exit 125
        elif [ -f "$path" ] && [ ! -L "$path" ]; then
            mount --bind /dev/null "$path" || exit 125
        fi
    done <<< "$hide"
    for py in python3 python /usr/bin/python3 /usr/local/bin/python3; do
        if command -v "$py" >/dev/null 2>&1 && "$py" -c "pass" >/dev/null 2>&1; then
            echo "without_python.sh: $py still runs after hiding; not checked" >&2
            exit 125
        fi
    done
    exec "$@"
' without_python "$hide" "$@"
