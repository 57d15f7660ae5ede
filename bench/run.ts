import { cpus } from 'node:os';
import { measureBareIngest } from './bare-ingest';
import { measureBatchIngest } from './batch-ingest';
import { BenchDevice, startBenchService } from './bench-service';
import { benchFeedQueries, QUERY_SIZES } from './feed-query';
import { benchFleetQuery } from './fleet-query';
import { FIELDS } from './feed-query-shapes';
import { HttpLoadRun, measureHttp } from './http-load';
import { startKoaHello } from './koa-hello';
import { benchCassandraShadowWrites } from './cassandra-shadow';
import { kairosDbIngestRows, measureKairosDbIngest } from './kairosdb-ingest';
import { measureBrokers, MQTT_LOGINS_NEEDED } from './mqtt-brokers';
import { machineMosquitto, serviceTarget, startBareAedes } from './mqtt-targets';
import { boundNote, BrokerResults, brokerRows, commitRow, httpRow, ingestRow, queryRow, ratioTargetNote, targetNote } from './report';
import { benchRetentionDisk } from './retention-disk';
import { benchRollupQuery } from './rollup-query';
import { measureSharedSyncCommits, measureSqliteCommits } from './sqlite-commit';
import { benchTimeSeriesStore } from './timeseries-store';

/** Shared by every HTTP row, the baseline included, so that their ratios compare like with like. */
const HTTP_LOAD = { connections: 10, warmupSeconds: 2, seconds: 8 };

/** Bounds for the bare SQLite commit loop, which blocks this thread while it runs. */
const SQLITE_COMMITS = { maxCommits: 5_000, maxSharedCommits: 100_000, maxMs: 2_000 };

/**
 * Shadow batches as devices send them: the largest batch the spec allows (100 items), 3 numeric fields per item,
 * one device per connection. Bounded by time and by request count.
 */
const BATCH_INGEST = { itemsPerBatch: 100, maxRequestsPerConnection: 20_000 };
/** The same points written straight into a fresh store, one writer per connection. */
const BARE_INGEST = { maxPoints: 3_000_000, maxMs: 3_000 };

/** Issue 3's targets; they live here, with the benchmarks, and are checked against this run's figures. */
const TARGETS = { ingestPointsPerSecond: 100_000, simpleScanPointsPerSecond: 5_000_000 };

/**
 * Issue 26's targets (they raise issue 12's), as ratios to the baselines of the same run (or bounds), checked against
 * this run's figures; the summary line at the end gives every ratio on one line.
 */
const ISSUE_26 = {
  statusVsKoa: 0.5,
  publishVsKoa: 0.5,
  /** Shadow merges per second against the `sqlite ceiling` row (bare SQLite as shadow writes commit, same concurrency). */
  shadowVsSqlite: 0.7,
  shadowP99Ms: 20,
  batchPointsPerSecond: 300_000,
  fanoutVsAedes: 1,
  fanoutVsMosquitto: 0.8,
  pairsVsAedes: 1,
  /** p99 of the QoS 1 pairs at most this times Mosquitto's. */
  pairsP99VsMosquitto: 1.5,
  connectsVsAedes: 0.9,
};

/** A 32-byte text/plain message, the size of a small sensor reading. */
const MESSAGE_BODY = 'temp=25.50;humid=60.10;seq=00001';

const shadowBody = (i: number) => JSON.stringify({ data: { temp: 20 + i / 2, humid: 50 + i } });

const print = (line = '') => process.stdout.write(`${line}\n`);
/** `0.52x`, or `-` when either figure was not measured. */
const ratio = (value: number | undefined, base: number | undefined) =>
  value === undefined || base === undefined || base === 0 ? '-' : `${(value / base).toFixed(2)}x`;

/** `BENCH_ONLY=roll-ups,fleet query`: only the sections named (comma-separated); every section when unset. */
const ONLY = process.env.BENCH_ONLY?.split(',').map((name) => name.trim()).filter((name) => name !== '');

/** Each section measures on its own: a failing one is reported at the end and fails the run, the others still print. */
async function main(): Promise<void> {
  const cleanups: (() => Promise<void>)[] = [];
  const rows: string[] = [];
  const notes: string[] = [];
  /** One line of this run's ratios (issue 26 §5), printed last. */
  const summary: string[] = [];
  const failures: string[] = [];
  const section = async (name: string, measure: () => Promise<void>) => {
    if (ONLY !== undefined && !ONLY.includes(name)) return;
    try {
      await measure();
    } catch (err) {
      const cause = err instanceof Error && err.cause !== undefined ? ` (cause: ${String(err.cause)})` : '';
      failures.push(`${name}: ${err instanceof Error ? err.message : String(err)}${cause}`);
      print(`  ${name} failed; going on with the next section`);
    }
  };
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

    await section('device status', async () => {
      print('measuring device status ...');
      const status = await measureHttp('device status', {
        ...HTTP_LOAD,
        url: `${service.baseUrl}/v2/device/status`,
        method: 'GET',
        perConnection: writers.map((d) => ({ headers: { authorization: d.auth } })),
      });
      httpResult('device status      GET status', status);
      notes.push(ratioTargetNote('GET /v2/device/status', ISSUE_26.statusVsKoa, 'koa', status.requestsPerSecond, baseline.requestsPerSecond));
      summary.push(`status ${ratio(status.requestsPerSecond, baseline.requestsPerSecond)} koa`);
    });

    await section('rest publish', async () => {
      print('measuring rest publish ...');
      const publish = await measureHttp('rest publish', {
        ...HTTP_LOAD,
        url: `${service.baseUrl}/v2/device/message/bench/topic`,
        method: 'PUT',
        perConnection: writers.map((d) => asDevice(d, 'text/plain', MESSAGE_BODY)),
      });
      httpResult('rest publish       PUT message', publish);
      notes.push(ratioTargetNote('PUT /v2/device/message', ISSUE_26.publishVsKoa, 'koa', publish.requestsPerSecond, baseline.requestsPerSecond));
      summary.push(`publish ${ratio(publish.requestsPerSecond, baseline.requestsPerSecond)} koa`);
    });

    print('measuring bare sqlite commits ...');
    const registryCommits = measureSqliteCommits(SQLITE_COMMITS.maxCommits, SQLITE_COMMITS.maxMs);
    rows.push(commitRow('sqlite commit      1-row UPDATE', registryCommits, baseline, 'one writer, synchronous=FULL as registry writes'));
    // The ceiling of a shadow write (issue 26 §2): as many writers as the HTTP rows have connections, each commit
    // with synchronous=NORMAL waiting for a WAL fdatasync off the event loop that the writers of its moment share.
    const commits = await measureSharedSyncCommits(HTTP_LOAD.connections, SQLITE_COMMITS.maxSharedCommits, SQLITE_COMMITS.maxMs);
    rows.push(commitRow(`sqlite ceiling     ${HTTP_LOAD.connections} writers`, commits, baseline, 'synchronous=NORMAL, the WAL fdatasync shared off the loop, as shadow writes'));

    const shadowUrl = `${service.baseUrl}/v2/device/shadow/data`;
    await section('shadow merge', async () => {
      print('measuring shadow merge, one device per connection ...');
      const shadowMerge = await measureHttp('shadow merge', {
        ...HTTP_LOAD,
        url: shadowUrl,
        method: 'PUT',
        perConnection: writers.map((d, i) => asDevice(d, 'application/json', shadowBody(i))),
      });
      httpResult('shadow merge       PUT shadow', shadowMerge);
      summary.push(`shadow ${ratio(shadowMerge.requestsPerSecond, commits.commitsPerSecond)} sqlite ceiling (p99 ${shadowMerge.p99Ms.toFixed(1)} ms)`);
      notes.push(
        ratioTargetNote('PUT /v2/device/shadow/data, 10 devices', ISSUE_26.shadowVsSqlite, 'sqlite ceiling', shadowMerge.requestsPerSecond, commits.commitsPerSecond),
        boundNote('p99 of PUT /v2/device/shadow/data, 10 devices', ISSUE_26.shadowP99Ms, 'ms', shadowMerge.p99Ms),
      );
    });

    // Every connection writes the same shadow: shows whether compare-and-set retries pile up when writers collide.
    await section('shadow merge one device', async () => {
      print('measuring shadow merge, all connections on one device ...');
      const oneDevice = await measureHttp('shadow merge one device', {
        ...HTTP_LOAD,
        url: shadowUrl,
        method: 'PUT',
        perConnection: writers.map((_, i) => asDevice(writers[0], 'application/json', shadowBody(i))),
      });
      httpResult('shadow merge 1 dev PUT shadow', oneDevice);
      notes.push(
        ratioTargetNote('PUT /v2/device/shadow/data, 1 device', ISSUE_26.shadowVsSqlite, 'sqlite ceiling', oneDevice.requestsPerSecond, commits.commitsPerSecond),
        boundNote('p99 of PUT /v2/device/shadow/data, 1 device', ISSUE_26.shadowP99Ms, 'ms', oneDevice.p99Ms),
      );
    });

    await section('shadow batch ingest', async () => {
      print(`measuring shadow batch ingest: ${BATCH_INGEST.itemsPerBatch} items x ${FIELDS.length} fields per request ...`);
      const ingest = await measureBatchIngest('shadow batch ingest', {
        ...BATCH_INGEST,
        connections: HTTP_LOAD.connections,
        fields: FIELDS,
        warmupSeconds: HTTP_LOAD.warmupSeconds,
        seconds: HTTP_LOAD.seconds,
      });
      const pointsPerRequest = BATCH_INGEST.itemsPerBatch * FIELDS.length;
      print(`measuring bare time-series store ingest, ${HTTP_LOAD.connections} writers of ${pointsPerRequest} points ...`);
      const bare = await measureBareIngest(HTTP_LOAD.connections, pointsPerRequest, FIELDS, BARE_INGEST.maxPoints, BARE_INGEST.maxMs);
      const { acked } = ingest;
      httpResult(`shadow batch       PUT ${BATCH_INGEST.itemsPerBatch}x${FIELDS.length} pts`, acked);
      rows.push(
        ingestRow('shadow batch       points queryable', ingest.storedPointsPerSecond, bare.pointsPerSecond,
          `${acked.points} points; the clock stops when a query counts them all, ${ingest.drainMs.toFixed(0)} ms ` +
            'after the last response; rate limit off'),
        ingestRow('shadow batch       points acked', acked.points / ((acked.lastResponseAt - acked.startedAt) / 1000),
          bare.pointsPerSecond, 'durable in the outbox, not yet queryable'),
        ingestRow(`bare store         ${HTTP_LOAD.connections} x ${pointsPerRequest} pts`, bare.pointsPerSecond, bare.pointsPerSecond,
          `${bare.points} points in ${bare.seconds.toFixed(2)} s; writePoints, no HTTP, shadow or outbox`),
      );
      notes.push(
        targetNote('ingest through the batch endpoint', TARGETS.ingestPointsPerSecond, 'pt/s', ingest.storedPointsPerSecond),
        targetNote('ingest through the batch endpoint (issue 26)', ISSUE_26.batchPointsPerSecond, 'pt/s', ingest.storedPointsPerSecond),
      );
      summary.push(`batch ${Math.round(ingest.storedPointsPerSecond / 1000)}k pt/s queryable`);
    });

    // Production backends: they need the servers of infra/ (`bash infra/start-all.sh; eval "$(bash infra/env.sh)"`).
    await section('kairosdb ingest', async () => {
      const kairosDbUrl = process.env.KAIROSDB_URL;
      if (kairosDbUrl === undefined) return void notes.push('kairosdb ingest: skipped, KAIROSDB_URL is not set');
      print('measuring shadow batch ingest into KairosDB, and direct writes to KairosDB ...');
      rows.push(
        ...kairosDbIngestRows(
          await measureKairosDbIngest({
            kairosDbUrl,
            connections: HTTP_LOAD.connections,
            itemsPerBatch: BATCH_INGEST.itemsPerBatch,
            fields: FIELDS,
            warmupSeconds: HTTP_LOAD.warmupSeconds,
            seconds: HTTP_LOAD.seconds,
            maxRequestsPerConnection: BATCH_INGEST.maxRequestsPerConnection,
          }),
        ),
      );
    });

    await section('cassandra shadow writes', async () => {
      if (process.env.CASSANDRA_CONTACT_POINTS === undefined) {
        return void notes.push('cassandra shadow writes: skipped, CASSANDRA_CONTACT_POINTS is not set');
      }
      print('measuring shadow writes with STORE=cassandra beside STORE=sqlite ...');
      rows.push(...(await benchCassandraShadowWrites({ ...HTTP_LOAD, print })));
    });

    // The yardstick's MQTT workloads on the machine's Mosquitto (when it answers), bare aedes in this process, and
    // the service's broker, one load generator (a worker thread) for all.
    await section('mqtt brokers', async () => {
      const aedes = await startBareAedes();
      cleanups.push(aedes.close);
      const mosquittoTarget = await machineMosquitto();
      if (!mosquittoTarget) notes.push('mosquitto: skipped, nothing answers at 127.0.0.1:1883');
      const targets = [...(mosquittoTarget ? [mosquittoTarget] : []), aedes, await serviceTarget(service, MQTT_LOGINS_NEEDED)];
      const results: BrokerResults = await measureBrokers(targets, print);
      rows.push(...brokerRows(results));
      const [ours, bare, mosquitto] = [results.openpie, results['bare aedes'], results.mosquitto];
      notes.push(
        ratioTargetNote('mqtt fan-out', ISSUE_26.fanoutVsAedes, 'aedes', ours?.fanoutDeliveriesPerSecond, bare?.fanoutDeliveriesPerSecond),
        ratioTargetNote('mqtt fan-out', ISSUE_26.fanoutVsMosquitto, 'mosquitto', ours?.fanoutDeliveriesPerSecond, mosquitto?.fanoutDeliveriesPerSecond),
        ratioTargetNote('mqtt QoS 1 pairs', ISSUE_26.pairsVsAedes, 'aedes', ours?.pairs?.messagesPerSecond, bare?.pairs?.messagesPerSecond),
        mosquitto?.pairs
          ? boundNote(`p99 of mqtt QoS 1 pairs (${ISSUE_26.pairsP99VsMosquitto}x mosquitto's)`, ISSUE_26.pairsP99VsMosquitto * mosquitto.pairs.p99Ms, 'ms', ours?.pairs?.p99Ms)
          : 'target p99 of mqtt QoS 1 pairs: not measured, no mosquitto',
        ratioTargetNote('mqtt connects', ISSUE_26.connectsVsAedes, 'aedes', ours?.connectsPerSecond, bare?.connectsPerSecond),
      );
      summary.push(
        `fan-out ${ratio(ours?.fanoutDeliveriesPerSecond, bare?.fanoutDeliveriesPerSecond)} aedes ${ratio(ours?.fanoutDeliveriesPerSecond, mosquitto?.fanoutDeliveriesPerSecond)} mosquitto`,
        `QoS 1 pairs ${ratio(ours?.pairs?.messagesPerSecond, bare?.pairs?.messagesPerSecond)} aedes (p99 ${ratio(ours?.pairs?.p99Ms, mosquitto?.pairs?.p99Ms)} mosquitto's)`,
        `connects ${ratio(ours?.connectsPerSecond, bare?.connectsPerSecond)} aedes`,
      );
      const failed = Object.values(results).flatMap((r) => r.failures);
      if (failed.length > 0) throw new Error(failed.join('; '));
    });

    await section('time-series store', async () => {
      // Its rows are printed with the others at the end, not as it finishes (they all start with "timeseries ").
      const quiet = (line: string) => (line.startsWith('timeseries ') ? undefined : print(line));
      rows.push(...(await benchTimeSeriesStore({ print: quiet })));
    });

    await section('time-series retention', async () => {
      rows.push(await benchRetentionDisk());
    });

    await section('roll-ups', async () => {
      rows.push(await benchRollupQuery());
    });

    await section('data-store queries', async () => {
      const queries = await benchFeedQueries(print);
      rows.push('data-store queries (POST /v2/feed/api/v1/datapoints/query, user token; engine = executeQuery, no HTTP):');
      for (const q of queries) {
        rows.push(queryRow(`query ${q.stored / 1_000_000}M ${q.shape.label}`, q.http, q.engine));
        if (q.shape.simple) {
          const perSecond = q.http.sampleSize / (q.http.medianMs / 1000);
          notes.push(targetNote(`scan, ${q.shape.label} over ${q.stored} points`, TARGETS.simpleScanPointsPerSecond, 'pt/s', perSecond));
        }
      }
      notes.push(
        "raw with limit: sample_size counts the points kept after KairosDB's per-row limit; the store reads all " +
          `${QUERY_SIZES.join(' / ')} points of the range before that cut, so its time follows the stored count`,
      );
    });

    await section('fleet query', async () => {
      rows.push(...(await benchFleetQuery(print)));
    });
  } finally {
    if (rows.length > 0) {
      print();
      print('ratios are against the koa hello world of this run, or as named (rates: higher is better; latencies: lower is better)');
      rows.forEach((row) => print(row));
      notes.forEach((note) => print(note));
      const targets = notes.filter((note) => note.startsWith('target '));
      const met = targets.filter((note) => note.endsWith(', met')).length;
      print(`summary: ${summary.join(', ')}; targets met ${met} of ${targets.length}`);
    }
    if (failures.length > 0) {
      print();
      failures.forEach((failure) => print(`FAILED ${failure}`));
      process.exitCode = 1;
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
