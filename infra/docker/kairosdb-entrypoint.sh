#!/bin/sh
# Starts KairosDB in the foreground inside its container (infra/docker/kairosdb.Dockerfile):
# renders kairosdb.properties from the environment, as infra/kairosdb.sh does, then runs the JVM
# with the flags of infra/kairosdb.sh. KairosDB's tables must already exist (infra/kairosdb/schema.cql).
set -eu

# KairosDB reads every *.properties file beside the one it is given, and writes one there:
# the rendered file gets a folder of its own.
conf_dir=/opt/kairosdb/conf
mkdir -p "$KAIROSDB_DATA_DIR/webroot"
export KAIROSDB_HOST KAIROSDB_PORT KAIROSDB_TELNET_PORT KAIROSDB_DATA_DIR KAIROSDB_KEYSPACE \
  KAIROSDB_DATASTORE_MODULE CASSANDRA_HOST CASSANDRA_NATIVE_PORT
# Only these names are replaced; any other dollar sign in the template stays as it is.
# shellcheck disable=SC2016 # the literal ${NAME} list is what envsubst expects
envsubst '${KAIROSDB_HOST} ${KAIROSDB_PORT} ${KAIROSDB_TELNET_PORT} ${KAIROSDB_DATA_DIR} ${KAIROSDB_KEYSPACE} ${KAIROSDB_DATASTORE_MODULE} ${CASSANDRA_HOST} ${CASSANDRA_NATIVE_PORT}' \
  </opt/kairosdb/kairosdb.properties.template >"$conf_dir/kairosdb.properties"

# Cassandra's login for the datastore, when the stack turns authentication on (docker-compose.yml): appended to the
# rendered file, which only the kairosdb user reads, so the password is in no environment and on no command line.
if [ -n "${CASSANDRA_USERNAME:-}" ]; then
  : "${CASSANDRA_PASSWORD_FILE:?set CASSANDRA_PASSWORD_FILE with CASSANDRA_USERNAME}"
  chmod 0600 "$conf_dir/kairosdb.properties"
  printf 'kairosdb.datastore.cassandra.auth.user_name=%s\nkairosdb.datastore.cassandra.auth.password=%s\n' \
    "$CASSANDRA_USERNAME" "$(cat "$CASSANDRA_PASSWORD_FILE")" >>"$conf_dir/kairosdb.properties"
fi

# The write queue (points answered 204, not yet in Cassandra) across restarts: KAIROSDB_QUEUE_ON_START=keep (the
# default here) delivers them after a restart; wipe drops them, as infra/kairosdb.sh does for tests, because a queue
# torn by a crash once looped on EOFException and logged 58 GB. Kept, such a loop is caught by kairosdb-health.sh
# (its own points stop reaching Cassandra: unhealthy) and its logs are capped by compose; the way out is in
# docs/production.md ("KairosDB's write queue").
case "${KAIROSDB_QUEUE_ON_START:-keep}" in
  keep) ;;
  wipe) rm -rf "$KAIROSDB_DATA_DIR/queue"; echo "kairosdb: write queue wiped (KAIROSDB_QUEUE_ON_START=wipe)" ;;
  *) echo "kairosdb: KAIROSDB_QUEUE_ON_START must be keep or wipe" >&2; exit 1 ;;
esac

cd "$KAIROSDB_DATA_DIR"
# Java 17: Guice 4.1 defines classes in java.lang through cglib and dies at start-up unless
# java.lang is opened; Apache BVal reads ArrayList's fields when it validates a tag grouper, so
# group_by tag queries fail with 500 unless java.util is opened; the other flags let the on-disk
# queue (bigqueue) and Netty release mapped pages and direct buffers. UTC as in KairosDB's own
# launcher. An OutOfMemoryError ends the JVM so that the container's restart policy starts a
# fresh one; the serial collector suits the small heap. Keep the flags in step with infra/kairosdb.sh
# (test/integration/deploy checks it).
exec java \
  -Xms64m "-Xmx$KAIROSDB_HEAP" \
  -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError \
  --add-opens=java.base/java.lang=ALL-UNNAMED \
  --add-opens=java.base/java.util=ALL-UNNAMED \
  --add-opens=java.base/java.nio=ALL-UNNAMED \
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
  --add-exports=java.base/sun.nio.ch=ALL-UNNAMED \
  --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED \
  -Duser.timezone=UTC \
  -Dlogback.configurationFile=file:///opt/kairosdb/logback.xml \
  -cp '/opt/kairosdb/lib/*' \
  org.kairosdb.core.Main -c run -p "$conf_dir/kairosdb.properties"
