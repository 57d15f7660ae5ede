import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IClientOptions, MqttClient } from 'mqtt';
import { topicTester } from '../../../src/sessions/topic-match';
import { aGroup, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { startStack, Stack } from '../../helpers/stack';
import { seenBySubscriberNow } from './late-subscriber';

/**
 * examples/node-red/flow.json, the flow docs/works-with/node-red.md walks through, played against the service as
 * Node-RED 4's MQTT nodes would play it: the broker config node's connection (its ClientID from the environment
 * variable it names, `${OPENPIE_DEVICE_ID}`, as Node-RED substitutes `${VAR}` properties; the token typed in its
 * Security tab), its birth and close messages, one SUBSCRIBE per `mqtt in` node, and each `inject` -> `mqtt out`
 * pair sending the inject's payload (a JSON payload as JSON text, as the `mqtt out` node sends objects).
 */
const FLOW_FILE = join(__dirname, '..', '..', '..', 'examples', 'node-red', 'flow.json');

interface FlowNode {
  id: string;
  type: string;
  wires?: string[][];
  [property: string]: unknown;
}

const flow = JSON.parse(readFileSync(FLOW_FILE, 'utf8')) as FlowNode[];
const ofType = (type: string) => flow.filter((n) => n.type === type);
const str = (node: FlowNode, property: string) => String(node[property] ?? '');
const broker = ofType('mqtt-broker')[0];

/** Node-RED's `${VAR}` substitution of a whole property. */
const substitute = (value: string, env: Record<string, string>) => value.replace(/^\$\{(\w+)\}$/, (_, name: string) => env[name] ?? '');

/** The connection the broker config node opens for `device`. */
function brokerOptions(device: TestDevice): IClientOptions {
  return {
    clientId: substitute(str(broker, 'clientid'), { OPENPIE_DEVICE_ID: device.deviceid }),
    protocolVersion: Number(str(broker, 'protocolVersion')) as 4 | 5,
    keepalive: Number(str(broker, 'keepalive')),
    clean: broker.cleansession === true,
    will: { topic: str(broker, 'willTopic'), payload: Buffer.from(str(broker, 'willPayload')), qos: Number(str(broker, 'willQos')) as 0 | 1 | 2, retain: str(broker, 'willRetain') === 'true' },
  };
}

/** What an `inject` node sends into the `mqtt out` it is wired to. */
function payloadOf(inject: FlowNode): string {
  return inject.payloadType === 'json' ? JSON.stringify(JSON.parse(str(inject, 'payload'))) : str(inject, 'payload');
}

describe('works with Node-RED: examples/node-red/flow.json', () => {
  it('is a flow Node-RED can import: unique ids, every wire and broker reference resolves, one broker config', () => {
    const ids = flow.map((n) => n.id);
    const wired = flow.flatMap((n) => (n.wires ?? []).flat());

    expect(new Set(ids).size).to.equal(ids.length);
    expect(wired.filter((id) => !ids.includes(id))).to.deep.equal([]);
    expect(ofType('mqtt-broker')).to.have.length(1);
    for (const node of [...ofType('mqtt in'), ...ofType('mqtt out')]) expect(node.broker, node.id).to.equal(broker.id);
  });

  it('keeps no credentials in the file: the ClientID comes from ${OPENPIE_DEVICE_ID}, the token from the Security tab', () => {
    expect(broker.clientid).to.equal('${OPENPIE_DEVICE_ID}');
    expect(flow.some((n) => 'credentials' in n)).to.equal(false);
  });

  it('names its topic on every mqtt node (none takes msg.topic): the service checks each one below', () => {
    for (const node of [...ofType('mqtt in'), ...ofType('mqtt out')]) expect(str(node, 'topic'), node.id).to.not.equal('');
  });

  describe('played against the service', () => {
    let stack: Stack;
    let nodeRed: TestDevice;
    let groupmate: TestDevice;
    let client: MqttClient;
    before(async () => {
      stack = await startStack();
      [nodeRed, groupmate] = await aGroup(stack, 2);
      // Accepted: the broker node's will is a topic the device may publish (a will outside it refuses the CONNECT).
      client = await connectDevice(stack.mqttUrl, nodeRed, brokerOptions(nodeRed));
      await client.publishAsync(str(broker, 'birthTopic'), str(broker, 'birthPayload'), { qos: Number(str(broker, 'birthQos')) as 1, retain: str(broker, 'birthRetain') === 'true' });
    });
    after(async () => {
      await endAll(client);
      await stack.stop();
    });

    it('grants every mqtt in node its subscription at the QoS it asks', async () => {
      for (const node of ofType('mqtt in')) {
        const [granted] = await client.subscribeAsync(str(node, 'topic'), { qos: Number(str(node, 'qos')) as 0 | 1 | 2 });
        expect(granted.qos, str(node, 'topic')).to.equal(Number(str(node, 'qos')));
      }
    });

    it('[MQTT-3.3.1-5] shows the retained birth message `online` to a groupmate', async () => {
      expect(await seenBySubscriberNow(stack.mqttUrl, groupmate, [str(broker, 'birthTopic')])).to.deep.equal([
        { topic: str(broker, 'birthTopic'), payload: 'online', retain: true },
      ]);
    });

    for (const inject of ofType('inject')) {
      const out = flow.find((n) => n.id === inject.wires?.[0]?.[0])!;
      it(`answers the "${str(inject, 'name')}" inject (${str(out, 'topic')}) on one of the flow's mqtt in nodes, the connection kept`, async () => {
        const heardByFlow = topicTester(ofType('mqtt in').map((n) => str(n, 'topic')));
        const answer = nextMessage(client, (topic) => heardByFlow(topic) && topic !== str(broker, 'birthTopic'));

        await client.publishAsync(str(out, 'topic'), payloadOf(inject), { qos: Number(str(out, 'qos')) as 0 | 1 | 2, retain: str(out, 'retain') === 'true' });

        const { topic, payload } = await answer;
        expect(client.connected).to.equal(true);
        if (str(out, 'topic').startsWith('@msg/')) expect({ topic, payload }).to.deep.equal({ topic: str(out, 'topic'), payload: payloadOf(inject) });
        else expect(JSON.parse(payload)).to.have.property('deviceid', nodeRed.deviceid);
      });
    }

    it('leaves the retained close message `offline` when the flow stops', async () => {
      await client.publishAsync(str(broker, 'closeTopic'), str(broker, 'closePayload'), { qos: 1, retain: str(broker, 'closeRetain') === 'true' });
      await client.endAsync();
      await sleep(100);

      expect(await seenBySubscriberNow(stack.mqttUrl, groupmate, [str(broker, 'closeTopic')])).to.deep.equal([
        { topic: str(broker, 'closeTopic'), payload: 'offline', retain: true },
      ]);
    });
  });
});
