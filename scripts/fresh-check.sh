#!/bin/sh
# Checks the README's promise that `make test` and `make run` work as the first commands
# on a fresh Debian 12 machine: debootstraps a minimal bookworm into a directory, clones
# this repository's HEAD into it, and in a chroot installs only `make`, then:
#   1. as an unprivileged user, `make test` must stop with one apt-get command;
#   2. as root, `make test` (scripts/deps.sh installs the packages) must pass, and the
#      packages it installed must be the ones that command named;
#   3. as the user again, `make test` must now pass: the command was complete;
#   4. as root, `timeout 300 make run` must pass; with --ci, `.ci/run` too.
# Needs root, debootstrap and the Debian mirror; logs go to DIR/logs/. Usage:
#   sudo sh scripts/fresh-check.sh [--ci] [--mirror URL] [--dir DIR]
set -eu

mirror=http://deb.debian.org/debian
dir=/tmp/sim-fresh-root
ci=0
while [ $# -gt 0 ]; do
    case $1 in
        --ci) ci=1 ;;
        --mirror) mirror=$2; shift ;;
        --dir) dir=$2; shift ;;
        *) echo "usage: $0 [--ci] [--mirror URL] [--dir DIR]" >&2; exit 2 ;;
    esac
    shift
done
[ "$(id -u)" = 0 ] || { echo "fresh-check: needs root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null 2>&1 || {
    echo "fresh-check: needs debootstrap: apt-get install -y debootstrap" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
[ -e "$dir" ] && { echo "fresh-check: $dir exists; remove it or pass --dir" >&2; exit 2; }

log() { echo "fresh-check: $*" >&2; }
mounted=0
# shellcheck disable=SC2317  # called by the trap
cleanup() {
    if [ "$mounted" = 1 ]; then
        umount -R "$dir/dev" 2>/dev/null || true
        umount "$dir/proc" "$dir/sys" 2>/dev/null || true
    fi
}
trap cleanup EXIT INT TERM
step() {   # step NAME COMMAND...: runs in the chroot, output to logs/NAME.log, timed
    name=$1; shift
    t0=$(date +%s)
    set +e
    chroot "$dir" "$@" >"$dir/logs/$name.log" 2>&1
    rc=$?
    set -e
    log "$name: exit $rc in $(( $(date +%s) - t0 )) s (log: $dir/logs/$name.log)"
    return $rc
}

log "debootstrap --variant=minbase bookworm $dir $mirror"
debootstrap --variant=minbase bookworm "$dir" "$mirror" >/dev/null
mkdir -p "$dir/logs"
for tool in make gcc git pkg-config; do
    chroot "$dir" sh -c "command -v $tool" >/dev/null 2>&1 || log "not in minbase: $tool"
done
cat >"$dir/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${mirror%/debian}/debian-security bookworm-security main
EOF
cp /etc/resolv.conf "$dir/etc/resolv.conf"
git clone -q "$repo" "$dir/root/sim"
mount -t proc proc "$dir/proc"
mount -t sysfs sys "$dir/sys"
mount --rbind /dev "$dir/dev"
mount --make-rslave "$dir/dev"
mounted=1

step install-make sh -c 'DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make'
chroot "$dir" useradd -m user
git clone -q "$repo" "$dir/home/user/sim"
chroot "$dir" chown -R user:user /home/user/sim

fail=0
if step user-test-before su user -c 'cd ~/sim && make test'; then
    log "FAIL: make test as a user passed on a machine without the packages"; fail=1
fi
printed=$(sed -n 's/^ *\(sudo \|su -c .\)\{0,1\}apt-get install -y \([^'"'"']*\).*/\2/p' \
    "$dir/logs/user-test-before.log")
log "printed for the user: apt-get install -y $printed"

step root-test sh -c 'cd /root/sim && make test' || fail=1
installed=$(sed -n 's/^deps: installing missing packages: //p' "$dir/logs/root-test.log")
if [ "$printed" != "$installed" ]; then
    log "FAIL: the user was told to install '$printed' but root installed '$installed'"; fail=1
fi
step user-test-after su user -c 'cd ~/sim && make test' || fail=1
step root-run sh -c 'cd /root/sim && timeout 300 make run' || fail=1
if [ "$ci" = 1 ]; then
    step root-ci sh -c 'cd /root/sim && bash .ci/run' || fail=1
fi
for f in "$dir"/logs/*test*.log; do
    log "$(basename "$f"): $(grep -E '^all: [0-9]+ passed' "$f" || echo 'no summary')"
done
if [ "$fail" = 0 ]; then log PASS; else log FAIL; fi
exit $fail
