import { expect } from 'chai';
import mqtt from 'mqtt';
import { aGroup } from '../../helpers/devices';
import { connectDevice, endAll, sleep } from '../../helpers/mqtt';
import { startStack, Stack } from '../../helpers/stack';

async function until(check: () => boolean, ms: number): Promise<void> {
  for (const deadline = Date.now() + ms; !check() && Date.now() < deadline; ) await sleep(10);
}

describe('a shutdown while a device publishes (the path of SIGTERM)', () => {
  let first: Stack | undefined;
  let second: Stack | undefined;
  afterEach(async () => {
    await first?.stop({ keepData: true }).catch(() => undefined);
    await (second ?? first)?.stop();
    first = second = undefined;
  });

  it('acknowledges exactly the QoS 1 messages it kept: each PUBACK is a queued message, and none kept goes unacknowledged', async () => {
    first = await startStack();
    const [subscriber, publisher] = await aGroup(first, 2);
    const away = await connectDevice(first.mqttUrl, subscriber, { clean: false });
    await away.subscribeAsync('@msg/stream', { qos: 1 });
    await away.endAsync();
    const tx = await connectDevice(first.mqttUrl, publisher);
    tx.on('error', () => undefined);
    let [sent, acked, sending] = [0, 0, true];
    // A steady stream, so that the stop comes in its middle: some messages read, some not yet sent.
    const stream = (async () => {
      while (sending && tx.connected) {
        for (let i = 0; i < 5; i++) tx.publish('@msg/stream', `m${++sent}`, { qos: 1 }, (err) => (err ? undefined : acked++));
        await sleep(2);
      }
    })();
    await until(() => acked >= 50, 5000);

    const stopped = first.stop({ keepData: true });
    // Five more in the turn the stop begins in: the broker stops reading before it can read them, so the stop comes in
    // the middle of the stream however late the machine runs the stream's timers.
    for (let i = 0; i < 5; i++) tx.publish('@msg/stream', `m${++sent}`, { qos: 1 }, (err) => (err ? undefined : acked++));
    await stopped;
    sending = false;
    await stream;
    const ackedAtStop = acked;
    await endAll(tx);
    second = await startStack({ dataDir: first.dataDir });
    first = undefined;
    const back = mqtt.connect(second.mqttUrl, { clientId: subscriber.deviceid, username: subscriber.token, clean: false, reconnectPeriod: 0 });
    const received: string[] = [];
    back.on('message', (_topic, payload) => received.push(payload.toString()));
    try {
      await until(() => received.length >= ackedAtStop, 5000);
      await sleep(300);

      expect(ackedAtStop, 'the stop came in the middle of the stream').to.be.within(50, sent - 1);
      expect(received).to.deep.equal(Array.from({ length: ackedAtStop }, (_, i) => `m${i + 1}`));
    } finally {
      await endAll(back);
    }
  });
});
