#!/bin/sh
# Command of the mosquitto service of docker-compose.yml (eclipse-mosquitto:2): writes the
# password file of the service nodes' login, then runs the broker in the foreground.
# Written afresh at every start, as infra/mosquitto.sh does, so a changed password takes effect
# with `docker compose up -d` (the container is recreated when its environment changes).
set -eu
: "${MOSQUITTO_USER:?set MOSQUITTO_USER}"
: "${MOSQUITTO_PASSWORD:?set MOSQUITTO_PASSWORD}"

passwd_file=/mosquitto/config/passwd
rm -f "$passwd_file"
(umask 077 && mosquitto_passwd -c -b "$passwd_file" "$MOSQUITTO_USER" "$MOSQUITTO_PASSWORD")
# Mosquitto reads the file after dropping to its own user, and warns about any other owner.
chown mosquitto:mosquitto "$passwd_file"
exec /usr/sbin/mosquitto -c /openpie/mosquitto.conf
