import { expect } from 'chai';
import { cassandraOrSkip } from '../../helpers/cassandra';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { aGroup } from '../../helpers/devices';
import { wireSession, WireSession } from '../../helpers/mqtt-wire';
import { dropRedisKeys, randomKeyPrefix, redisSessionEnv, sessionStoreUrlOrSkip } from '../../helpers/redis';
import { asDevice } from '../../helpers/rest-device';
import { Stack } from '../../helpers/stack';
import { connectionsOf } from './inspect';

/**
 * The production shape (docs/production.md): two nodes on Cassandra, sessions in Redis, joined by Mosquitto. A
 * subscriber on node B that never acknowledges shows its unacknowledged QoS 1 messages as in flight, read from
 * Redis by node B, to node A.
 */
describe('connection inspector on Cassandra, Redis and Mosquitto', function () {
  this.timeout(60_000);
  let cluster: Cluster | undefined;
  let a: Stack;
  let b: Stack;
  let wire: WireSession | undefined;
  const prefix = randomKeyPrefix();
  let redisUrl: string;
  before(async function () {
    cassandraOrSkip(this);
    redisUrl = sessionStoreUrlOrSkip(this);
    const env = backboneEnvOrSkip(this);
    cluster = await startCluster(2, { ...env, ...redisSessionEnv(redisUrl, prefix) }, 'cassandra');
    [a, b] = cluster.nodes;
  });
  after(async () => {
    wire?.destroy();
    await cluster?.stop();
    if (redisUrl) await dropRedisKeys(redisUrl, prefix);
  });

  it('lists on node A the in-flight count of a session on node B that holds back its PUBACKs', async () => {
    const [listener, sender] = await aGroup(a, 2);
    wire = wireSession(Number(new URL(b.mqttUrl).port), 4);
    wire.send({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: 4, clientId: listener.deviceid, username: listener.token, clean: false, keepalive: 60 });
    expect((await wire.next('connack')).returnCode).to.equal(0);
    wire.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: '@msg/held', qos: 1 }] });
    await wire.next('suback');
    for (const n of [1, 2, 3]) {
      const res = await asDevice(a, sender)('PUT', '/v2/device/message/held?qos=1', { body: `m${n}` });
      expect(res.status, res.text).to.equal(200);
    }
    for (let i = 0; i < 3; i++) await wire.next('publish');

    const body = await connectionsOf(a, listener.deviceid, (r) => r.connections[0]?.inFlight === 3, 5000);

    expect(body.connections).to.have.length(1);
    expect(body.connections[0]).to.include({ transport: 'tcp', version: 4, clean: false, queued: 0, inFlight: 3 });
    expect(body.connections[0].node).not.to.equal(body.nodes.answered[0]);
  });
});
