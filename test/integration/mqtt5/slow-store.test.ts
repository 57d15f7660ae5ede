import { expect } from 'chai';
import { aGroup } from '../../helpers/devices';
import { endAll } from '../../helpers/mqtt';
import { connackOf5, connect5, nextPublish, v5 } from '../../helpers/mqtt5';
import { dropRedisKeys, randomKeyPrefix, redisSessionEnv, sessionStoreUrlOrSkip } from '../../helpers/redis';
import { startStack, Stack } from '../../helpers/stack';
import { startTcpProxy, TcpProxy } from '../../helpers/tcp-proxy';

/**
 * A session store far away: the Redis of infra/ behind a TCP proxy that holds every chunk 40 ms each way, so that
 * ending a session takes the store a few hundred milliseconds. What the device was told must hold all the same.
 */
describe('MQTT 5: a slow session store', () => {
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
  afterEach(() => proxy.lag(0));

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
