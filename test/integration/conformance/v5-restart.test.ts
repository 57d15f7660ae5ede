import { expect } from 'chai';
import { aGroup } from '../../helpers/devices';
import { endAll, sleep } from '../../helpers/mqtt';
import { v5 } from '../../helpers/mqtt5';
import { startStack, Stack } from '../../helpers/stack';
import { connectCollecting, QUIET_MS, untilCount } from '../../helpers/conformance-mqtt';

/**
 * MQTT 5 (OASIS mqtt-v5.0-os) across a restart of the service: a Will Delay Interval that is still running when the
 * service stops runs on in the next run (§3.1.2.5: a Server MAY defer wills to a restart; ours keeps their due times
 * in the session store, docs/mqtt.md). The stack is stopped and started again on the same data.
 */
describe('MQTT 5 conformance: the will delay across a restart of the service', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  /** Stops the service as SIGTERM does (every connection closed, data kept) and starts it again on the same data. */
  async function restart(): Promise<void> {
    const { dataDir } = stack;
    await stack.stop({ keepData: true });
    stack = await startStack({ dataDir });
  }

  const will = (willDelayInterval: number) => ({
    topic: '@msg/TopicA/will',
    payload: Buffer.from('will across a restart'),
    qos: 1 as const,
    retain: false,
    properties: { willDelayInterval },
  });
  /** The listener's session outlives the restart, so a will published while it reconnects waits in its queue. */
  const listening = { clean: false, properties: { sessionExpiryInterval: 300 } };

  /** A listener subscribed to the will topic and a device with a will of `delay` seconds, both connected. */
  async function dyingAndListener(delay: number) {
    const [dying, listener] = await aGroup(stack, 2);
    const rx = await connectCollecting(stack.mqttUrl, v5(listener, listening));
    await rx.client.subscribeAsync('@msg/TopicA/will', { qos: 1 });
    const tx = await connectCollecting(stack.mqttUrl, v5(dying, { will: will(delay), properties: { sessionExpiryInterval: 60 } }));
    for (const c of [rx.client, tx.client]) c.on('error', () => undefined);
    return { dying, listener, rx, tx };
  }

  it('[MQTT-3.1.2-8] a will whose delay is running when the service stops is published once, when the delay has passed', async () => {
    const { listener, rx, tx } = await dyingAndListener(2);
    const stoppedAt = Date.now();
    await restart();
    const back = await connectCollecting(stack.mqttUrl, v5(listener, listening));
    try {
      expect(back.connack.sessionPresent).to.equal(true);
      const [packet] = await untilCount(back.seen, 1, 6000);
      const after = Date.now() - stoppedAt;
      await sleep(QUIET_MS);

      expect([packet.topic, packet.payload.toString()]).to.deep.equal(['@msg/TopicA/will', 'will across a restart']);
      expect(after, 'not before the delay').to.be.at.least(1900);
      expect(back.seen.length + rx.seen.length, 'once').to.equal(1);
    } finally {
      await endAll(rx.client, tx.client, back.client);
    }
  });

  it('[MQTT-3.1.3-9] a device that connects again after the restart, before the delay has passed: no will', async () => {
    const delay = 3;
    const { dying, listener, rx, tx } = await dyingAndListener(delay);
    const stoppedAt = Date.now();
    await restart();
    const again = await connectCollecting(stack.mqttUrl, v5(dying, { clean: false, properties: { sessionExpiryInterval: 60 } }));
    const back = await connectCollecting(stack.mqttUrl, v5(listener, listening));
    try {
      expect(Date.now() - stoppedAt, 'the device was back within the delay').to.be.below(delay * 1000);
      // No event says "no will": wait until well past the delay.
      await sleep(stoppedAt + delay * 1000 + 1000 - Date.now());

      expect([...rx.seen, ...back.seen]).to.deep.equal([]);
    } finally {
      await endAll(rx.client, tx.client, again.client, back.client);
    }
  });
});
