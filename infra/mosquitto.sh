#!/usr/bin/env bash
# A Mosquitto broker of our own (Debian package), with password auth, on a port
# that is not the system broker's.
#   infra/mosquitto.sh install|start|wait|check|stop|status|reset
# See infra/README.md for the variables.
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source=lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

NAME=mosquitto
MOSQUITTO_CONF_DIR="$CONF_DIR/mosquitto"
LOG="$LOG_DIR/$NAME.log"

mosquitto_bin() { command -v mosquitto || echo /usr/sbin/mosquitto; }

install() {
  ensure_dirs
  if [[ -x "$(mosquitto_bin)" ]] && command -v mosquitto_passwd mosquitto_pub mosquitto_sub >/dev/null; then
    return 0
  fi
  say "installing mosquitto and mosquitto-clients from Debian's packages"
  apt_get --log "$LOG_DIR/apt.log" update || die "apt-get update failed; see $LOG_DIR/apt.log"
  DEBIAN_FRONTEND=noninteractive apt_get --log "$LOG_DIR/apt.log" install -y --no-install-recommends \
    mosquitto mosquitto-clients || die "apt-get install failed; see $LOG_DIR/apt.log"
}

start() {
  install
  if pid="$(running_pid "$NAME")"; then
    say "$NAME already running (pid $pid)"
    return 0
  fi
  require_free_ports "$NAME"
  mkdir -p "$MOSQUITTO_CONF_DIR" "$MOSQUITTO_DATA_DIR"
  # Written afresh at every start, so a changed password takes effect.
  rm -f "$MOSQUITTO_CONF_DIR/passwd"
  (umask 077 && mosquitto_passwd -c -b "$MOSQUITTO_CONF_DIR/passwd" "$MOSQUITTO_USER" "$MOSQUITTO_PASSWORD")
  MOSQUITTO_RUN_AS="$(id -un)"
  export MOSQUITTO_HOST MOSQUITTO_PORT MOSQUITTO_CONF_DIR MOSQUITTO_DATA_DIR MOSQUITTO_RUN_AS
  render "$INFRA_HOME/mosquitto/mosquitto.conf" "$MOSQUITTO_CONF_DIR/mosquitto.conf" \
    MOSQUITTO_HOST MOSQUITTO_PORT MOSQUITTO_CONF_DIR MOSQUITTO_DATA_DIR MOSQUITTO_RUN_AS
  say "starting $NAME on mqtt://$MOSQUITTO_HOST:$MOSQUITTO_PORT (log: $LOG)"
  start_detached "$NAME" "$LOG" "$(mosquitto_bin)" -c "$MOSQUITTO_CONF_DIR/mosquitto.conf"
}

wait_ready() {
  running_pid "$NAME" >/dev/null || die "$NAME is not running; start it first"
  wait_until "$NAME" "$OPENPIE_WAIT_TIMEOUT" port_open "$MOSQUITTO_HOST" "$MOSQUITTO_PORT"
  say "$NAME ready: mqtt://$MOSQUITTO_HOST:$MOSQUITTO_PORT"
}

# Proves the broker carries a message for the service user and turns away a
# client without credentials.
check() {
  local topic="openpie/infra-check/$$" payload="ping-$RANDOM" received
  local -a auth=(-h "$MOSQUITTO_HOST" -p "$MOSQUITTO_PORT" -u "$MOSQUITTO_USER" -P "$MOSQUITTO_PASSWORD")
  received="$(
    mosquitto_sub "${auth[@]}" -t "$topic" -q 1 -C 1 -W 10 &
    sleep 0.5
    mosquitto_pub "${auth[@]}" -t "$topic" -q 1 -m "$payload"
    wait
  )" || die "$NAME: no message came back; see $LOG"
  [[ "$received" == "$payload" ]] || die "$NAME: expected '$payload', received '$received'"
  if mosquitto_pub -h "$MOSQUITTO_HOST" -p "$MOSQUITTO_PORT" -t "$topic" -m anonymous 2>/dev/null; then
    die "$NAME accepted a client without credentials"
  fi
  say "$NAME round trip: publish/subscribe as $MOSQUITTO_USER ok, anonymous client refused"
}

status() { server_status "$NAME" "mqtt://$MOSQUITTO_HOST:$MOSQUITTO_PORT"; }

reset() { reset_data "$NAME" "$MOSQUITTO_DATA_DIR"; }

case "${1:-}" in
  install) install ;;
  start) start ;;
  wait) wait_ready ;;
  check) check ;;
  stop) stop_by_pid_file "$NAME" 10 ;;
  status) status ;;
  reset) reset ;;
  *) die "usage: $0 install|start|wait|check|stop|status|reset" ;;
esac
