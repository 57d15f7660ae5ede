import { expect } from 'chai';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { rawHttp, RawHttpRequest } from '../../helpers/netpie-clients';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/**
 * The n8n community nodes for NETPIE: HakusaiTH/n8n-Netpie (npm n8n-nodes-netpie 0.1.2), replayed as n8n sends them.
 * - `credentials/NetpieApi.credentials.ts`: every request carries `Authorization: Device <clientId>:<token>` and
 *   `Accept: application/json`; "Test credential" is GET https://api.netpie.io/v2/device/shadow/data (any 2xx passes).
 * - `nodes/NetpieRead/NetpieRead.node.ts`: GET /v2/device/shadow/data with `qs: {alias}`; with "Simplify" it outputs
 *   `res.value ?? res[alias] ?? res`, so for NETPIE's reply the whole object. A non-2xx throws, showing the body.
 * - `nodes/NetpieSend/NetpieSend.node.ts`: PUT /v2/device/message with `qs: {topic}`; the payload as text/plain, or
 *   parsed and sent as JSON with the "JSON" option. n8n hands `qs` to axios, whose params serialiser percent-encodes
 *   `/` and `@` (`home/led` -> `home%2Fled`).
 */

/** axios' params serialiser (axios 1.x helpers/buildURL.js): encodeURIComponent, then a few characters put back. */
const axiosParam = (value: string) =>
  encodeURIComponent(value).replace(/%3A/gi, ':').replace(/%24/g, '$').replace(/%2C/gi, ',').replace(/%20/g, '+').replace(/%5B/gi, '[').replace(/%5D/gi, ']');

/** A request as n8n's httpRequestWithAuthentication sends it: the credential's headers, n8n's User-Agent, axios' own. */
function n8nRequest(stack: Stack, device: TestDevice, method: string, target: string, body?: { contentType: string; text: string }): RawHttpRequest {
  const headers: [string, string][] = [['Accept', 'application/json']];
  if (body) headers.push(['Content-Type', body.contentType]);
  headers.push(['Authorization', `Device ${device.deviceid}:${device.token}`], ['User-Agent', 'n8n']);
  if (body) headers.push(['Content-Length', String(Buffer.byteLength(body.text))]);
  headers.push(['Host', new URL(stack.baseUrl).host], ['Connection', 'close']);
  return { method, target, headers, body: body?.text };
}

describe('clients: n8n-nodes-netpie (HakusaiTH/n8n-Netpie)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  // credentials/NetpieApi.credentials.ts `test`: GET {baseURL}/shadow/data; n8n calls the credential good on 2xx.
  it('n8n NETPIE credential: the credential test GET /v2/device/shadow/data is answered 200', async () => {
    const device = await aDevice(stack);

    const res = await rawHttp(stack.baseUrl, n8nRequest(stack, device, 'GET', '/v2/device/shadow/data'));

    expect(res.status, res.text).to.equal(200);
    expect(res.headers['content-type']).to.match(/^application\/json/);
  });

  it('n8n NETPIE credential: a wrong token fails the credential test with a non-2xx JSON answer', async () => {
    const device = await aDevice(stack);

    const res = await rawHttp(stack.baseUrl, n8nRequest(stack, { ...device, token: 'x'.repeat(32) }, 'GET', '/v2/device/shadow/data'));

    expect(res.status).to.equal(401);
    expect(res.json.status).to.equal(401);
  });

  // NetpieRead.node.ts: GET /shadow/data?alias=<alias>; Simplify gives res.value ?? res[alias] ?? res.
  it('n8n NETPIE Read: GET /v2/device/shadow/data?alias= returns the groupmate\'s shadow object (deviceid, data)', async () => {
    const [reader, lamp] = await aGroup(stack, 2);
    await asDevice(stack, lamp)('PUT', '/v2/device/shadow/data', { body: { data: { led: 'on' } } });

    const res = await rawHttp(stack.baseUrl, n8nRequest(stack, reader, 'GET', `/v2/device/shadow/data?alias=${axiosParam(lamp.alias)}`));

    expect(res.status, res.text).to.equal(200);
    const simplified = res.json.value ?? res.json[lamp.alias] ?? res.json;
    expect(simplified.deviceid).to.equal(lamp.deviceid);
    expect(simplified.data).to.deep.equal({ led: 'on' });
  });

  // NetpieRead.node.ts defaults Alias to 'led' (a shadow field, not a device): NETPIE's `alias` names a device, so the
  // node's error shows the answer's body.
  it('n8n NETPIE Read: an alias that names no device is a 404 with a JSON body the node can show', async () => {
    const reader = await aDevice(stack);

    const res = await rawHttp(stack.baseUrl, n8nRequest(stack, reader, 'GET', '/v2/device/shadow/data?alias=led'));

    expect(res.status).to.equal(404);
    expect(res.json).to.include({ status: 404, code: 'ALIAS_NOT_FOUND' });
  });

  // NetpieSend.node.ts, Content Type "Text" (the default): body = the payload string, 'Content-Type: text/plain'.
  it('n8n NETPIE Send: PUT /v2/device/message?topic=led as text/plain is answered 2xx and published on @msg/led', async () => {
    const [sender, lamp] = await aGroup(stack, 2);
    const mqtt = await connectDevice(stack.mqttUrl, lamp);
    try {
      await mqtt.subscribeAsync('@msg/#');
      const arrived = nextMessage(mqtt);

      const res = await rawHttp(stack.baseUrl, n8nRequest(stack, sender, 'PUT', `/v2/device/message?topic=${axiosParam('led')}`, { contentType: 'text/plain', text: 'ledon' }));

      expect(res.status, res.text).to.be.within(200, 299);
      expect(await arrived).to.deep.equal({ topic: '@msg/led', payload: 'ledon' });
    } finally {
      await endAll(mqtt);
    }
  });

  it('n8n NETPIE Send: a topic with levels goes out percent-encoded (?topic=home%2Fled) and is published on @msg/home/led', async () => {
    const [sender, lamp] = await aGroup(stack, 2);
    const mqtt = await connectDevice(stack.mqttUrl, lamp);
    try {
      await mqtt.subscribeAsync('@msg/#');
      const arrived = nextMessage(mqtt);

      const res = await rawHttp(stack.baseUrl, n8nRequest(stack, sender, 'PUT', `/v2/device/message?topic=${axiosParam('home/led')}`, { contentType: 'text/plain', text: 'ledoff' }));

      expect(res.status, res.text).to.be.within(200, 299);
      expect(await arrived).to.deep.equal({ topic: '@msg/home/led', payload: 'ledoff' });
    } finally {
      await endAll(mqtt);
    }
  });

  // NetpieSend.node.ts, Content Type "JSON": JSON.parse(payload) sent with json: true, 'Content-Type: application/json'.
  it('n8n NETPIE Send: the JSON option sends application/json and the JSON text is published as it was sent', async () => {
    const [sender, lamp] = await aGroup(stack, 2);
    const mqtt = await connectDevice(stack.mqttUrl, lamp);
    try {
      await mqtt.subscribeAsync('@msg/#');
      const arrived = nextMessage(mqtt);
      const text = JSON.stringify(JSON.parse('{ "led": 1, "color": "red" }'));

      const res = await rawHttp(stack.baseUrl, n8nRequest(stack, sender, 'PUT', `/v2/device/message?topic=${axiosParam('led')}`, { contentType: 'application/json', text }));

      expect(res.status, res.text).to.be.within(200, 299);
      expect(await arrived).to.deep.equal({ topic: '@msg/led', payload: '{"led":1,"color":"red"}' });
    } finally {
      await endAll(mqtt);
    }
  });

  // A user who types the topic as NETPIE shows it ('@msg/led') into the Topic field: ?topic=%40msg%2Fled (issue 18,
  // item 5: the prefix is taken off once).
  it('n8n NETPIE Send: a Topic typed as @msg/led (?topic=%40msg%2Fled) is published on @msg/led, not @msg/@msg/led', async () => {
    const [sender, lamp] = await aGroup(stack, 2);
    const mqtt = await connectDevice(stack.mqttUrl, lamp);
    try {
      const seen = collect(mqtt);
      await mqtt.subscribeAsync('@msg/#');

      const res = await rawHttp(stack.baseUrl, n8nRequest(stack, sender, 'PUT', `/v2/device/message?topic=${axiosParam('@msg/led')}`, { contentType: 'text/plain', text: 'ledon' }));
      await sleep(150);

      expect(res.status, res.text).to.be.within(200, 299);
      expect(seen).to.deep.equal([{ topic: '@msg/led', payload: 'ledon' }]);
    } finally {
      await endAll(mqtt);
    }
  });
});
