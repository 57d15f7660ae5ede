import { expect } from 'chai';
import { aDevice, aGroup } from '../../helpers/devices';
import { endAll, sleep } from '../../helpers/mqtt';
import { connect5, nextPublish, publishesTo } from '../../helpers/mqtt5';
import { startStack, Stack } from '../../helpers/stack';

const json = (payload: Buffer | string) => JSON.parse(payload.toString());

describe('MQTT 5: request/response (§4.10)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  describe('shadow requests answer on their Response Topic with their Correlation Data', () => {
    it('[MQTT-3.3.2-16] @shadow/data/get: the shadow on the Response Topic, with the Correlation Data', async () => {
      const device = await aDevice(stack);
      const { client } = await connect5(stack.mqttUrl, device);
      try {
        await client.subscribeAsync('@private/answers/#');
        const answer = nextPublish(client);
        await client.publishAsync('@shadow/data/get', '', { qos: 1, properties: { responseTopic: '@private/answers/get', correlationData: Buffer.from('g-1') } });
        const packet = await answer;
        expect(packet.topic).to.equal('@private/answers/get');
        expect(packet.properties?.correlationData).to.deep.equal(Buffer.from('g-1'));
        expect(json(packet.payload)).to.include({ deviceid: device.deviceid });
      } finally {
        await endAll(client);
      }
    });

    it('@shadow/data/update: the update notice on @shadow/data/updated as ever, and its copy as the answer', async () => {
      const device = await aDevice(stack);
      const { client } = await connect5(stack.mqttUrl, device);
      try {
        await client.subscribeAsync(['@private/answers/#', '@shadow/data/updated']);
        const answer = nextPublish(client, (p) => p.topic === '@private/answers/update');
        const notice = nextPublish(client, (p) => p.topic === '@shadow/data/updated');
        await client.publishAsync('@shadow/data/update', JSON.stringify({ data: { temp: 21 } }), {
          qos: 1,
          properties: { responseTopic: '@private/answers/update', correlationData: Buffer.from([1, 2, 3]) },
        });
        const [a, n] = await Promise.all([answer, notice]);
        expect(a.properties?.correlationData).to.deep.equal(Buffer.from([1, 2, 3]));
        expect(json(a.payload)).to.deep.equal(json(n.payload));
        expect(json(a.payload).data).to.deep.equal({ temp: 21 });
      } finally {
        await endAll(client);
      }
    });

    it('@shadow/batch/update without ackid: answered all the same (NETPIE would say nothing)', async () => {
      const device = await aDevice(stack);
      const { client } = await connect5(stack.mqttUrl, device);
      try {
        await client.subscribeAsync('@private/answers/#');
        const answer = nextPublish(client);
        await client.publishAsync('@shadow/batch/update', JSON.stringify({ batch: [{ data: { n: 1 }, ts: 0 }] }), {
          qos: 1,
          properties: { responseTopic: '@private/answers/batch', correlationData: Buffer.from('b') },
        });
        expect(json((await answer).payload)).to.include({ total: 1, applied: 1 });
      } finally {
        await endAll(client);
      }
    });

    it('an error goes to the Response Topic too, with the Correlation Data', async () => {
      const device = await aDevice(stack);
      const { client } = await connect5(stack.mqttUrl, device);
      try {
        await client.subscribeAsync('@private/answers/#');
        const answer = nextPublish(client);
        await client.publishAsync('@shadow/data/update', 'not json', { qos: 1, properties: { responseTopic: '@private/answers/x', correlationData: Buffer.from('e') } });
        const packet = await answer;
        expect(packet.properties?.correlationData).to.deep.equal(Buffer.from('e'));
        expect(json(packet.payload)).to.include({ status: 400, code: 'INVALID_JSON' });
      } finally {
        await endAll(client);
      }
    });

    it('a Response Topic outside @private/ is refused: INVALID_TOPIC on the request\'s own reply topic, nothing written', async () => {
      const [device, groupmate] = await aGroup(stack, 2);
      const { client } = await connect5(stack.mqttUrl, device);
      const mate = await connect5(stack.mqttUrl, groupmate);
      try {
        await client.subscribeAsync('@private/#');
        await mate.client.subscribeAsync('@msg/#');
        const overheard = publishesTo(mate.client);
        const answer = nextPublish(client, (p) => p.topic === '@private/shadow/data/update/response');
        await client.publishAsync('@shadow/data/update', JSON.stringify({ data: { secret: 1 } }), { qos: 1, properties: { responseTopic: '@msg/leak' } });
        expect(json((await answer).payload)).to.include({ status: 400, code: 'INVALID_TOPIC' });
        await sleep(100);
        expect(overheard).to.deep.equal([]);
        const read = await stack.http('GET', '/v2/device/shadow/data', { headers: { authorization: device.auth } });
        expect(read.body.data).to.deep.equal({});
      } finally {
        await endAll(client, mate.client);
      }
    });

    it('Correlation Data alone: the answer on the usual reply topic carries it', async () => {
      const device = await aDevice(stack);
      const { client } = await connect5(stack.mqttUrl, device);
      try {
        await client.subscribeAsync('@private/#');
        const answer = nextPublish(client);
        await client.publishAsync('@shadow/data/get', '', { qos: 1, properties: { correlationData: Buffer.from('c') } });
        const packet = await answer;
        expect(packet.topic).to.equal('@private/shadow/data/get/response');
        expect(packet.properties?.correlationData).to.deep.equal(Buffer.from('c'));
      } finally {
        await endAll(client);
      }
    });
  });

  it('[MQTT-3.3.2-15] [MQTT-3.3.2-16] between devices of a group: the responder answers on the request\'s Response Topic', async () => {
    const [requester, responder] = await aGroup(stack, 2);
    const req = await connect5(stack.mqttUrl, requester);
    const res = await connect5(stack.mqttUrl, responder);
    try {
      await res.client.subscribeAsync('@msg/requests', { qos: 1 });
      res.client.on('message', (_t, payload, packet) => {
        const { responseTopic, correlationData } = packet.properties ?? {};
        if (responseTopic) res.client.publish(responseTopic, `pong:${payload}`, { qos: 1, properties: { correlationData } });
      });
      await req.client.subscribeAsync('@msg/responses/+', { qos: 1 });
      const answer = nextPublish(req.client);

      await req.client.publishAsync('@msg/requests', 'ping', { qos: 1, properties: { responseTopic: '@msg/responses/r1', correlationData: Buffer.from('42') } });

      const packet = await answer;
      expect([packet.topic, packet.payload.toString()]).to.deep.equal(['@msg/responses/r1', 'pong:ping']);
      expect(packet.properties?.correlationData).to.deep.equal(Buffer.from('42'));
    } finally {
      await endAll(req.client, res.client);
    }
  });
});
