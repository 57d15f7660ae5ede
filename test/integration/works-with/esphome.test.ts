import { expect } from 'chai';
import mqtt, { IClientOptions, IConnackPacket, MqttClient } from 'mqtt';
import { aGroup, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { startStack, Stack } from '../../helpers/stack';
import { pullThePlug, seenBySubscriberNow } from './late-subscriber';

/**
 * An ESPHome node's `mqtt:` component (docs/works-with/esphome.md) with `client_id` = its device id, `username` = its
 * token, `topic_prefix: "@msg/livingroom"` and `discovery_prefix: "@msg/homeassistant"`. What it sends, as ESPHome
 * documents its defaults: MQTT 3.1.1 with `clean_session: false` (a persistent session), keepalive 15 s, a will
 * `offline` and a birth `online` on `{topic_prefix}/status` (retained), retained discovery configs, its commands
 * subscribed at QoS 0 and an `mqtt_subscribe` sensor here set to `qos: 1`. The MQTT 5 row is the same node as a
 * client that keeps its session with Clean Start 0 and a Session Expiry Interval would.
 */
const STATUS = '@msg/livingroom/status';
const SETPOINT = '@msg/livingroom/setpoint';
const COMMAND = '@msg/livingroom/switch/relay/command';
const CONFIG = '@msg/homeassistant/switch/livingroom/relay/config';
const relayConfig = {
  name: 'Relay',
  unique_id: 'livingroom-relay',
  state_topic: '@msg/livingroom/switch/relay/state',
  command_topic: COMMAND,
  availability_topic: STATUS,
};

/** Each way to keep a session, with the OASIS statements of its version: resume, Session Present, the will's RETAIN. */
const SESSIONS: { how: string; session: IClientOptions; resume: string; willRetained: string }[] = [
  { how: 'MQTT 3.1.1, clean_session false', session: { protocolVersion: 4, clean: false }, resume: '[MQTT-3.1.2-4] [MQTT-3.1.2-5] [MQTT-3.2.2-2]', willRetained: '[MQTT-3.1.2-17]' },
  {
    how: 'MQTT 5, Clean Start 0 and a Session Expiry Interval',
    session: { protocolVersion: 5, clean: false, properties: { sessionExpiryInterval: 3600 } },
    resume: '[MQTT-3.1.2-5] [MQTT-3.2.2-3]',
    willRetained: '[MQTT-3.1.2-15]',
  },
];

for (const { how, session, resume, willRetained } of SESSIONS) {
  describe(`works with ESPHome: a persistent session (${how})`, function () {
    this.timeout(60_000);
    let stack: Stack;
    beforeEach(async () => {
      stack = await startStack();
    });
    afterEach(() => stack.stop());

    const nodeOptions = (): IClientOptions => ({
      ...session,
      keepalive: 15,
      will: { topic: STATUS, payload: Buffer.from('offline'), qos: 0, retain: true },
    });

    /** The node boots: connects, announces itself, subscribes. */
    async function bootNode(node: TestDevice): Promise<MqttClient> {
      const client = await connectDevice(stack.mqttUrl, node, nodeOptions());
      await client.publishAsync(STATUS, 'online', { qos: 0, retain: true });
      await client.publishAsync(CONFIG, JSON.stringify(relayConfig), { qos: 0, retain: true });
      await client.subscribeAsync({ [COMMAND]: { qos: 0 }, [SETPOINT]: { qos: 1 }, '@msg/homeassistant/status': { qos: 0 } });
      return client;
    }

    /** The node comes back: collects what it receives from the first byte after CONNACK. */
    async function reconnectNode(node: TestDevice, ms = 600) {
      const client = mqtt.connect(stack.mqttUrl, { clientId: node.deviceid, username: node.token, password: '', reconnectPeriod: 0, manualConnect: true, ...nodeOptions() });
      const received: { topic: string; payload: string }[] = [];
      client.on('message', (topic, payload) => received.push({ topic, payload: payload.toString() }));
      const connack = await new Promise<IConnackPacket>((resolve, reject) => {
        client.once('connect', resolve);
        client.once('error', reject);
        client.connect();
      });
      await sleep(ms);
      await client.endAsync();
      return { connack, received };
    }

    it(`${resume} keeps the QoS 1 messages sent while the node was off across a service restart, in order`, async () => {
      const [node, controller] = await aGroup(stack, 2);
      const booted = await bootNode(node);
      pullThePlug(booted);
      await sleep(200);

      const before = await connectDevice(stack.mqttUrl, controller);
      await before.publishAsync(SETPOINT, '21.5', { qos: 1 });
      await endAll(before);
      const dataDir = stack.dataDir;
      await stack.stop({ keepData: true });
      stack = await startStack({ dataDir });
      const after = await connectDevice(stack.mqttUrl, controller);
      await after.publishAsync(SETPOINT, '22.0', { qos: 1 });
      await endAll(after);

      const back = await reconnectNode(node);
      expect(back.connack.sessionPresent).to.equal(true);
      expect(back.received.filter((m) => m.topic === SETPOINT)).to.deep.equal([
        { topic: SETPOINT, payload: '21.5' },
        { topic: SETPOINT, payload: '22.0' },
      ]);
    });

    it(`[MQTT-3.1.2-8] ${willRetained} [MQTT-3.3.1-5] shows the node \`offline\` and its discovery config after the restart, until its birth says \`online\``, async () => {
      const [node, ha] = await aGroup(stack, 2);
      const booted = await bootNode(node);
      pullThePlug(booted);
      await sleep(200);

      const dataDir = stack.dataDir;
      await stack.stop({ keepData: true });
      stack = await startStack({ dataDir });
      const seen = await seenBySubscriberNow(stack.mqttUrl, ha, [STATUS, '@msg/homeassistant/+/+/+/config']);

      expect(seen).to.deep.equal([
        { topic: CONFIG, payload: JSON.stringify(relayConfig), retain: true },
        { topic: STATUS, payload: 'offline', retain: true },
      ]);
      const rebooted = await bootNode(node);
      try {
        expect(await seenBySubscriberNow(stack.mqttUrl, ha, [STATUS])).to.deep.equal([{ topic: STATUS, payload: 'online', retain: true }]);
      } finally {
        await endAll(rebooted);
      }
    });

    it(`${resume} keeps the node's subscriptions: a command after the restart reaches it without a new SUBSCRIBE`, async () => {
      const [node, controller] = await aGroup(stack, 2);
      await endAll(await bootNode(node));

      const dataDir = stack.dataDir;
      await stack.stop({ keepData: true });
      stack = await startStack({ dataDir });
      const client = await connectDevice(stack.mqttUrl, node, nodeOptions());
      const sender = await connectDevice(stack.mqttUrl, controller);
      try {
        const command = nextMessage(client, (t) => t === COMMAND);
        await sender.publishAsync(COMMAND, 'ON', { qos: 0 });
        expect((await command).payload).to.equal('ON');
      } finally {
        await endAll(client, sender);
      }
    });
  });
}
