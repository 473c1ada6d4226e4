# lab_netns.sh: the lab of network namespaces the --lab tests share, sourced after
# lib.sh (not run: only test_*.sh are tests). lab_netns_up makes three namespaces
# $pre-op, $pre-sim, $pre-aux (10.77.40.1 .. 3, tests/data/lab-3-hosts.json) joined by
# a bridge in $pre-br, with `tc netem delay 1ms` on each link where the kernel has netem
# (netem=yes; otherwise said, netem=no, and the links carry no added delay), and
# Debian's sshd in each with a generated host key and an authorized key in $tmp
# ($tmp/ssh_config for ssh -F). LAB_WRAP_<host>: a command line the host's sshd runs
# under (a time namespace: "unshare --time --fork --monotonic 7"), so everything started
# there through ssh lives in it. Namespaces are removed at exit (trap).
[ "$(id -u)" = 0 ] || { echo "FAIL needs root to make network namespaces"; exit 1; }
[ -x /usr/sbin/sshd ] || { echo "FAIL /usr/sbin/sshd missing: apt-get install openssh-server (scripts/deps.sh)"; exit 1; }
pre=lab$$
hosts="op sim aux"
netns_cleanup() {
    for h in $hosts br; do
        for p in $(ip netns pids "$pre-$h" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
        ip netns del "$pre-$h" 2>/dev/null
    done
    cleanup
}
trap netns_cleanup EXIT
trap 'exit 1' INT TERM HUP

lab_netns_up() {
    mkdir -p /run/sshd
    ssh-keygen -q -t ed25519 -N '' -f "$tmp/host_key" && ssh-keygen -q -t ed25519 -N '' -f "$tmp/id" || exit 1
    cp "$tmp/id.pub" "$tmp/authorized_keys"
    cat >"$tmp/ssh_config" <<CFG
Host *
    IdentityFile $tmp/id
    IdentitiesOnly yes
    UserKnownHostsFile $tmp/known_hosts
    StrictHostKeyChecking yes
    LogLevel ERROR
CFG
    ip netns add "$pre-br" && ip -n "$pre-br" link add br0 type bridge && ip -n "$pre-br" link set br0 up || exit 1
    netem=yes
    i=1
    for h in $hosts; do
        ns=$pre-$h
        addr=10.77.40.$i
        ip netns add "$ns" || exit 1
        ip -n "$ns" link add eth0 type veth peer name p$i netns "$pre-br" || exit 1
        ip -n "$pre-br" link set p$i master br0 up
        ip -n "$ns" addr add "$addr/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
        if ! ip netns exec "$ns" tc qdisc add dev eth0 root netem delay 1ms 2>/dev/null; then netem=no; fi
        echo "$addr $(cat "$tmp/host_key.pub")" >>"$tmp/known_hosts"
        cat >"$tmp/sshd_$h" <<CFG
ListenAddress $addr
Port 22
HostKey $tmp/host_key
AuthorizedKeysFile $tmp/authorized_keys
PidFile $tmp/sshd_$h.pid
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
CFG
        eval "wrap=\${LAB_WRAP_$h:-}"
        # shellcheck disable=SC2086 # the wrapper is words
        ip netns exec "$ns" $wrap /usr/sbin/sshd -f "$tmp/sshd_$h" -D -e 2>"$tmp/sshd_$h.log" &
        pids="$pids $!"
        i=$((i + 1))
    done
    [ $netem = yes ] || echo "note: this kernel has no netem qdisc (sch_netem): the links carry no added delay"
    # every sshd answers (a key login from op) before the lab starts: bounded retries
    for a in 10.77.40.1 10.77.40.2 10.77.40.3; do
        n=0
        until ip netns exec "$pre-op" ssh -F "$tmp/ssh_config" -o BatchMode=yes "root@$a" true 2>/dev/null; do
            n=$((n + 1))
            [ $n -lt 50 ] || { echo "FAIL sshd on $a never answered"; cat "$tmp"/sshd_*.log; exit 1; }
            sleep 0.1
        done
    done
}
