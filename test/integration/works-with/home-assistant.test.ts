import { expect } from 'chai';
import { aGroup, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { refusalOf } from '../../helpers/mqtt-expect';
import { connackOf5, v5 } from '../../helpers/mqtt5';
import { startStack, Stack } from '../../helpers/stack';
import { pullThePlug, seenBySubscriberNow, subscribePastRetained } from './late-subscriber';

/**
 * Home Assistant's MQTT integration (docs/works-with/home-assistant.md), packet by packet, with its discovery prefix
 * set to `@msg/homeassistant` and its birth and will topic to `@msg/homeassistant/status`:
 * - HA subscribes `{prefix}/+/+/config` and `{prefix}/+/+/+/config` (the `<component>/[<node_id>/]<object_id>/config`
 *   shapes), then to every state, command and availability topic a config names;
 * - a device publishes its configs retained, so an HA that (re)starts later gets them replayed;
 * - HA's birth is `online` (QoS 0, not retained) after connecting, its will `offline` on the same topic.
 * One HA and the devices it sees are one group: retained messages and topics are per group (docs/mqtt.md).
 */
const PREFIX = '@msg/homeassistant';
const HA_STATUS = `${PREFIX}/status`;
const DISCOVERY_FILTERS = [`${PREFIX}/+/+/config`, `${PREFIX}/+/+/+/config`];

const lightConfig = {
  name: 'Kitchen light',
  unique_id: 'kitchen-light-1',
  command_topic: '@msg/kitchen/light/set',
  state_topic: '@msg/kitchen/light/state',
  availability_topic: '@msg/kitchen/status',
  payload_on: 'ON',
  payload_off: 'OFF',
  device: { identifiers: ['kitchen-1'], name: 'Kitchen' },
};

/** HA's MQTT version, with the OASIS statements that replay retained messages to its new subscriptions. */
const VERSIONS = [
  { protocolVersion: 4, replay: '[MQTT-3.3.1-6] [MQTT-3.3.1-8]' },
  { protocolVersion: 5, replay: '[MQTT-3.3.1-9]' },
] as const;

for (const { protocolVersion, replay } of VERSIONS) {
  describe(`works with Home Assistant (MQTT ${protocolVersion === 5 ? '5' : '3.1.1'} on HA's side)`, () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack();
    });
    after(() => stack.stop());

    /** Home Assistant as its MQTT integration connects: its will armed, then its birth. */
    async function connectHomeAssistant(ha: TestDevice) {
      const client = await connectDevice(stack.mqttUrl, ha, {
        protocolVersion,
        will: { topic: HA_STATUS, payload: Buffer.from('offline'), qos: 0, retain: false },
      });
      await client.publishAsync(HA_STATUS, 'online', { qos: 0, retain: false });
      return client;
    }

    /** A device announcing a light the way HA's discovery asks: availability will, retained config, state, `online`. */
    async function connectLight(device: TestDevice) {
      const client = await connectDevice(stack.mqttUrl, device, {
        will: { topic: lightConfig.availability_topic, payload: Buffer.from('offline'), qos: 1, retain: true },
      });
      await client.subscribeAsync([lightConfig.command_topic, HA_STATUS], { qos: 1 });
      await client.publishAsync(`${PREFIX}/light/kitchen/light/config`, JSON.stringify(lightConfig), { qos: 1, retain: true });
      await client.publishAsync(lightConfig.state_topic, 'OFF', { qos: 1, retain: true });
      await client.publishAsync(lightConfig.availability_topic, 'online', { qos: 1, retain: true });
      return client;
    }

    it(`[MQTT-3.3.1-5] ${replay} replays retained discovery configs to an HA that subscribes after they were sent`, async () => {
      const [light, ha] = await aGroup(stack, 2);
      const device = await connectLight(light);
      try {
        const discovered = await seenBySubscriberNow(stack.mqttUrl, ha, DISCOVERY_FILTERS, { protocolVersion });
        expect(discovered).to.deep.equal([{ topic: `${PREFIX}/light/kitchen/light/config`, payload: JSON.stringify(lightConfig), retain: true }]);

        const config = JSON.parse(discovered[0].payload) as typeof lightConfig;
        const state = await seenBySubscriberNow(stack.mqttUrl, ha, [config.state_topic, config.availability_topic], { protocolVersion });
        expect(state).to.deep.equal([
          { topic: '@msg/kitchen/light/state', payload: 'OFF', retain: true },
          { topic: '@msg/kitchen/status', payload: 'online', retain: true },
        ]);
      } finally {
        await endAll(device);
      }
    });

    it('carries HA\'s command to the device and the device\'s retained state back', async () => {
      const [light, ha] = await aGroup(stack, 2);
      const device = await connectLight(light);
      const home = await connectHomeAssistant(ha);
      try {
        device.on('message', (topic, payload) => {
          if (topic === lightConfig.command_topic) void device.publishAsync(lightConfig.state_topic, payload, { qos: 1, retain: true });
        });
        await subscribePastRetained(home, lightConfig.state_topic);
        const stateNow = nextMessage(home, (t) => t === lightConfig.state_topic);
        await home.publishAsync(lightConfig.command_topic, 'ON', { qos: 0, retain: false });

        expect((await stateNow).payload).to.equal('ON');
      } finally {
        await endAll(device, home);
      }
    });

    it('[MQTT-3.1.2-8] delivers HA\'s birth `online`, then its will `offline` when HA drops without DISCONNECT', async () => {
      const [light, ha] = await aGroup(stack, 2);
      const device = await connectLight(light);
      try {
        const birth = nextMessage(device, (t) => t === HA_STATUS);
        const home = await connectHomeAssistant(ha);
        expect((await birth).payload).to.equal('online');

        const will = nextMessage(device, (t) => t === HA_STATUS);
        pullThePlug(home);
        expect((await will).payload).to.equal('offline');
      } finally {
        await endAll(device);
      }
    });

    it('[MQTT-3.1.2-8] [MQTT-3.1.2-17] marks a device unavailable with its retained availability will when it drops', async () => {
      const [light, ha, dashboard] = await aGroup(stack, 3);
      const device = await connectLight(light);
      const home = await connectHomeAssistant(ha);
      try {
        await subscribePastRetained(home, lightConfig.availability_topic);
        const unavailable = nextMessage(home, (t) => t === lightConfig.availability_topic);
        pullThePlug(device);
        expect((await unavailable).payload).to.equal('offline');

        // A second client of the group, not HA's own ClientID: that would take HA's session over.
        const later = await seenBySubscriberNow(stack.mqttUrl, dashboard, [lightConfig.availability_topic], { protocolVersion });
        expect(later).to.deep.equal([{ topic: '@msg/kitchen/status', payload: 'offline', retain: true }]);
      } finally {
        await endAll(home);
      }
    });

    it('[MQTT-3.3.1-10] forgets a device removed with an empty retained config', async () => {
      const [light, ha] = await aGroup(stack, 2);
      const device = await connectLight(light);
      try {
        await device.publishAsync(`${PREFIX}/light/kitchen/light/config`, '', { qos: 1, retain: true });

        expect(await seenBySubscriberNow(stack.mqttUrl, ha, DISCOVERY_FILTERS, { protocolVersion })).to.deep.equal([]);
      } finally {
        await endAll(device);
      }
    });

    it('keeps discovery inside the group: an HA of another group sees nothing', async () => {
      const [light] = await aGroup(stack, 1);
      const [otherHa] = await aGroup(stack, 1);
      const device = await connectLight(light);
      try {
        expect(await seenBySubscriberNow(stack.mqttUrl, otherHa, DISCOVERY_FILTERS, { protocolVersion })).to.deep.equal([]);
      } finally {
        await endAll(device);
      }
    });

    it('[MQTT-3.1.2-8] refuses HA\'s default will topic `homeassistant/status` at CONNECT: it is outside @msg/', async () => {
      const [ha] = await aGroup(stack, 1);
      const options = { will: { topic: 'homeassistant/status', payload: Buffer.from('offline'), qos: 0 as const, retain: false } };

      if (protocolVersion === 4) {
        expect((await refusalOf(stack.mqttUrl, { clientId: ha.deviceid, username: ha.token, password: '', ...options })).code).to.equal(5);
      } else {
        expect((await connackOf5(stack.mqttUrl, { ...v5(ha), ...options })).reasonCode).to.equal(0x90);
      }
    });
  });
}
