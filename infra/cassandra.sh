#!/usr/bin/env bash
# Cassandra 5.0 from Maven Central, run with `java` directly (no tarball, no Docker).
#   infra/cassandra.sh install|start|wait|stop|status|reset
# See infra/README.md for the variables.
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

NAME=cassandra
LIB_DIR="$OPENPIE_CACHE/cassandra-$CASSANDRA_VERSION/lib"
YAML="$CONF_DIR/cassandra.yaml"
LOG="$LOG_DIR/$NAME.log"

install() {
  ensure_dirs
  maven_fetch "$NAME" "$INFRA_HOME/cassandra/pom.xml" "$LIB_DIR" -Dcassandra.version="$CASSANDRA_VERSION"
  [[ -d "$PROJECT_ROOT/node_modules/cassandra-driver" ]] \
    || die "the cassandra-driver npm package is missing: run npm ci in $PROJECT_ROOT"
}

jvm_options() {
  grep -v -e '^\s*#' -e '^\s*$' "$INFRA_HOME/cassandra/jvm17.options"
}

start() {
  install
  if pid="$(running_pid "$NAME")"; then
    say "$NAME already running (pid $pid)"
    return 0
  fi
  require_free_ports "$NAME"
  mkdir -p "$CASSANDRA_DATA_DIR/triggers"
  export CASSANDRA_HOST CASSANDRA_NATIVE_PORT CASSANDRA_STORAGE_PORT CASSANDRA_DATA_DIR
  render "$INFRA_HOME/cassandra/cassandra.yaml" "$YAML" \
    CASSANDRA_HOST CASSANDRA_NATIVE_PORT CASSANDRA_STORAGE_PORT CASSANDRA_DATA_DIR

  local java
  java="$(java_bin)"
  local -a options
  mapfile -t options < <(jvm_options)
  say "starting $NAME $CASSANDRA_VERSION on $CASSANDRA_HOST:$CASSANDRA_NATIVE_PORT (log: $LOG)"
  # jamm measures object sizes for memtable accounting; Cassandra's own
  # launcher always loads it as an agent.
  cd "$CASSANDRA_DATA_DIR"
  start_detached "$NAME" "$LOG" "$java" \
    "${options[@]}" \
    "-Xms$CASSANDRA_HEAP" "-Xmx$CASSANDRA_HEAP" \
    "-javaagent:$(echo "$LIB_DIR"/jamm-*.jar)" \
    "-Dcassandra.config=file://$YAML" \
    "-Dlogback.configurationFile=file://$INFRA_HOME/cassandra/logback.xml" \
    "-Dcassandra.logdir=$LOG_DIR" \
    "-Dcassandra.storagedir=$CASSANDRA_DATA_DIR" \
    "-Dcassandra.triggers_dir=$CASSANDRA_DATA_DIR/triggers" \
    -Dcassandra-foreground=yes \
    -Dcassandra.skip_wait_for_gossip_to_settle=0 \
    -cp "$LIB_DIR/*" \
    org.apache.cassandra.service.CassandraDaemon
  cd - >/dev/null
}

wait_ready() {
  running_pid "$NAME" >/dev/null || die "$NAME is not running; start it first"
  wait_until "$NAME" "$OPENPIE_WAIT_TIMEOUT" port_open "$CASSANDRA_HOST" "$CASSANDRA_NATIVE_PORT"
  local version
  version="$(CASSANDRA_HOST="$CASSANDRA_HOST" CASSANDRA_NATIVE_PORT="$CASSANDRA_NATIVE_PORT" \
    CASSANDRA_DATACENTER="$CASSANDRA_DATACENTER" node "$INFRA_HOME/tools/cql.js" wait 60)" \
    || die "$NAME answers on its port but not to CQL; see $LOG"
  say "$NAME ready: CQL $CASSANDRA_HOST:$CASSANDRA_NATIVE_PORT, release $version"
}

status() { server_status "$NAME" "CQL $CASSANDRA_HOST:$CASSANDRA_NATIVE_PORT"; }

reset() { reset_data "$NAME" "$CASSANDRA_DATA_DIR"; }

case "${1:-}" in
  install) install ;;
  start) start ;;
  wait) wait_ready ;;
  stop) stop_by_pid_file "$NAME" 60 ;;
  status) status ;;
  reset) reset ;;
  *) die "usage: $0 install|start|wait|stop|status|reset" ;;
esac
