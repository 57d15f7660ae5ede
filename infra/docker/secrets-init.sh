#!/bin/sh
# One-shot `secrets-init` of docker-compose.yml: makes each secret the stack needs the first time, keeps it in the
# `secrets` volume (mounted here only), and at every run copies each consumer its own: one volume per consumer, owned
# by the user that reads it, mode 0400. So no secret has a default, none is in an environment variable, and a service
# sees only the secrets it uses (docs/production.md "Secrets").
#
# A secret already in /secrets/master is kept: to bring your own, or to rotate one, write or delete the file there
# and run `docker compose up -d` again (the consumers that read it must then be restarted).
set -eu
umask 077

master=/secrets/master
mkdir -p "$master"

say() { echo "secrets-init: $*"; }

# random_hex BYTES: 2 x BYTES hex digits, no newline (the service strips one trailing newline; Redis and cqlsh read
# the value as it is).
random_hex() { printf '%s' "$(openssl rand -hex "$1")"; }

# The credential key: 32 random bytes, base64url without padding (docs/production.md "Credential key").
random_key() { printf '%s' "$(openssl rand -base64 32 | tr '+/' '-_' | tr -d '=\n')"; }

# make_secret NAME COMMAND...: writes COMMAND's output to $master/NAME unless a non-empty one is there.
make_secret() {
  name=$1
  shift
  [ -s "$master/$name" ] && return 0
  "$@" >"$master/$name.tmp"
  mv "$master/$name.tmp" "$master/$name"
  say "made $name"
}

make_secret admin-token random_hex 20            # ADMIN_TOKEN: 40 characters
make_secret metrics-token random_hex 24          # METRICS_TOKEN
make_secret backbone-password random_hex 24      # the nodes' login on Mosquitto
make_secret redis-password random_hex 24         # Redis requirepass
make_secret cassandra-admin-password random_hex 24     # Cassandra superuser openpie_admin (cassandra-setup only)
make_secret cassandra-openpie-password random_hex 24   # Cassandra role openpie (the nodes)
make_secret cassandra-kairosdb-password random_hex 24  # Cassandra role kairosdb
make_secret credential-key random_key            # CREDENTIAL_KEY_FILE of every node

# deliver DIR OWNER NAME SOURCE: $master/SOURCE becomes DIR/NAME, owned by OWNER (uid:gid), mode 0400.
deliver() {
  cp "$master/$4" "$1/$3.tmp"
  chown "$2" "$1/$3.tmp"
  chmod 0400 "$1/$3.tmp"
  mv "$1/$3.tmp" "$1/$3"
}

# own DIR OWNER: the volume's root is readable by its consumer only.
own() {
  chown "$2" "$1"
  chmod 0500 "$1"
}

# The nodes run as the image's `node` user (uid 1000, Dockerfile).
nodes=/secrets/nodes
for name in admin-token metrics-token backbone-password redis-password credential-key; do
  deliver "$nodes" 1000:1000 "$name" "$name"
done
deliver "$nodes" 1000:1000 cassandra-password cassandra-openpie-password
own "$nodes" 1000:1000

# cassandra-setup runs as root in the cassandra image.
cassandra=/secrets/cassandra
for name in cassandra-admin-password cassandra-openpie-password cassandra-kairosdb-password; do
  deliver "$cassandra" 0:0 "${name#cassandra-}" "$name"
done
own "$cassandra" 0:0

# KairosDB runs as uid 1001 (infra/docker/kairosdb.Dockerfile).
kairosdb=/secrets/kairosdb
deliver "$kairosdb" 1001:1001 cassandra-password cassandra-kairosdb-password
own "$kairosdb" 1001:1001

# mosquitto-start.sh reads it as root, before Mosquitto drops to its own user.
mosquitto=/secrets/mosquitto
deliver "$mosquitto" 0:0 backbone-password backbone-password
own "$mosquitto" 0:0

# Redis reads the included file as the image's `redis` user (uid 999); its health check reads the password as root.
redis=/secrets/redis
printf 'requirepass %s\n' "$(cat "$master/redis-password")" >"$master/redis-auth.conf"
deliver "$redis" 999:999 redis-auth.conf redis-auth.conf
deliver "$redis" 999:999 redis-password redis-password
rm -f "$master/redis-auth.conf"
own "$redis" 999:999

# TLS for the balancer: HAProxy loads every PEM file (certificate chain, then key) of its certificate folder and
# runs as uid 99 (the haproxy image's user). With none there, a self-signed one for OPENPIE_TLS_HOSTNAME, for a first
# try only: clients must be told to trust it. Bring a real one by putting its PEM in the `tls` volume
# (docs/production.md "TLS certificates"); this script never replaces a PEM it finds.
tls=/secrets/tls
: "${OPENPIE_TLS_HOSTNAME:=localhost}"
if ! ls "$tls"/*.pem >/dev/null 2>&1; then
  work=$(mktemp -d)
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 825 \
    -subj "/CN=$OPENPIE_TLS_HOSTNAME" \
    -addext "subjectAltName=DNS:$OPENPIE_TLS_HOSTNAME,DNS:localhost,IP:127.0.0.1" \
    -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
  cat "$work/cert.pem" "$work/key.pem" >"$tls/self-signed.pem"
  rm -rf "$work"
  say "made a self-signed certificate for $OPENPIE_TLS_HOSTNAME (tls/self-signed.pem): replace it before going live"
fi
chown 99:99 "$tls" "$tls"/*.pem
chmod 0400 "$tls"/*.pem
chmod 0500 "$tls"

say "secrets in place"
