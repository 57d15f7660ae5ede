import { expect } from 'chai';
import { MqttClient } from 'mqtt';
import { aGroup, TestDevice } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { refusalOf, restPublish } from '../../helpers/mqtt-expect';
import { startStack, Stack } from '../../helpers/stack';
import { pullThePlug, seenBySubscriberNow } from './late-subscriber';

/**
 * A Tasmota device (docs/works-with/tasmota.md) set up with `MqttClient <deviceid>`, `MqttUser <token>`,
 * `FullTopic @msg/%prefix%/%topic%/`, `Topic <name>` and the default `GroupTopic1 tasmotas`. What it does on the wire,
 * as Tasmota's MQTT driver does over PubSubClient (MQTT 3.1.1, CleanSession 1, keepalive 30): its will is `Offline` on
 * `tele/<topic>/LWT`, QoS 1, retained; once connected it publishes `Online` there (retained), subscribes to its command
 * tree `cmnd/<topic>/#`, its group topic `cmnd/tasmotas/#` and its fallback topic `cmnd/<client id>_fb/#`, and sends
 * `tele/<topic>/INFO1`. A command `cmnd/<topic>/POWER ON` is answered on `stat/<topic>/RESULT` and `stat/<topic>/POWER`.
 */
const full = (prefix: 'cmnd' | 'stat' | 'tele', topic: string, rest = '') => `@msg/${prefix}/${topic}/${rest}`;

interface Tasmota {
  client: MqttClient;
  topic: string;
}

describe('works with Tasmota: the cmnd/ stat/ tele/ tree under @msg/, with a retained LWT', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  /** A Tasmota with relay 1, answering POWER commands as the firmware does. */
  async function bootTasmota(device: TestDevice, topic: string): Promise<Tasmota> {
    const client = await connectDevice(stack.mqttUrl, device, {
      keepalive: 30,
      will: { topic: full('tele', topic, 'LWT'), payload: Buffer.from('Offline'), qos: 1, retain: true },
    });
    await client.publishAsync(full('tele', topic, 'LWT'), 'Online', { qos: 0, retain: true });
    // PubSubClient sends one SUBSCRIBE per topic.
    for (const filter of [full('cmnd', topic, '#'), full('cmnd', 'tasmotas', '#'), `@msg/cmnd/${device.deviceid}_fb/#`]) {
      const [granted] = await client.subscribeAsync(filter, { qos: 0 });
      expect(granted.qos, filter).to.equal(0);
    }
    await client.publishAsync(full('tele', topic, 'INFO1'), JSON.stringify({ Info1: { Module: 'Sonoff Basic', Version: '14.3.0(release-tasmota)' } }));
    client.on('message', (received, payload) => {
      if (!received.endsWith('/POWER')) return;
      const power = payload.toString().toUpperCase();
      void client.publishAsync(full('stat', topic, 'RESULT'), JSON.stringify({ POWER: power }));
      void client.publishAsync(full('stat', topic, 'POWER'), power);
    });
    return { client, topic };
  }

  it('[MQTT-3.3.1-5] [MQTT-3.3.1-6] [MQTT-3.3.1-8] shows a late subscriber every device\'s retained LWT `Online`', async () => {
    const [plug, bulb, controller] = await aGroup(stack, 3);
    const tasmotas = [await bootTasmota(plug, 'tasmota_1A2B3C'), await bootTasmota(bulb, 'tasmota_4D5E6F')];
    try {
      expect(await seenBySubscriberNow(stack.mqttUrl, controller, ['@msg/tele/+/LWT'])).to.deep.equal([
        { topic: '@msg/tele/tasmota_1A2B3C/LWT', payload: 'Online', retain: true },
        { topic: '@msg/tele/tasmota_4D5E6F/LWT', payload: 'Online', retain: true },
      ]);
    } finally {
      await endAll(...tasmotas.map((t) => t.client));
    }
  });

  it('answers `cmnd/<topic>/POWER ON` on `stat/<topic>/RESULT` and `stat/<topic>/POWER`', async () => {
    const [plug, controller] = await aGroup(stack, 2);
    const tasmota = await bootTasmota(plug, 'tasmota_1A2B3C');
    const hub = await connectDevice(stack.mqttUrl, controller);
    try {
      const seen = collect(hub);
      await hub.subscribeAsync(full('stat', '+', '#'));
      await hub.publishAsync(full('cmnd', tasmota.topic, 'POWER'), 'ON');
      await nextMessage(hub, (t) => t.endsWith('/POWER'));

      expect(seen).to.deep.equal([
        { topic: '@msg/stat/tasmota_1A2B3C/RESULT', payload: '{"POWER":"ON"}' },
        { topic: '@msg/stat/tasmota_1A2B3C/POWER', payload: 'ON' },
      ]);
    } finally {
      await endAll(tasmota.client, hub);
    }
  });

  it('takes a command sent over REST as `PUT /v2/device/message/cmnd/<topic>/POWER`', async () => {
    const [plug, controller] = await aGroup(stack, 2);
    const tasmota = await bootTasmota(plug, 'tasmota_1A2B3C');
    try {
      const command = nextMessage(tasmota.client, (t) => t === full('cmnd', tasmota.topic, 'POWER'));
      await restPublish(stack, controller, 'cmnd/tasmota_1A2B3C/POWER', 'TOGGLE');

      expect((await command).payload).to.equal('TOGGLE');
    } finally {
      await endAll(tasmota.client);
    }
  });

  it('reaches every device of the group topic with one `cmnd/tasmotas/POWER`', async () => {
    const [plug, bulb, controller] = await aGroup(stack, 3);
    const tasmotas = [await bootTasmota(plug, 'tasmota_1A2B3C'), await bootTasmota(bulb, 'tasmota_4D5E6F')];
    const hub = await connectDevice(stack.mqttUrl, controller);
    try {
      const heard = tasmotas.map((t) => nextMessage(t.client, (topic) => topic === full('cmnd', 'tasmotas', 'POWER')));
      await hub.publishAsync(full('cmnd', 'tasmotas', 'POWER'), 'OFF');

      expect((await Promise.all(heard)).map((m) => m.payload)).to.deep.equal(['OFF', 'OFF']);
    } finally {
      await endAll(...tasmotas.map((t) => t.client), hub);
    }
  });

  it('[MQTT-3.1.2-8] [MQTT-3.1.2-17] replaces `Online` with the retained will `Offline` when the device loses power', async () => {
    const [plug, controller] = await aGroup(stack, 2);
    const tasmota = await bootTasmota(plug, 'tasmota_1A2B3C');

    pullThePlug(tasmota.client);
    await sleep(200);

    expect(await seenBySubscriberNow(stack.mqttUrl, controller, ['@msg/tele/+/LWT'])).to.deep.equal([
      { topic: '@msg/tele/tasmota_1A2B3C/LWT', payload: 'Offline', retain: true },
    ]);
  });

  it('[MQTT-3.1.2-8] refuses a Tasmota left on its default FullTopic `%prefix%/%topic%/` at CONNECT: its LWT is outside @msg/', async () => {
    const [plug] = await aGroup(stack, 1);

    const refusal = await refusalOf(stack.mqttUrl, {
      clientId: plug.deviceid,
      username: plug.token,
      password: '',
      will: { topic: 'tele/tasmota_1A2B3C/LWT', payload: Buffer.from('Offline'), qos: 1, retain: true },
    });

    expect(refusal.code).to.equal(5);
  });
});
