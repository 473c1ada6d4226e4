# lib.sh: what the shell tests share, sourced (not run: only test_*.sh are tests).
# Sets root (the repository), bin (the executables), tmp (a directory removed at exit)
# and pids (processes started in the background, killed at exit); gives free_port and
# doc_block, which cuts a tested example out of a document.
root=${SIM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${SIM_BIN:-$root/bin}
tmp=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# A TCP port that was free on 127.0.0.1 a moment ago.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# doc_block DOC NAME OUT: the fenced block after the line "<!-- tested: NAME -->" in DOC
# (relative to root) into OUT, the example ports 7700 and 7701 replaced by $P and $C;
# exits the test with a FAIL line when the document has no such block.
doc_block() {
    awk -v m="<!-- tested: $2 -->" '$0 == m {f=1; next} f && /^```/ {if (in_) exit; in_=1; next} f && in_' \
        "$root/$1" | sed "s/7700/${P:-7700}/g; s/7701/${C:-7701}/g" >"$3"
    [ -s "$3" ] || { echo "FAIL no block marked 'tested: $2' in $1"; exit 1; }
}
