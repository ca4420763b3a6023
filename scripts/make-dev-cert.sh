#!/usr/bin/env bash
# Makes a development TLS certificate for tessera-exchange with the openssl CLI: a self-signed
# CA (ca.crt, ca.key) and a server certificate for localhost, 127.0.0.1 and ::1 signed by it
# (server.crt, server.key), in DIR. Keeps what is there if DIR already has them.
#
#   scripts/make-dev-cert.sh [DIR]        (default: build/tls)
#   tessera-exchange --tls-cert DIR/server.crt --tls-key DIR/server.key ...
#   tessera-cli --connect 127.0.0.1:7400 --ca DIR/ca.crt ...      (tessera --connect ... --ca DIR/ca.crt)
#
# For development and tests only: the CA's key sits next to the certificates, so anyone who can
# read DIR can make certificates that the clients given this ca.crt would trust.
set -euo pipefail
dir="${1:-build/tls}"
days="${TESSERA_CERT_DAYS:-825}"
if [ -s "$dir/server.crt" ] && [ -s "$dir/server.key" ] && [ -s "$dir/ca.crt" ]; then
  echo "make-dev-cert: $dir already has a certificate (server.crt, server.key, ca.crt); kept"
  exit 0
fi
command -v openssl >/dev/null || { echo "make-dev-cert: the openssl command is missing (apt-get install openssl)" >&2; exit 1; }
mkdir -p "$dir"
umask 077
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/ca.key" 2>/dev/null
openssl req -x509 -new -key "$dir/ca.key" -sha256 -days "$days" -subj "/CN=Tessera development CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -out "$dir/ca.crt"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/server.key" 2>/dev/null
openssl req -new -key "$dir/server.key" -subj "/CN=localhost" -out "$tmp/server.csr"
cat > "$tmp/server.ext" <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1
EXT
openssl x509 -req -in "$tmp/server.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" \
  -CAcreateserial -CAserial "$tmp/ca.srl" -days "$days" -sha256 -extfile "$tmp/server.ext" \
  -out "$dir/server.crt" 2>/dev/null
chmod 644 "$dir/ca.crt" "$dir/server.crt"
echo "make-dev-cert: wrote $dir/ca.crt, $dir/server.crt and $dir/server.key (localhost, 127.0.0.1, ::1; $days days)"
