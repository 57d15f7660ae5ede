#!/bin/sh
# One-shot `cassandra-setup` of docker-compose.yml (the cassandra image's cqlsh, as root), before KairosDB and the
# nodes start; every step is idempotent, so it runs again harmlessly at each `docker compose up`:
#   1. the superuser openpie_admin replaces the image's cassandra/cassandra, which loses its login;
#   2. the keyspaces openpie and kairosdb, NetworkTopologyStrategy with CASSANDRA_RF replicas in CASSANDRA_DC;
#   3. the roles openpie (the nodes) and kairosdb, each with its password from secrets-init and the rights it needs;
#   4. KairosDB's tables, without COMPACT STORAGE (infra/kairosdb/schema.cql; infra/README.md says why).
# Passwords never reach a command line: cqlsh reads them from a credentials file and statements from a file (mode 0600).
set -eu
umask 077
: "${CASSANDRA_HOST:=cassandra}"
: "${CASSANDRA_NATIVE_PORT:=9042}"
: "${CASSANDRA_DC:=datacenter1}"
: "${CASSANDRA_RF:=1}"
: "${KAIROSDB_KEYSPACE:=kairosdb}"
: "${OPENPIE_KEYSPACE:=openpie}"
: "${SETUP_TIMEOUT_SECONDS:=300}"
secrets=/run/openpie-secrets
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

say() { echo "cassandra-setup: $*"; }
die() { say "$*" >&2; exit 1; }

# Names go into CQL as they are: allow only what an unquoted CQL name may hold.
for name in "$KAIROSDB_KEYSPACE" "$OPENPIE_KEYSPACE" "$CASSANDRA_DC"; do
  case "$name" in
    '' | [!a-zA-Z]* | *[!a-zA-Z0-9_]*) die "keyspace and data centre names must be letters, digits and _ (got '$name')" ;;
  esac
done
case "$CASSANDRA_RF" in [1-9]) ;; *) die "CASSANDRA_RF must be 1 to 9 (got '$CASSANDRA_RF')" ;; esac

admin_password=$(cat "$secrets/admin-password")
openpie_password=$(cat "$secrets/openpie-password")
kairosdb_password=$(cat "$secrets/kairosdb-password")

# cql USER PASSWORD cqlsh-args...
cql() {
  printf '[PlainTextAuthProvider]\nusername = %s\npassword = %s\n' "$1" "$2" >"$work/credentials"
  shift 2
  cqlsh "$CASSANDRA_HOST" "$CASSANDRA_NATIVE_PORT" --credentials="$work/credentials" --request-timeout=60 "$@"
}
can_log_in() { cql "$1" "$2" -e 'SELECT release_version FROM system.local' >/dev/null 2>&1; }

# Cassandra makes its default role about 10 s after its port opens: wait for either login.
deadline=$(( $(date +%s) + SETUP_TIMEOUT_SECONDS ))
while :; do
  if can_log_in openpie_admin "$admin_password"; then
    break
  elif can_log_in cassandra cassandra; then
    printf "CREATE ROLE IF NOT EXISTS openpie_admin WITH SUPERUSER = true AND LOGIN = true AND PASSWORD = '%s';\n" \
      "$admin_password" >"$work/admin.cql"
    cql cassandra cassandra -f "$work/admin.cql"
    say "made the superuser openpie_admin"
    break
  fi
  [ "$(date +%s)" -lt "$deadline" ] || die "neither openpie_admin (the cassandra-admin-password secret) nor cassandra/cassandra can log in on $CASSANDRA_HOST:$CASSANDRA_NATIVE_PORT after ${SETUP_TIMEOUT_SECONDS}s"
  sleep 5
done

replication="{'class': 'NetworkTopologyStrategy', '$CASSANDRA_DC': $CASSANDRA_RF}"
# GRANT CREATE ON ALL KEYSPACES: the service and KairosDB 1.2.1 both run CREATE KEYSPACE IF NOT EXISTS at start,
# which Cassandra authorizes before it finds the keyspace there. They get every right on their own keyspace only.
cat >"$work/setup.cql" <<CQL
ALTER ROLE cassandra WITH PASSWORD = '$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')' AND SUPERUSER = false AND LOGIN = false;
CREATE KEYSPACE IF NOT EXISTS $OPENPIE_KEYSPACE WITH replication = $replication;
CREATE KEYSPACE IF NOT EXISTS $KAIROSDB_KEYSPACE WITH replication = $replication;
CREATE ROLE IF NOT EXISTS openpie WITH LOGIN = true AND PASSWORD = '$openpie_password';
ALTER ROLE openpie WITH PASSWORD = '$openpie_password';
GRANT CREATE ON ALL KEYSPACES TO openpie;
GRANT ALL PERMISSIONS ON KEYSPACE $OPENPIE_KEYSPACE TO openpie;
CREATE ROLE IF NOT EXISTS kairosdb WITH LOGIN = true AND PASSWORD = '$kairosdb_password';
ALTER ROLE kairosdb WITH PASSWORD = '$kairosdb_password';
GRANT CREATE ON ALL KEYSPACES TO kairosdb;
GRANT ALL PERMISSIONS ON KEYSPACE $KAIROSDB_KEYSPACE TO kairosdb;
CQL
cql openpie_admin "$admin_password" -f "$work/setup.cql"
say "keyspaces $OPENPIE_KEYSPACE and $KAIROSDB_KEYSPACE ($replication), roles openpie and kairosdb in place"

sed "s/\${KAIROSDB_KEYSPACE}/$KAIROSDB_KEYSPACE/g" /openpie/schema.cql >"$work/kairosdb-schema.cql"
cql openpie_admin "$admin_password" -f "$work/kairosdb-schema.cql"
say "KairosDB's tables are in place in $KAIROSDB_KEYSPACE"
