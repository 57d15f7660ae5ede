#!/usr/bin/env bash
# Makes sure Debian's Chromium is at /usr/bin/chromium for the console's browser tests (playwright-core drives it and
# never downloads a browser of its own). Idempotent: when it is already installed this only checks and exits.
# While another apt-get or dpkg holds apt's locks (a second checkout's `npm test` installing Chromium too), it waits
# up to OPENPIE_APT_LOCK_WAIT seconds (default 600), saying what it waits for (infra/lib/apt.sh).
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    exec sudo --non-interactive "$0" "$@"
  fi
  echo "ensure-chromium: $CHROMIUM is missing and installing it needs root (apt-get install chromium)" >&2
  exit 1
fi

# shellcheck source=../infra/lib/apt.sh
source "$(dirname "$0")/../infra/lib/apt.sh"

echo "ensure-chromium: installing Debian's chromium package"
export DEBIAN_FRONTEND=noninteractive
apt_get update -qq || { echo "ensure-chromium: could not update the package lists (see above)" >&2; exit 1; }
apt_get install -y -qq chromium >/dev/null || { echo "ensure-chromium: could not install chromium (see above)" >&2; exit 1; }
"$CHROMIUM" --version
