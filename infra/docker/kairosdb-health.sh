#!/bin/sh
# Health check of the kairosdb service (infra/docker/kairosdb.Dockerfile, docker-compose.yml). Answering HTTP is not
# enough: a torn write queue once kept KairosDB answering 204 while nothing reached Cassandra. So, besides KairosDB's
# own check (GET /api/v1/health/check: 204 when its JVM and a datastore query are fine), this asks for the newest
# point of a metric KairosDB reports about itself every minute (KAIROSDB_HEALTH_METRIC): those points travel through
# the same write queue, so none newer than KAIROSDB_HEALTH_WINDOW_MINUTES means the queue stopped draining.
# The output (kept by Docker: `docker inspect --format '{{json .State.Health}}' <container>`) also gives the queue's
# size on disk.
set -eu
base="http://127.0.0.1:${KAIROSDB_PORT:-8080}/api/v1"
metric="${KAIROSDB_HEALTH_METRIC:-kairosdb.jvm.thread_count}"
window="${KAIROSDB_HEALTH_WINDOW_MINUTES:-3}"
queue_kib=$(du -sk "${KAIROSDB_DATA_DIR:-/var/lib/kairosdb}/queue" 2>/dev/null | cut -f1 || true)
report() { echo "kairosdb-health: $* (write queue ${queue_kib:-0} KiB on disk)"; }

status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 4 "$base/health/check" || true)
if [ "$status" != 204 ]; then
  report "GET /api/v1/health/check answered ${status:-nothing}"
  exit 1
fi

query="{\"start_relative\":{\"value\":$window,\"unit\":\"minutes\"},\"metrics\":[{\"name\":\"$metric\",\"limit\":1,\"order\":\"desc\"}]}"
answer=$(curl -fsS --max-time 4 -H 'Content-Type: application/json' -d "$query" "$base/datapoints/query" || true)
case "$answer" in
  *'"values":[['*) report "ok: $metric has points from the last $window min" ;;
  *) report "no point of $metric in the last $window min reached Cassandra: the write queue is not draining"; exit 1 ;;
esac
