import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cassandraOrSkip, cassandraStoreEnv, CassandraTestSettings, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { backboneEnvOrSkip } from '../../helpers/cluster';
import { aGroup } from '../../helpers/devices';
import { httpClient } from '../../helpers/http';
import { kairosDbUrlOrSkip } from '../../helpers/kairosdb';
import { listeningPorts, MainProcess, startMainProcess } from '../../helpers/main-process';
import { sleep } from '../../helpers/mqtt';
import { dropRedisKeys, randomKeyPrefix, redisSessionEnv, sessionStoreUrlOrSkip } from '../../helpers/redis';
import { attempt, deliveries, mqttLoad, persistentSubscriber, restLoad, tally, Targets } from '../../helpers/rolling-load';

const ADMIN_TOKEN = 'rolling-restart-admin-token-0123456789';
/** Load on all three nodes before the first stop, between restarts and after the last. */
const SETTLE_MS = 2_000;
/** Items per batch, each a point of field `n` with a timestamp of its own (pointTime). */
const BATCH_ITEMS = 3;

/** One of the three nodes: a NODE_ID and DATA_DIR kept across restarts, and its addresses while it is up and ready. */
interface Slot {
  name: string;
  dataDir: string;
  run?: MainProcess;
  up?: { base: string; mqttUrl: string };
}

/**
 * Issue 14's rolling restart: three `npm start` processes on real Cassandra (registry, shadows, point outbox),
 * KairosDB (points), Mosquitto (the backbone) and Redis (MQTT sessions). Each is stopped with SIGTERM and started
 * again with its NODE_ID and DATA_DIR in turn, while devices publish over REST and MQTT (QoS 1, to persistent
 * sessions), merge into a shadow and send batches to whichever nodes are up. Nothing acknowledged may be lost
 * (docs/production.md, "What survives what").
 */
describe('a rolling restart of three nodes under load (Cassandra, KairosDB, Mosquitto, Redis)', function () {
  this.timeout(180_000);
  const run = Math.random().toString(16).slice(2, 8);
  const keyspace = randomKeyspace();
  const prefix = randomKeyPrefix();
  const slots: Slot[] = ['a', 'b', 'c'].map((name) => ({ name, dataDir: mkdtempSync(join(tmpdir(), `openpie-rolling-${name}-`)) }));
  let cassandra: CassandraTestSettings | undefined;
  let url: string | undefined;
  let env: Record<string, string>;

  async function start(slot: Slot): Promise<void> {
    const proc = startMainProcess({ ...env, NODE_ID: `rolling-${slot.name}-${run}`, DATA_DIR: slot.dataDir, PORT: '0', MQTT_PORT: '0', COAP_PORT: '0', ADMIN_TOKEN });
    slot.run = proc;
    const { httpPort, mqttPort } = await listeningPorts(proc, 60_000);
    const base = `http://127.0.0.1:${httpPort}`;
    for (const deadline = Date.now() + 30_000; (await attempt(`${base}/readyz`)) !== 200; await sleep(100)) {
      if (Date.now() > deadline) throw new Error(`node ${slot.name} not ready after 30 s:\n${proc.output()}`);
    }
    slot.up = { base, mqttUrl: `mqtt://127.0.0.1:${mqttPort}` };
  }

  before(async function () {
    const backbone = backboneEnvOrSkip(this);
    cassandra = cassandraOrSkip(this);
    url = sessionStoreUrlOrSkip(this);
    const kairos = await kairosDbUrlOrSkip(this);
    env = { ...backbone, ...cassandraStoreEnv(cassandra, keyspace), ...redisSessionEnv(url, prefix), TIMESERIES: 'kairosdb', KAIROSDB_URL: kairos };
    // The first node creates the keyspace; the others start once it is there.
    for (const slot of slots) await start(slot);
  });
  after(async () => {
    for (const { run: proc } of slots) {
      if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
      await proc?.exited;
    }
    for (const { dataDir } of slots) rmSync(dataDir, { recursive: true, force: true });
    if (cassandra) await dropKeyspace(cassandra, keyspace);
    if (url) await dropRedisKeys(url, prefix);
  });

  it('loses no acknowledged message, shadow merge or point, and prints the counts', async () => {
    const admin = httpClient(slots[0].up!.base, { authorization: `Bearer ${ADMIN_TOKEN}` });
    // Device ids are random: KairosDB's metrics (one per device) are this run's own.
    const [restPub, restSub, mqttPub, mqttSub, shadowDev, batchDev] = await aGroup({ admin }, 6);
    let stopped = false;
    let turn = 0;
    const targets: Targets = {
      next(avoid) {
        const live = slots.flatMap((s) => (s.up ? [s.up] : []));
        const others = live.filter((up) => up.mqttUrl !== avoid);
        const choice = others.length > 0 ? others : live;
        return choice[turn++ % choice.length];
      },
      stopped: () => stopped,
    };
    const [restMessages, mqttMessages, merges, batches] = [tally(), tally(), tally(), tally()];
    const as = (device: { auth: string }, method: string, body: string) => ({
      method,
      body,
      headers: { authorization: device.auth, 'content-type': body.startsWith('{') ? 'application/json' : 'text/plain' },
    });
    const epoch = Date.now() - 3_600_000;
    const pointTime = (seq: number, item: number) => epoch + seq * BATCH_ITEMS + item;

    const restInbox = await persistentSubscriber(targets, restSub, '@msg/rest', restMessages);
    const mqttInbox = await persistentSubscriber(targets, mqttSub, '@msg/mqtt', mqttMessages);
    const load = Promise.all([
      restLoad(targets, restMessages, (seq) => ({ path: '/v2/device/message/rest?qos=1', init: as(restPub, 'PUT', String(seq)) })),
      mqttLoad(targets, mqttPub, '@msg/mqtt', mqttMessages, () => mqttInbox.mqttUrl()),
      restLoad(targets, merges, (seq) => ({ path: '/v2/device/shadow/data', init: as(shadowDev, 'PUT', JSON.stringify({ data: { [`k${seq}`]: seq } })) })),
      restLoad(targets, batches, (seq) => {
        const batch = Array.from({ length: BATCH_ITEMS }, (_, item) => ({ data: { n: seq * BATCH_ITEMS + item }, timestamp: pointTime(seq, item) }));
        return { path: '/v2/device/shadow/batch', init: as(batchDev, 'PUT', JSON.stringify({ batch })) };
      }),
    ]);

    const exitCodes: (number | null)[] = [];
    const timings: string[] = [];
    try {
      for (const slot of slots) {
        await sleep(SETTLE_MS);
        // The load keeps going to the stopping node until it has exited, as a load balancer would until its checks fail.
        const stopping = Date.now();
        slot.run!.child.kill('SIGTERM');
        exitCodes.push(await slot.run!.exited);
        slot.up = undefined;
        const starting = Date.now();
        await start(slot);
        timings.push(`${slot.name} stop ${starting - stopping} ms, start ${Date.now() - starting} ms`);
      }
      await sleep(SETTLE_MS);
    } finally {
      stopped = true;
      await load;
    }

    // Queued messages reach the subscribers a moment after the load stops.
    const arrived = () => [restMessages, mqttMessages].every((t) => deliveries(t).lost.length === 0);
    for (const deadline = Date.now() + 15_000; !arrived() && Date.now() < deadline; ) await sleep(100);
    await Promise.all([restInbox.end(), mqttInbox.end()]);

    const read = await fetch(`${targets.next().base}/v2/device/shadow/data`, { headers: { authorization: shadowDev.auth } });
    expect(read.status).to.equal(200);
    const data = ((await read.json()) as { data: Record<string, number> }).data;
    const mergesLost = [...merges.acked].filter((seq) => data[`k${seq}`] !== seq);

    // Points reach KairosDB through the outbox relay, and KairosDB shows a write about a second later: poll, bounded.
    const wanted = [...batches.acked].flatMap((seq) => Array.from({ length: BATCH_ITEMS }, (_, item) => [pointTime(seq, item), seq * BATCH_ITEMS + item]));
    let pointsLost = wanted;
    for (const deadline = Date.now() + 20_000; ; await sleep(250)) {
      const res = await fetch(`${targets.next().base}/v2/feed/api/v1/datapoints/query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ start_absolute: epoch, end_absolute: pointTime(batches.sent + 1, 0), metrics: [{ name: batchDev.deviceid, tags: { attr: ['n'] } }] }),
      });
      const body = (await res.json()) as { queries: { results: { values: [number, number][] }[] }[] };
      expect(res.status, JSON.stringify(body)).to.equal(200);
      const stored = new Map((body.queries[0].results[0]?.values ?? []).map(([ts, v]) => [ts, v]));
      pointsLost = wanted.filter(([ts, v]) => stored.get(ts) !== v);
      if (pointsLost.length === 0 || Date.now() > deadline) break;
    }

    const rest = deliveries(restMessages);
    const mq = deliveries(mqttMessages);
    console.log(
      `      rolling restart: REST qos1 sent=${restMessages.sent} acked=${restMessages.acked.size} delivered=${rest.delivered} duplicates=${rest.duplicates} lost=${rest.lost.length}; ` +
        `MQTT qos1 sent=${mqttMessages.sent} acked=${mqttMessages.acked.size} delivered=${mq.delivered} duplicates=${mq.duplicates} lost=${mq.lost.length}; ` +
        `shadow merges sent=${merges.sent} acked=${merges.acked.size} lost=${mergesLost.length}; ` +
        `batches sent=${batches.sent} acked=${batches.acked.size} points acked=${wanted.length} queryable=${wanted.length - pointsLost.length} lost=${pointsLost.length}; ` +
        `subscriber reconnections=${restInbox.reconnections() + mqttInbox.reconnections()} without session=${restInbox.notPresent() + mqttInbox.notPresent()}; exit codes=${exitCodes.join(',')}; ${timings.join(', ')}`,
    );
    expect(exitCodes, 'SIGTERM stops each node cleanly').to.deep.equal([0, 0, 0]);
    expect([...restMessages.odd, ...mqttMessages.odd, ...merges.odd, ...batches.odd], 'answers other than 2xx or 503').to.deep.equal([]);
    for (const t of [restMessages, mqttMessages, merges, batches]) expect(t.acked.size, 'load was acknowledged').to.be.greaterThan(10);
    expect(restInbox.notPresent() + mqttInbox.notPresent(), 'sessions resumed on another node').to.equal(0);
    expect(rest.lost, 'REST QoS 1 messages lost').to.deep.equal([]);
    expect(mq.lost, 'MQTT QoS 1 messages lost').to.deep.equal([]);
    expect(mergesLost, 'shadow merges lost').to.deep.equal([]);
    expect(pointsLost, 'batch points lost').to.deep.equal([]);
  });
});
