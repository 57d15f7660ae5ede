#!/usr/bin/env bash
# Connection settings for tests against the stack of infra/stack.sh.
#   source infra/env.sh          exports them into the current shell
#   eval "$(infra/env.sh)"       the same from a script
#   infra/env.sh                 prints them as export lines
# Uses the same variables (and defaults) as the start scripts, so a port moved
# for the servers moves here too.

infra_env_lines() {
  # shellcheck source=lib/common.sh
  source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
  local backbone="mqtt://$MOSQUITTO_USER:$MOSQUITTO_PASSWORD@$MOSQUITTO_HOST:$MOSQUITTO_PORT"
  printf 'export %s=%q\n' \
    CASSANDRA_CONTACT_POINTS "$CASSANDRA_HOST:$CASSANDRA_NATIVE_PORT" \
    CASSANDRA_LOCAL_DATACENTER "$CASSANDRA_DATACENTER" \
    KAIROSDB_URL "http://$KAIROSDB_HOST:$KAIROSDB_PORT" \
    BACKBONE_URL "$backbone" \
    BACKBONE_USERNAME "$MOSQUITTO_USER" \
    BACKBONE_PASSWORD "$MOSQUITTO_PASSWORD" \
    BACKBONE_HOST "$MOSQUITTO_HOST" \
    BACKBONE_PORT "$MOSQUITTO_PORT" \
    SESSION_STORE_URL "redis://$REDIS_HOST:$REDIS_PORT"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  infra_env_lines
else
  eval "$(infra_env_lines)"
  unset -f infra_env_lines
fi
