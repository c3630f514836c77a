#!/usr/bin/env bash
# Makes a venue CA and a certificate for the venue broker, as deploy/install.sh does:
#
#   deploy/venue-certificates.sh DIR [--host NAME] [--name DNS]... [--ip ADDRESS]...
#
# DIR gets ca.crt and ca.key (the venue CA: basicConstraints CA:TRUE, keyUsage
# keyCertSign and cRLSign, both critical), server.crt and server.key (keyUsage
# digitalSignature, extendedKeyUsage serverAuth, subjectAltName: NAME, NAME.local,
# localhost, each --name, 127.0.0.1, ::1, each --ip, and this machine's own addresses
# from `hostname -I`). Strict verifiers (Python 3.13, Go, browsers) accept them. Existing
# files are never overwritten. NAME defaults to this machine's host name.

set -euo pipefail

die() { printf 'error: %s\n' "$*" >&2; exit 1; }

DIR=""
HOST="$(hostname)"
NAMES=()
IPS=()
OWN_IPS=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --host) [[ $# -ge 2 ]] || die "--host needs a name"; HOST="$2"; shift ;;
        --name) [[ $# -ge 2 ]] || die "--name needs a name"; NAMES+=("$2"); shift ;;
        --ip) [[ $# -ge 2 ]] || die "--ip needs an address"; IPS+=("$2"); shift ;;
        --no-own-ips) OWN_IPS=0 ;;
        -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) [[ -z "$DIR" ]] || die "one directory only"; DIR="$1" ;;
    esac
    shift
done
[[ -n "$DIR" ]] || die "which directory? (see --help)"
[[ "$HOST" =~ ^[A-Za-z0-9.-]+$ ]] || die "not a host name: $HOST"
for f in ca.crt ca.key server.crt server.key; do
    [[ ! -e "$DIR/$f" ]] || die "$DIR/$f exists: move the old files away first"
done
if [[ $OWN_IPS -eq 1 ]]; then
    # shellcheck disable=SC2207
    IPS+=($(hostname -I 2>/dev/null || true))
fi

san="DNS:$HOST,DNS:$HOST.local,DNS:localhost"
for n in "${NAMES[@]}"; do san+=",DNS:$n"; done
for ip in 127.0.0.1 ::1 "${IPS[@]}"; do
    [[ ",$san," == *",IP:$ip,"* ]] || san+=",IP:$ip"
done

mkdir -p "$DIR"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/openssl.cnf" <<EOF
[req]
distinguished_name = dn
prompt = no
[dn]
[ca]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = $san
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid, issuer
EOF
key=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
(
    umask 077
    openssl req -x509 "${key[@]}" -days 3650 -config "$work/openssl.cnf" -extensions ca \
        -subj "/CN=billiards venue CA ($HOST)" -keyout "$DIR/ca.key" -out "$DIR/ca.crt" 2>/dev/null
    openssl req -new "${key[@]}" -config "$work/openssl.cnf" -subj "/CN=$HOST" \
        -keyout "$DIR/server.key" -out "$work/server.csr" 2>/dev/null
    # 825 days: the longest server certificate Apple's devices accept
    openssl x509 -req -in "$work/server.csr" -CA "$DIR/ca.crt" -CAkey "$DIR/ca.key" \
        -CAserial "$work/ca.srl" -CAcreateserial -days 825 -extfile "$work/openssl.cnf" \
        -extensions server -out "$DIR/server.crt" 2>/dev/null
)
chmod 0644 "$DIR/ca.crt" "$DIR/server.crt"
chmod 0600 "$DIR/ca.key"
chmod 0640 "$DIR/server.key"
printf 'certificate for %s: %s\n' "$HOST" "$san"
