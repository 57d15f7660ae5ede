'use strict';
// Readiness and round-trip checks for the KairosDB that infra/kairosdb.sh runs.
//
//   node infra/tools/kairosdb-check.js wait [seconds]  until GET /api/v1/version answers 200
//   node infra/tools/kairosdb-check.js roundtrip       writes points, reads them back, deletes them
//
// KAIROSDB_URL says where the server is. It has no default: each checkout's KairosDB has its own port
// (infra/lib/common.sh), and a guessed one could be another checkout's server.

const { randomUUID } = require('node:crypto');

if (!process.env.KAIROSDB_URL) {
  console.error('kairosdb-check.js: KAIROSDB_URL is not set (infra/kairosdb.sh sets it; eval "$(infra/env.sh)" does too)');
  process.exit(2);
}
const baseUrl = process.env.KAIROSDB_URL.replace(/\/$/, '');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function request(method, path, body) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10000),
  });
  const text = await response.text();
  return { status: response.status, body: text.length > 0 ? JSON.parse(text) : undefined };
}

async function waitForVersion(seconds) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    try {
      const { status, body } = await request('GET', '/api/v1/version');
      if (status === 200) return body.version;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`no 200 from ${baseUrl}/api/v1/version in ${seconds}s`);
    await sleep(500);
  }
}

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

// KairosDB acknowledges a write (204) before its queue hands the points to the
// datastore, so the read side polls until they show up.
async function roundTrip() {
  const metric = `openpie.infra.check.${randomUUID()}`;
  const now = Date.now();
  const points = [
    [now - 2000, 10],
    [now - 1000, 12.5],
    [now, 15],
  ];
  const started = Date.now();
  const write = await request('POST', '/api/v1/datapoints', [
    { name: metric, tags: { source: 'infra-check' }, datapoints: points },
  ]);
  expect(write.status === 204, `write answered ${write.status}: ${JSON.stringify(write.body)}`);

  const query = {
    start_absolute: now - 60000,
    end_absolute: now + 60000,
    metrics: [{ name: metric, aggregators: [{ name: 'sum', sampling: { value: 1, unit: 'hours' } }] }],
  };
  let raw;
  for (let attempt = 0; ; attempt++) {
    const read = await request('POST', '/api/v1/datapoints/query', {
      ...query,
      metrics: [{ name: metric, tags: { source: ['infra-check'] } }],
    });
    expect(read.status === 200, `query answered ${read.status}: ${JSON.stringify(read.body)}`);
    raw = read.body.queries[0].results[0].values;
    if (raw.length === points.length || attempt >= 60) break;
    await sleep(250);
  }
  const visibleAfterMs = Date.now() - started;
  expect(JSON.stringify(raw) === JSON.stringify(points), `read back ${JSON.stringify(raw)}`);

  const summed = await request('POST', '/api/v1/datapoints/query', query);
  expect(summed.status === 200, `aggregated query answered ${summed.status}`);
  const sum = summed.body.queries[0].results[0].values.reduce((total, [, value]) => total + value, 0);
  expect(sum === 37.5, `sum aggregator gave ${sum}, expected 37.5`);

  const removed = await request('DELETE', `/api/v1/metric/${encodeURIComponent(metric)}`);
  expect(removed.status === 204, `delete answered ${removed.status}`);
  return { metric, points: points.length, visibleAfterMs };
}

async function main([command, argument]) {
  switch (command) {
    case 'wait':
      console.log(await waitForVersion(Number(argument || 120)));
      return;
    case 'roundtrip': {
      const { metric, points, visibleAfterMs } = await roundTrip();
      console.log(`wrote ${points} points to ${metric}, read them back after ${visibleAfterMs} ms, sum ok, deleted`);
      return;
    }
    default:
      throw new Error('usage: kairosdb-check.js wait [seconds] | roundtrip');
  }
}

main(process.argv.slice(2)).catch((error) => {
  console.error(`kairosdb-check.js: ${error.message}`);
  process.exit(1);
});
