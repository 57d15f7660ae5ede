import { cpus } from 'node:os';
import { BenchDevice, startBenchService } from './bench-service';
import { HttpLoadRun, measureHttp } from './http-load';
import { startKoaHello } from './koa-hello';
import { measureFanout } from './mqtt-fanout';
import { commitRow, fanoutRow, httpRow } from './report';
import { measureSqliteCommits } from './sqlite-commit';

/** Shared by every HTTP row, the baseline included, so that their ratios compare like with like. */
const HTTP_LOAD = { connections: 10, warmupSeconds: 2, seconds: 8 };

const FANOUT = {
  subscribers: 20,
  warmupMessages: 2_000,
  messages: 20_000,
  burst: 200,
  burstsInFlight: 2,
  payloadBytes: 32,
  timeoutMs: 60_000,
};

/** Bounds for the bare SQLite commit loop, which blocks this thread while it runs. */
const SQLITE_COMMITS = { maxCommits: 5_000, maxMs: 2_000 };

/** A 32-byte text/plain message, the size of a small sensor reading. */
const MESSAGE_BODY = 'temp=25.50;humid=60.10;seq=00001';

const shadowBody = (i: number) => JSON.stringify({ data: { temp: 20 + i / 2, humid: 50 + i } });

const print = (line = '') => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const cleanups: (() => Promise<void>)[] = [];
  const rows: string[] = [];
  const notes: string[] = [];
  try {
    print(
      `openpie benchmarks: node ${process.version}, ${cpus().length} CPUs; each HTTP row: ` +
        `${HTTP_LOAD.connections} connections, ${HTTP_LOAD.warmupSeconds} s warm-up + ${HTTP_LOAD.seconds} s; ` +
        'load generators run in worker threads',
    );

    const koa = await startKoaHello();
    cleanups.push(koa.close);
    print('measuring koa hello world ...');
    const baseline = await measureHttp('koa hello world', {
      ...HTTP_LOAD,
      url: `${koa.url}/`,
      method: 'GET',
      perConnection: [{ headers: {} }],
    });
    const httpResult = (label: string, run: HttpLoadRun) => rows.push(httpRow(label, run, baseline));
    httpResult('koa hello world    GET /', baseline);

    const service = await startBenchService();
    cleanups.push(service.close);
    const writers = await service.provisionGroup(HTTP_LOAD.connections);
    const asDevice = (d: BenchDevice, contentType: string, body: string) => ({
      headers: { authorization: d.auth, 'content-type': contentType },
      body,
    });

    print('measuring rest publish ...');
    httpResult(
      'rest publish       PUT message',
      await measureHttp('rest publish', {
        ...HTTP_LOAD,
        url: `${service.baseUrl}/v2/device/message/bench/topic`,
        method: 'PUT',
        perConnection: writers.map((d) => asDevice(d, 'text/plain', MESSAGE_BODY)),
      }),
    );

    print('measuring bare sqlite commits ...');
    const commits = measureSqliteCommits(SQLITE_COMMITS.maxCommits, SQLITE_COMMITS.maxMs);
    rows.push(commitRow('sqlite commit      1-row UPDATE', commits, baseline));

    print('measuring shadow merge, one device per connection ...');
    const shadowUrl = `${service.baseUrl}/v2/device/shadow/data`;
    const shadowMerge = await measureHttp('shadow merge', {
      ...HTTP_LOAD,
      url: shadowUrl,
      method: 'PUT',
      perConnection: writers.map((d, i) => asDevice(d, 'application/json', shadowBody(i))),
    });
    httpResult('shadow merge       PUT shadow', shadowMerge);
    notes.push(
      `shadow merge req/s / bare sqlite commits/s = ${(shadowMerge.requestsPerSecond / commits.commitsPerSecond).toFixed(2)}` +
        ' (1.00 would mean a shadow write costs one bare commit and nothing more)',
    );

    // Every connection writes the same shadow: shows whether compare-and-set retries pile up when writers collide.
    print('measuring shadow merge, all connections on one device ...');
    httpResult(
      'shadow merge 1 dev PUT shadow',
      await measureHttp('shadow merge, one device', {
        ...HTTP_LOAD,
        url: shadowUrl,
        method: 'PUT',
        perConnection: writers.map((_, i) => asDevice(writers[0], 'application/json', shadowBody(i))),
      }),
    );

    print(`measuring mqtt fan-out to ${FANOUT.subscribers} subscribers ...`);
    const [publisher, ...subscribers] = await service.provisionGroup(FANOUT.subscribers + 1);
    const fanout = await measureFanout('mqtt fan-out', {
      ...FANOUT,
      mqttUrl: service.mqttUrl,
      publisher,
      subscribers,
      topic: '@msg/bench/fanout',
      filter: '@msg/bench/#',
    });
    rows.push(fanoutRow(`mqtt fan-out 1->${FANOUT.subscribers}   QoS 0`, fanout, baseline));
  } finally {
    if (rows.length > 0) {
      print();
      print('ratios are against the koa hello world of this run (rates: higher is better; latencies: lower is better)');
      rows.forEach((row) => print(row));
      notes.forEach((note) => print(note));
    }
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((err: unknown) => process.stderr.write(`cleanup failed: ${String(err)}\n`));
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
