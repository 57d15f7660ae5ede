#!/usr/bin/env bash
# `npm test`: makes sure Chromium is there, starts the real servers the suites need (Cassandra, KairosDB, Mosquitto, Redis: infra/), type-checks, runs
# every suite, and stops the servers it started (those already running before are left as found).
set -euo pipefail
cd "$(dirname "$0")/.."

# The console's browser tests drive Debian's Chromium. Outside CI a machine without it (and without root) still
# runs every other suite; the browser tests then say they were skipped.
bash scripts/ensure-chromium.sh || [ -z "${CI:-}" ]
bash scripts/ensure-docker-compose.sh || [ -z "${CI:-}" ]

# The servers are this checkout's own: infra/ derives their folder and ports from the checkout's path, so a second
# checkout testing at the same time neither uses nor stops them (infra/README.md). Only those this run starts are
# stopped at its end.
started=()
for service in cassandra kairosdb mosquitto redis; do
  bash "infra/$service.sh" status > /dev/null 2>&1 || started+=("$service")
done
if ((${#started[@]} == 0)); then
  echo "test: infra already running; leaving it running afterwards"
else
  trap 'OPENPIE_SERVICES="${started[*]}" bash infra/stop-all.sh || true' EXIT
  bash infra/start-all.sh
fi
eval "$(bash infra/env.sh)"

npx tsc -p tsconfig.json --noEmit
# aedes-persistence's abstract suite against each session store (test/persistence): it is written for node:test, not
# mocha. Its own runner, with its exit code counting like the mocha run's; no test may hang the run (a timeout per
# test, and the runner exits when its tests are done even if a failed one left a connection open).
node --import tsx --test --test-concurrency=1 --test-timeout=60000 --test-force-exit test/persistence/*.abstract.ts
# Every suite, unless files are named (`npm test -- test/integration/mqtt/resume.test.ts`): the list of suites lives
# here, not in .mocharc.json, where mocha would add it to the files named on its command line.
files=0
for arg in "$@"; do [[ "$arg" == -* ]] || files=1; done
if ((files == 0)); then set -- "$@" 'test/unit/**/*.test.ts' 'test/integration/**/*.test.ts'; fi
npx mocha "$@"
