#!/usr/bin/env bash
# Makes sure Debian's docker-compose (v1.29, Python) is installed for test/integration/deploy/compose.test.ts, which
# runs `docker-compose config` on docker-compose.yml: v1 parses and validates a file without a Docker engine, which CI
# does not have. Idempotent: when it is installed this only checks and exits. Waits for apt's locks as
# ensure-chromium.sh does (infra/lib/apt.sh, OPENPIE_APT_LOCK_WAIT).
set -euo pipefail

if command -v docker-compose >/dev/null 2>&1; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    exec sudo --non-interactive "$0" "$@"
  fi
  echo "ensure-docker-compose: docker-compose is missing and installing it needs root (apt-get install docker-compose)" >&2
  exit 1
fi

# shellcheck source=../infra/lib/apt.sh
source "$(dirname "$0")/../infra/lib/apt.sh"

echo "ensure-docker-compose: installing Debian's docker-compose package"
export DEBIAN_FRONTEND=noninteractive
apt_get update -qq || { echo "ensure-docker-compose: could not update the package lists (see above)" >&2; exit 1; }
apt_get install -y -qq --no-install-recommends docker-compose >/dev/null \
  || { echo "ensure-docker-compose: could not install docker-compose (see above)" >&2; exit 1; }
docker-compose --version
