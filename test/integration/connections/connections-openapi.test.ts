import { expect } from 'chai';
import type { MqttClient } from 'mqtt';
import { openApiDocument } from '../../../src/http/openapi/document';
import { aDevice } from '../../helpers/devices';
import { connectDevice, connectRaw, endAll } from '../../helpers/mqtt';
import { expectDocumentedResponse, OpenApiDocument, schemaValidator } from '../../helpers/openapi';
import { startStack, Stack } from '../../helpers/stack';
import { connectionsOf } from './inspect';

const doc = openApiDocument() as unknown as OpenApiDocument;
const CONNECTIONS = '/v2/admin/devices/{deviceid}/connections';
const KICK = '/v2/admin/devices/{deviceid}/kick';

describe('connection inspector answers as the OpenAPI document says', () => {
  let stack: Stack;
  const validator = schemaValidator(doc);
  const clients: MqttClient[] = [];
  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    await endAll(...clients);
    await stack.stop();
  });

  it('GET connections with a live connection and a refusal, POST kick, and their 404s', async () => {
    const device = await aDevice(stack);
    await connectRaw(stack.mqttUrl, { clientId: device.deviceid, username: 'wrong', password: '' }).catch(() => undefined);
    const client = await connectDevice(stack.mqttUrl, device);
    clients.push(client);
    await client.subscribeAsync('@msg/x', { qos: 1 });
    await connectionsOf(stack, device.deviceid, (b) => b.connections[0]?.subscriptions.length === 1);

    const read = await stack.admin('GET', `/v2/admin/devices/${device.deviceid}/connections`);
    expectDocumentedResponse(doc, validator, { method: 'GET', path: CONNECTIONS }, read);
    const kick = await stack.admin('POST', `/v2/admin/devices/${device.deviceid}/kick`, { body: { reason: 'test' } });
    expectDocumentedResponse(doc, validator, { method: 'POST', path: KICK }, kick);
    const missing = await stack.admin('GET', '/v2/admin/devices/no-such-device/connections');
    expect(missing.status).to.equal(404);
    expectDocumentedResponse(doc, validator, { method: 'GET', path: CONNECTIONS }, missing);
    const badBody = await stack.admin('POST', `/v2/admin/devices/${device.deviceid}/kick`, { body: { reason: 7 } });
    expect(badBody.status).to.equal(400);
    expectDocumentedResponse(doc, validator, { method: 'POST', path: KICK }, badBody);
  });
});
