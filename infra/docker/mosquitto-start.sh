#!/bin/sh
# Command of the mosquitto service of docker-compose.yml: writes the password file of the service nodes' login from
# the secret secrets-init made, and the health check's options file, then runs the broker in the foreground.
# Both are written afresh at every start, so a rotated password takes effect with a restart.
set -eu
: "${MOSQUITTO_USER:?set MOSQUITTO_USER}"
: "${MOSQUITTO_PASSWORD_FILE:?set MOSQUITTO_PASSWORD_FILE}"
umask 077
password=$(cat "$MOSQUITTO_PASSWORD_FILE")

passwd_file=/mosquitto/config/passwd
rm -f "$passwd_file"
mosquitto_passwd -c -b "$passwd_file" "$MOSQUITTO_USER" "$password"
# Mosquitto reads the file after dropping to its own user, and warns about any other owner.
chown mosquitto:mosquitto "$passwd_file"

# mosquitto_sub reads options from $XDG_CONFIG_HOME/mosquitto_sub, one per line: the health check logs in with them,
# so the password is on no command line (`ps`, `docker inspect` of the check).
mkdir -p /mosquitto/config/health
printf -- '-u %s\n-P %s\n' "$MOSQUITTO_USER" "$password" >/mosquitto/config/health/mosquitto_sub
exec /usr/sbin/mosquitto -c /openpie/mosquitto.conf
