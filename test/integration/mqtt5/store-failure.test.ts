import { expect } from 'chai';
import { IPublishPacket } from 'mqtt';
import { aGroup } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { connackOf5, connect5, disconnectOf, nextPublish, v5 } from '../../helpers/mqtt5';
import { scrape, valueOf } from '../../helpers/prometheus';
import { dropRedisKeys, randomKeyPrefix, redisSessionEnv, sessionStoreUrlOrSkip } from '../../helpers/redis';
import { startStack, Stack } from '../../helpers/stack';
import { startTcpProxy, TcpProxy } from '../../helpers/tcp-proxy';

/**
 * A session store that fails or lags under a live session (issue 17): the Redis of infra/ behind a TCP proxy that the
 * test cuts or slows. A failure ends the one connection whose call failed, with a reason; the process, and connections
 * that do not need the store, carry on; the session is whole once the store is back. A slow store keeps every promise.
 */
describe('MQTT 5: a session store that fails or lags under a live session', () => {
  let stack: Stack;
  let proxy: TcpProxy;
  let url: string;
  const prefix = randomKeyPrefix();

  before(async function () {
    url = sessionStoreUrlOrSkip(this);
    proxy = await startTcpProxy(new URL(url).host);
    stack = await startStack({ env: redisSessionEnv(`redis://127.0.0.1:${proxy.port}`, prefix) });
  });
  after(async () => {
    await stack?.stop();
    await proxy?.close();
    if (url) await dropRedisKeys(url, prefix);
  });
  afterEach(() => {
    proxy?.restore();
    proxy?.lag(0);
  });

  it('[MQTT-3.14.2-1] a PUBACK the store cannot record ends that connection with DISCONNECT 0x89; others go on; the message comes again with DUP once the store is back [MQTT-4.4.0-1]', async function () {
    this.timeout(30_000);
    const [device, publisher, talker, listener] = await aGroup(stack, 4);
    const persistent = { clean: false, properties: { sessionExpiryInterval: 300 } };
    const first = await connect5(stack.mqttUrl, device, persistent);
    await first.client.subscribeAsync('@msg/store/fault', { qos: 1 });
    // The device holds its PUBACK until the store is gone.
    const held = new Promise<{ packet: IPublishPacket; acknowledge: () => void }>((resolve) => {
      first.client.handleMessage = (packet, acknowledge) => resolve({ packet: packet as IPublishPacket, acknowledge: () => acknowledge() });
    });
    const tx = await connect5(stack.mqttUrl, publisher);
    await tx.client.publishAsync('@msg/store/fault', 'kept', { qos: 1 });
    const { packet, acknowledge } = await held;
    // Clean 3.1.1 sessions exchanging QoS 0 need no store.
    const rx = await connectDevice(stack.mqttUrl, listener);
    await rx.subscribeAsync('@msg/store/chat', { qos: 0 });
    const chat = await connectDevice(stack.mqttUrl, talker);
    const failuresBefore = valueOf(await scrape(stack), 'openpie_mqtt_session_store_failures_total', { call: 'outgoingClearMessageId' });

    proxy.cut();
    const disconnected = disconnectOf(first.client, 10_000);
    acknowledge();
    const disconnect = await disconnected;
    const heard = nextMessage(rx, () => true, 3000);
    chat.publish('@msg/store/chat', 'still here', { qos: 0 });
    const alive = await heard;
    const health = await stack.http('GET', '/healthz');
    const failuresAfter = valueOf(await scrape(stack), 'openpie_mqtt_session_store_failures_total', { call: 'outgoingClearMessageId' });
    proxy.restore();
    await sleep(500);
    const again = await connect5(stack.mqttUrl, device, persistent);
    const redelivered = await new Promise<IPublishPacket>((resolve) => again.client.on('message', (_t, _p, p) => resolve(p)));
    await endAll(first.client, again.client, tx.client, rx, chat);

    expect(disconnect.reasonCode).to.equal(0x89);
    expect(alive.payload).to.equal('still here');
    expect(health.status).to.equal(200);
    expect(failuresAfter - failuresBefore).to.equal(1);
    expect(again.connack.sessionPresent).to.equal(true);
    expect([redelivered.payload.toString(), redelivered.dup, redelivered.messageId]).to.deep.equal(['kept', true, packet.messageId]);
  });

  it('[MQTT-3.1.2-23] a session ended by DISCONNECT with Session Expiry 0 is gone for a connection that comes at once: no session present, nothing of its queue delivered', async function () {
    this.timeout(20_000);
    const [device, sender] = await aGroup(stack, 2);
    const persistent = { clean: false, properties: { sessionExpiryInterval: 300 } };
    const first = await connect5(stack.mqttUrl, device, persistent);
    await first.client.subscribeAsync('@msg/slow/ended', { qos: 1 });
    const tx = await connect5(stack.mqttUrl, sender);
    await tx.client.publishAsync('@msg/slow/ended', 'for the ended session', { qos: 1 });

    proxy.lag(40);
    await first.client.endAsync(false, { reasonCode: 0, properties: { sessionExpiryInterval: 0 } });
    const connack = await connackOf5(stack.mqttUrl, v5(device, { clean: false, properties: { sessionExpiryInterval: 300 } }));
    proxy.lag(0);
    const again = await connect5(stack.mqttUrl, device, persistent);
    const delivered = await nextPublish(again.client, () => true, 1000).catch(() => undefined);
    await endAll(again.client, tx.client);

    expect(connack.sessionPresent, 'session present right after the DISCONNECT with 0').to.equal(false);
    expect(delivered?.payload.toString(), 'a message queued for the ended session').to.equal(undefined);
  });
});
