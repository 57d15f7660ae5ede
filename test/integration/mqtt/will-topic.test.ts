import { expect } from 'chai';
import { aGroup, TestDevice } from '../../helpers/devices';
import { collect, connectDevice, endAll } from '../../helpers/mqtt';
import { refusalOf } from '../../helpers/mqtt-expect';
import { connackOf5, v5 } from '../../helpers/mqtt5';
import { startStack, Stack } from '../../helpers/stack';

/** CONNACK return code 5, "not authorized" (MQTT 3.1.1 §3.2.2.3). */
const NOT_AUTHORIZED = 5;
/** MQTT 5 CONNACK reason codes (§3.2.2.2). */
const TOPIC_NAME_INVALID = 0x90;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue 20 §6: a Last Will the device could not publish itself used to be accepted at CONNECT and dropped when the
 * connection ended. [MQTT-3.1.2-8] says the will of an accepted connection MUST be published, so such a CONNECT is
 * now refused: MQTT 5 CONNACK 0x90 ("the Will Topic Name is not malformed, but is not accepted by this Server",
 * §3.2.2.2), MQTT 3.1.1 CONNACK 5; then the connection is closed [MQTT-3.2.2-5] [MQTT-3.2.2-7].
 */
describe('MQTT CONNECT: Last Will topics meet the rule a PUBLISH meets', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const will = (topic: string, payload = Buffer.from('gone')) => ({ will: { topic, payload, qos: 0 as const, retain: false } });
  const forbidden: [string, string][] = [
    ['another family (@shadow/data of another name)', '@shadow/data/other'],
    ['a topic without a family', 'status/lamp'],
    ['another group\'s namespace', '@private/x'],
    ['a wildcard', '@msg/status/+'],
    ['an empty level', '@msg/status//lamp'],
    ['$SYS', '$SYS/broker'],
  ];

  for (const [what, topic] of forbidden) {
    it(`[MQTT-3.1.2-8] [MQTT-3.2.2-5] MQTT 3.1.1: refuses a will on ${what} with CONNACK 5`, async () => {
      const [device] = await aGroup(stack, 1);

      const refusal = await refusalOf(stack.mqttUrl, { clientId: device.deviceid, username: device.token, password: '', ...will(topic) });

      expect(refusal.code).to.equal(NOT_AUTHORIZED);
    });

    it(`[MQTT-3.1.2-8] [MQTT-3.2.2-6] [MQTT-3.2.2-7] MQTT 5: refuses a will on ${what} with 0x90 Topic Name invalid and a Reason String`, async () => {
      const [device] = await aGroup(stack, 1);

      const connack = await connackOf5(stack.mqttUrl, { ...v5(device), ...will(topic) });

      expect(connack.reasonCode).to.equal(TOPIC_NAME_INVALID);
      expect(connack.sessionPresent).to.equal(false);
      expect(connack.properties?.reasonString).to.match(/^Last Will refused: /);
    });
  }

  it('[MQTT-3.1.2-8] accepts a will on the device\'s own @msg topic, and publishes it to the group when the connection is lost', async () => {
    const [dying, listener] = await aGroup(stack, 2);
    const tx = await connectDevice(stack.mqttUrl, dying, will('@msg/status/lamp'));
    const rx = await connectDevice(stack.mqttUrl, listener);
    try {
      await rx.subscribeAsync('@msg/#');
      const seen = collect(rx);

      tx.stream.destroy();
      await sleep(300);

      expect(seen).to.deep.equal([{ topic: '@msg/status/lamp', payload: 'gone' }]);
    } finally {
      await endAll(tx, rx);
    }
  });

  it('checks the will only of a device it admitted: wrong credentials stay 0x86 Bad User Name or Password', async () => {
    const [device] = await aGroup(stack, 1);
    const stranger: TestDevice = { ...device, token: 'wrong-token' };

    const connack = await connackOf5(stack.mqttUrl, { ...v5(stranger), ...will('@shadow/data/other') });

    expect(connack.reasonCode).to.equal(0x86);
  });
});
