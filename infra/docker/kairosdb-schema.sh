#!/bin/sh
# One-shot of docker-compose.yml (service kairosdb-schema, run with the cassandra image's cqlsh):
# creates KairosDB's keyspace and tables from infra/kairosdb/schema.cql, without COMPACT STORAGE,
# before KairosDB starts (infra/README.md, "KairosDB 1.2.1 on that Cassandra"). Every statement is
# IF NOT EXISTS, so it runs again harmlessly at each `docker compose up`.
set -eu
: "${CASSANDRA_HOST:=cassandra}"
: "${CASSANDRA_NATIVE_PORT:=9042}"
: "${KAIROSDB_KEYSPACE:=kairosdb}"

# The keyspace name goes into CQL as it is: allow only what an unquoted CQL name may hold.
case "$KAIROSDB_KEYSPACE" in
  '' | [!a-zA-Z]* | *[!a-zA-Z0-9_]*)
    echo "kairosdb-schema: KAIROSDB_KEYSPACE must be letters, digits and _ (got '$KAIROSDB_KEYSPACE')" >&2
    exit 1 ;;
esac

sed "s/\${KAIROSDB_KEYSPACE}/$KAIROSDB_KEYSPACE/g" /openpie/schema.cql >/tmp/kairosdb-schema.cql
cqlsh "$CASSANDRA_HOST" "$CASSANDRA_NATIVE_PORT" --request-timeout=60 -f /tmp/kairosdb-schema.cql
echo "kairosdb-schema: keyspace $KAIROSDB_KEYSPACE and its tables are in place on $CASSANDRA_HOST:$CASSANDRA_NATIVE_PORT"
