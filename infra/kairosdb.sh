#!/usr/bin/env bash
# KairosDB from Maven Central, run with `java` directly, on the Cassandra of
# infra/cassandra.sh (KAIROSDB_DATASTORE=cassandra, the default) or on its
# embedded H2 database (KAIROSDB_DATASTORE=h2).
#   infra/kairosdb.sh install|start|wait|check|stop|status|reset
# See infra/README.md for the variables.
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

NAME=kairosdb
LIB_DIR="$OPENPIE_CACHE/kairosdb-$KAIROSDB_GROUP-$KAIROSDB_VERSION/lib"
# KairosDB reads every *.properties file beside the one it is given, and
# writes one there: it gets a folder of its own.
KAIROSDB_CONF_DIR="$CONF_DIR/kairosdb"
LOG="$LOG_DIR/$NAME.log"
export KAIROSDB_URL="http://$KAIROSDB_HOST:$KAIROSDB_PORT"

install() {
  ensure_dirs
  maven_fetch "$NAME" "$INFRA_HOME/kairosdb/pom.xml" "$LIB_DIR" \
    -Dkairosdb.group="$KAIROSDB_GROUP" -Dkairosdb.version="$KAIROSDB_VERSION"
}

datastore_module() {
  case "$KAIROSDB_DATASTORE" in
    cassandra) echo org.kairosdb.datastore.cassandra.CassandraModule ;;
    h2) echo org.kairosdb.datastore.h2.H2Module ;;
    *) die "KAIROSDB_DATASTORE must be cassandra or h2, not '$KAIROSDB_DATASTORE'" ;;
  esac
}

create_cassandra_tables() {
  port_open "$CASSANDRA_HOST" "$CASSANDRA_NATIVE_PORT" \
    || die "Cassandra is not answering on $CASSANDRA_HOST:$CASSANDRA_NATIVE_PORT; run infra/cassandra.sh start and wait first"
  export KAIROSDB_KEYSPACE
  render "$INFRA_HOME/kairosdb/schema.cql" "$KAIROSDB_CONF_DIR/schema.cql" KAIROSDB_KEYSPACE
  CASSANDRA_HOST="$CASSANDRA_HOST" CASSANDRA_NATIVE_PORT="$CASSANDRA_NATIVE_PORT" \
    CASSANDRA_DATACENTER="$CASSANDRA_DATACENTER" \
    node "$INFRA_HOME/tools/cql.js" exec "$KAIROSDB_CONF_DIR/schema.cql" >/dev/null \
    || die "could not create KairosDB's tables in keyspace $KAIROSDB_KEYSPACE"
  say "KairosDB tables ready in keyspace $KAIROSDB_KEYSPACE (no COMPACT STORAGE)"
}

start() {
  install
  if pid="$(running_pid "$NAME")"; then
    say "$NAME already running (pid $pid)"
    return 0
  fi
  require_free_ports "$NAME"
  # KairosDB's on-disk queue (bigqueue) does not survive every stop: once torn, its delivery thread fails with
  # EOFException in a loop, writes nothing to Cassandra and fills the log (seen here: 58 GB in minutes, every KairosDB
  # suite failing). This stack is for tests and development, so each start begins with an empty queue: points that
  # KairosDB had acknowledged but not yet written when it last stopped are dropped.
  rm -rf "$KAIROSDB_DATA_DIR/queue"
  mkdir -p "$KAIROSDB_CONF_DIR" "$KAIROSDB_DATA_DIR/webroot"
  KAIROSDB_DATASTORE_MODULE="$(datastore_module)"
  export KAIROSDB_HOST KAIROSDB_PORT KAIROSDB_TELNET_PORT KAIROSDB_DATA_DIR KAIROSDB_KEYSPACE \
    KAIROSDB_DATASTORE_MODULE CASSANDRA_HOST CASSANDRA_NATIVE_PORT
  render "$INFRA_HOME/kairosdb/kairosdb.properties" "$KAIROSDB_CONF_DIR/kairosdb.properties" \
    KAIROSDB_HOST KAIROSDB_PORT KAIROSDB_TELNET_PORT KAIROSDB_DATA_DIR KAIROSDB_KEYSPACE \
    KAIROSDB_DATASTORE_MODULE CASSANDRA_HOST CASSANDRA_NATIVE_PORT
  if [[ "$KAIROSDB_DATASTORE" == cassandra ]]; then
    create_cassandra_tables
  fi

  local java
  java="$(java_bin)"
  say "starting $NAME $KAIROSDB_VERSION ($KAIROSDB_DATASTORE) on $KAIROSDB_URL (log: $LOG)"
  cd "$KAIROSDB_DATA_DIR"
  # Java 17: Guice 4.1 defines classes in java.lang through cglib and dies at
  # start-up unless java.lang is opened. The other flags let the on-disk queue
  # (bigqueue) and Netty reach the JDK internals they use to release mapped
  # pages and direct buffers. UTC as in KairosDB's own launcher. java.util:
  # Apache BVal 0.5 reads ArrayList's fields when it validates a tag grouper's
  # `tags` list; closed, every `group_by: [{name: "tag"}]` query fails with
  # 500 "error during validation of [...]" (InaccessibleObjectException).
  start_detached "$NAME" "$LOG" "$java" \
    -Xms64m "-Xmx$KAIROSDB_HEAP" \
    -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError \
    --add-opens=java.base/java.lang=ALL-UNNAMED \
    --add-opens=java.base/java.util=ALL-UNNAMED \
    --add-opens=java.base/java.nio=ALL-UNNAMED \
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
    --add-exports=java.base/sun.nio.ch=ALL-UNNAMED \
    --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED \
    -Duser.timezone=UTC \
    "-Dlogback.configurationFile=file://$INFRA_HOME/kairosdb/logback.xml" \
    -cp "$LIB_DIR/*" \
    org.kairosdb.core.Main -c run -p "$KAIROSDB_CONF_DIR/kairosdb.properties"
  cd - >/dev/null
}

wait_ready() {
  running_pid "$NAME" >/dev/null || die "$NAME is not running; start it first"
  wait_until "$NAME" "$OPENPIE_WAIT_TIMEOUT" port_open "$KAIROSDB_HOST" "$KAIROSDB_PORT"
  local version
  version="$(node "$INFRA_HOME/tools/kairosdb-check.js" wait 60)" \
    || die "$NAME listens but /api/v1/version does not answer 200; see $LOG"
  say "$NAME ready: $KAIROSDB_URL, $version"
}

check() {
  local result
  result="$(node "$INFRA_HOME/tools/kairosdb-check.js" roundtrip)" || die "$NAME round trip failed; see $LOG"
  say "$NAME round trip: $result"
}

status() { server_status "$NAME" "$KAIROSDB_URL ($KAIROSDB_DATASTORE)"; }

reset() { reset_data "$NAME" "$KAIROSDB_DATA_DIR" "its Cassandra keyspace goes with infra/cassandra.sh reset"; }

case "${1:-}" in
  install) install ;;
  start) start ;;
  wait) wait_ready ;;
  check) check ;;
  stop) stop_by_pid_file "$NAME" 30 ;;
  status) status ;;
  reset) reset ;;
  *) die "usage: $0 install|start|wait|check|stop|status|reset" ;;
esac
