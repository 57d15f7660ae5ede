#!/bin/sh
# Command of the cassandra service of docker-compose.yml: turns on password logins and per-role permissions in the
# image's cassandra.yaml, then hands over to the image's entrypoint (which drops to the cassandra user).
# The image has no variable for these. Each key is removed first, whether written as one line or, as Cassandra 5.0
# writes `authenticator:`, as a block of indented lines under it (a YAML key given twice is an error), then set again
# at the end of the file: the edit gives the same file however often the container restarts.
# Right after the first start the only role is cassandra/cassandra; cassandra-setup.sh replaces it.
set -eu
conf="${CASSANDRA_CONF:-/etc/cassandra}/cassandra.yaml"
awk '
  /^(authenticator|authorizer|role_manager):/ { skipping = 1; next }
  skipping && /^[ \t]/ { next }
  { skipping = 0; print }
' "$conf" >/tmp/cassandra.yaml
cat >>/tmp/cassandra.yaml <<'YAML'
authenticator: PasswordAuthenticator
authorizer: CassandraAuthorizer
role_manager: CassandraRoleManager
YAML
cat /tmp/cassandra.yaml >"$conf"
rm -f /tmp/cassandra.yaml
exec docker-entrypoint.sh cassandra -f
