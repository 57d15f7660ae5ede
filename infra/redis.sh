#!/usr/bin/env bash
# A Redis server of our own (Debian package) for the shared MQTT session store, on a port that is not the system
# server's, with its data under $OPENPIE_INFRA_DIR and an append-only file.
#   infra/redis.sh install|start|wait|check|stop|status|reset
# See infra/README.md for the variables.
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source=lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

NAME=redis
REDIS_CONF_DIR="$CONF_DIR/redis"
LOG="$LOG_DIR/$NAME.log"

redis_bin() { command -v redis-server || echo /usr/bin/redis-server; }
cli() { redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" "$@"; }

install() {
  ensure_dirs
  if [[ -x "$(redis_bin)" ]] && command -v redis-cli >/dev/null; then
    return 0
  fi
  # Debian's package also enables a system server on 6379; this script never uses it.
  say "installing redis-server and redis-tools from Debian's packages"
  apt_get --log "$LOG_DIR/apt.log" update || die "apt-get update failed; see $LOG_DIR/apt.log"
  DEBIAN_FRONTEND=noninteractive apt_get --log "$LOG_DIR/apt.log" install -y --no-install-recommends \
    redis-server redis-tools || die "apt-get install failed; see $LOG_DIR/apt.log"
}

start() {
  install
  if pid="$(running_pid "$NAME")"; then
    say "$NAME already running (pid $pid)"
    return 0
  fi
  require_free_ports "$NAME"
  mkdir -p "$REDIS_CONF_DIR" "$REDIS_DATA_DIR"
  export REDIS_HOST REDIS_PORT REDIS_DATA_DIR REDIS_APPENDFSYNC
  render "$INFRA_HOME/redis/redis.conf" "$REDIS_CONF_DIR/redis.conf" REDIS_HOST REDIS_PORT REDIS_DATA_DIR REDIS_APPENDFSYNC
  say "starting $NAME on redis://$REDIS_HOST:$REDIS_PORT (appendfsync $REDIS_APPENDFSYNC; log: $LOG)"
  start_detached "$NAME" "$LOG" "$(redis_bin)" "$REDIS_CONF_DIR/redis.conf"
}

answers() { [[ "$(cli ping 2>/dev/null)" == PONG ]]; }

wait_ready() {
  running_pid "$NAME" >/dev/null || die "$NAME is not running; start it first"
  # Loading a large append-only file answers LOADING until done.
  wait_until "$NAME" "$OPENPIE_WAIT_TIMEOUT" answers
  say "$NAME ready: redis://$REDIS_HOST:$REDIS_PORT"
}

# A write read back, and the append-only file switched on.
check() {
  local key="openpie:infra-check:$$" value="ping-$RANDOM"
  [[ "$(cli set "$key" "$value" ex 10)" == OK ]] || die "$NAME refused a SET; see $LOG"
  [[ "$(cli get "$key")" == "$value" ]] || die "$NAME did not read back what it stored"
  cli del "$key" >/dev/null
  [[ "$(cli config get appendonly | tail -n 1)" == yes ]] || die "$NAME runs without its append-only file"
  say "$NAME round trip: SET/GET ok, appendonly yes, appendfsync $(cli config get appendfsync | tail -n 1)"
}

status() { server_status "$NAME" "redis://$REDIS_HOST:$REDIS_PORT"; }

reset() { reset_data "$NAME" "$REDIS_DATA_DIR"; }

case "${1:-}" in
  install) install ;;
  start) start ;;
  wait) wait_ready ;;
  check) check ;;
  # SIGTERM: Redis flushes and fsyncs its append-only file, then exits.
  stop) stop_by_pid_file "$NAME" 10 ;;
  status) status ;;
  reset) reset ;;
  *) die "usage: $0 install|start|wait|check|stop|status|reset" ;;
esac
