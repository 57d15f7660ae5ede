#!/usr/bin/env bash
# The whole test stack at once: Cassandra, KairosDB (on that Cassandra), Mosquitto and Redis.
#   infra/stack.sh install|start|wait|check|stop|status|reset
# OPENPIE_SERVICES picks a subset, e.g. OPENPIE_SERVICES="mosquitto", for every subcommand.
# start-all.sh, wait-all.sh and stop-all.sh are shorthands for this script.
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

: "${OPENPIE_SERVICES:=cassandra kairosdb mosquitto redis}"

wants() { [[ " $OPENPIE_SERVICES " == *" $1 "* ]]; }
run() { "$INFRA_HOME/$1.sh" "$2"; }

# KairosDB on Cassandra needs Cassandra answering before it starts (it creates
# its tables there first); the rest can start side by side.
kairosdb_needs_cassandra() { wants kairosdb && [[ "$KAIROSDB_DATASTORE" == cassandra ]]; }

# The two Maven downloads run side by side; a cold install is bound by the
# slower one (KairosDB's many small jars).
install_all() {
  local service pid failed=0
  local -a pids=()
  for service in cassandra kairosdb; do
    if wants "$service"; then
      run "$service" install &
      pids+=("$!")
    fi
  done
  if wants mosquitto; then run mosquitto install || failed=1; fi
  if wants redis; then run redis install || failed=1; fi
  for pid in "${pids[@]}"; do
    wait "$pid" || failed=1
  done
  ((failed == 0)) || die "install failed; see the messages above"
}

# Every port is checked before anything starts: a port taken by a stranger
# fails the start at once, not after Cassandra's 15 s.
require_free_ports_of_stopped() {
  local service
  for service in cassandra kairosdb mosquitto redis; do
    if { wants "$service" || { [[ "$service" == cassandra ]] && kairosdb_needs_cassandra; }; } \
      && ! running_pid "$service" >/dev/null; then
      require_free_ports "$service"
    fi
  done
}

start_all() {
  local started=$SECONDS
  describe_stack
  require_free_ports_of_stopped
  install_all
  if wants mosquitto; then run mosquitto start; fi
  if wants redis; then run redis start; fi
  if wants cassandra || kairosdb_needs_cassandra; then
    run cassandra start
    run cassandra wait
  fi
  if wants kairosdb; then run kairosdb start; fi
  wait_all
  say "stack up in $((SECONDS - started))s"
}

wait_all() {
  local service
  for service in cassandra kairosdb mosquitto redis; do
    if wants "$service"; then run "$service" wait; fi
  done
}

check_all() {
  if wants kairosdb; then run kairosdb check; fi
  if wants mosquitto; then run mosquitto check; fi
  if wants redis; then run redis check; fi
}

# KairosDB before Cassandra: it would otherwise log errors about the vanished
# Cassandra. Mosquitto and Redis depend on neither and stop alongside.
stop_all() {
  local -a pids=()
  local service pid
  for service in mosquitto redis; do
    if wants "$service"; then
      run "$service" stop &
      pids+=("$!")
    fi
  done
  if wants kairosdb; then run kairosdb stop; fi
  if wants cassandra; then run cassandra stop; fi
  for pid in "${pids[@]}"; do
    wait "$pid"
  done
}

# Which checkout's stack this is: the folder and ports derived from its path, or set by hand.
describe_stack() {
  say "stack of $PROJECT_ROOT: folder $OPENPIE_INFRA_DIR; ports mosquitto $MOSQUITTO_PORT, redis $REDIS_PORT," \
    "cassandra $CASSANDRA_NATIVE_PORT/$CASSANDRA_STORAGE_PORT, kairosdb $KAIROSDB_PORT/$KAIROSDB_TELNET_PORT"
}

status_all() {
  local service failed=0
  describe_stack
  for service in cassandra kairosdb mosquitto redis; do
    if wants "$service"; then run "$service" status || failed=1; fi
  done
  return "$failed"
}

reset_all() {
  stop_all
  local service
  for service in kairosdb cassandra mosquitto redis; do
    if wants "$service"; then run "$service" reset; fi
  done
}

case "${1:-}" in
  install) install_all ;;
  start) start_all ;;
  wait) wait_all ;;
  check) check_all ;;
  stop) stop_all ;;
  status) status_all ;;
  reset) reset_all ;;
  *) die "usage: $0 install|start|wait|check|stop|status|reset" ;;
esac
