import { expect } from 'chai';
import { MqttClient } from 'mqtt';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { collect, connectRaw, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { rawHttp, RawHttpRequest, within } from '../../helpers/netpie-clients';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/**
 * The NETPIE vendor's own Node-RED nodes: chavee/node-red-contrib-netpie (npm node-red-contrib-netpie 1.0.2, HEAD
 * b837359), replayed as they talk to the service.
 * - `device.js`: mqtt.js 3.0.0 with its defaults (MQTT 3.1.1, keepalive 60, clean session), ClientID = deviceid,
 *   username = token, password = secret or ''. Subscribes `@shadow/data/updated`, `@private/#` and the topics typed in
 *   the node; publishes `@shadow/data/get` (empty) 500 ms after connecting, `@shadow/data/update`, `@push` and `@msg/...`
 *   with objects as JSON text; parses every payload with jsonic.
 * - `message.js`, `shadow.js`, `status.js` (REST fallback when no Flow Channel is set): axios 0.21.4 against
 *   `https://api.netpie.io/device/...` (no `/v2`), `Authorization: Device <id>:<token>`; a string payload goes out as
 *   the raw text under axios' default `Content-Type: application/x-www-form-urlencoded`, an object as JSON. The promise
 *   has no catch: a non-2xx answer is an unhandled rejection, which ends the Node-RED process.
 * - `feed.js`: axios POST of a KairosDB query to `https://ds.netpie.io/feed/api/v1/datapoints/query`; reads
 *   `queries[0].results[]`, each `tags.attr[0]` and `values`.
 */

const AXIOS_ACCEPT = 'application/json, text/plain, */*';
/** axios 0.21's default for PUT/POST bodies it does not serialise itself (strings, Buffers): lib/defaults.js. */
const AXIOS_FORM = 'application/x-www-form-urlencoded';
/** What axios 0.21 sets when it serialises an object itself. */
const AXIOS_JSON = 'application/json;charset=utf-8';

/** A request as axios 0.21.4's node adapter writes it: its headers in that order, then Host and Connection from node. */
function axiosRequest(stack: Stack, device: TestDevice, method: string, target: string, body?: { contentType: string; bytes: Buffer }): RawHttpRequest {
  const { host } = new URL(stack.baseUrl);
  const headers: [string, string][] = [['Accept', AXIOS_ACCEPT]];
  if (body) headers.push(['Content-Type', body.contentType]);
  headers.push(['Authorization', `Device ${device.deviceid}:${device.token}`], ['User-Agent', 'axios/0.21.4']);
  if (body) headers.push(['Content-Length', String(body.bytes.length)]);
  headers.push(['Host', host], ['Connection', 'close']);
  return { method, target, headers, body: body?.bytes };
}

const asString = (text: string) => ({ contentType: AXIOS_FORM, bytes: Buffer.from(text) });
const asObject = (value: object) => ({ contentType: AXIOS_JSON, bytes: Buffer.from(JSON.stringify(value)) });

/** The device node's MQTT client: device.js passes only these options, the rest are mqtt.js defaults. */
function deviceNode(stack: Stack, device: TestDevice): Promise<MqttClient> {
  return connectRaw(stack.mqttUrl, {
    clientId: device.deviceid,
    username: device.token,
    password: device.secret || '',
    protocolVersion: 4,
    keepalive: 60,
    clean: true,
  });
}

describe('clients: node-red-contrib-netpie (the NETPIE vendor\'s Node-RED nodes)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  describe('device node over MQTT (device.js)', () => {
    // chavee/node-red-contrib-netpie device.js: on 'connect' subscribes '@shadow/data/updated' (subshadow),
    // '@private/#' (subprivate) and each topic of the node's list.
    it('Node-RED device node: connects with mqtt.js defaults and its subscriptions are all granted', async () => {
      const device = await aDevice(stack);
      const client = await deviceNode(stack, device);
      try {
        const granted = await client.subscribeAsync(['@shadow/data/updated', '@private/#', '@msg/home/#']);

        expect(granted.map((g) => g.qos)).to.deep.equal([0, 0, 0]);
        const status = await asDevice(stack, device)('GET', '/device/status');
        expect(status.body.status).to.equal(1);
      } finally {
        await endAll(client);
      }
    });

    // device.js 'initshadow': publishes '@shadow/data/get' with no payload 500 ms after connecting; the reply is parsed
    // with jsonic and sent on as msg.payload.
    it('Node-RED device node: an empty @shadow/data/get is answered on @private/shadow/data/get/response with deviceid and data', async () => {
      const device = await aDevice(stack);
      await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { lamp: 'on', level: 3 } } });
      const client = await deviceNode(stack, device);
      try {
        await client.subscribeAsync(['@shadow/data/updated', '@private/#']);
        const reply = nextMessage(client, (t) => t === '@private/shadow/data/get/response');

        await client.publishAsync('@shadow/data/get', '');

        const body = JSON.parse((await reply).payload);
        expect(body.deviceid).to.equal(device.deviceid);
        expect(body.data).to.deep.equal({ lamp: 'on', level: 3 });
      } finally {
        await endAll(client);
      }
    });

    // device.js input '@shadow/data/update': an object payload is published as JSON.stringify(msg.payload); shadow.js
    // merges the '@shadow/data/updated' payload's members into its copy.
    it('Node-RED device node: publishes {"data":…} on @shadow/data/update and reads data from @shadow/data/updated', async () => {
      const device = await aDevice(stack);
      const client = await deviceNode(stack, device);
      try {
        await client.subscribeAsync(['@shadow/data/updated', '@private/#']);
        const updated = nextMessage(client, (t) => t === '@shadow/data/updated');

        await client.publishAsync('@shadow/data/update', JSON.stringify({ data: { room: { temp: 24.5 } } }));

        const body = JSON.parse((await updated).payload);
        expect(body.deviceid).to.equal(device.deviceid);
        expect(body.data).to.deep.equal({ room: { temp: 24.5 } });
      } finally {
        await endAll(client);
      }
    });

    // device.js input '@push' and command.js 'push': publishes {title, subtitle, body} as JSON on '@push'.
    it('Node-RED device node: publishes {"title","subtitle","body"} on @push and stays connected', async () => {
      const device = await aDevice(stack);
      const client = await deviceNode(stack, device);
      try {
        await client.subscribeAsync(['@private/#']);
        let closed = false;
        client.on('close', () => (closed = true));

        await within(client.publishAsync('@push', JSON.stringify({ title: 'Livingroom', subtitle: 'Abnormal condition', body: 'Temperature 45' })), 2000, 'publish @push');
        await sleep(200);

        expect(closed, 'the connection was closed after @push').to.equal(false);
        const reply = nextMessage(client, (t) => t === '@private/shadow/data/get/response');
        await within(client.publishAsync('@shadow/data/get', ''), 2000, 'publish @shadow/data/get');
        expect(JSON.parse((await reply).payload).deviceid).to.equal(device.deviceid);
      } finally {
        await endAll(client);
      }
    });

    // device.js input '@msg/...': a string payload is published as it is; the receiving node's output is the text.
    it('Node-RED device node: a @msg publish reaches a groupmate\'s device node byte for byte', async () => {
      const [sender, receiver] = await aGroup(stack, 2);
      const [a, b] = [await deviceNode(stack, sender), await deviceNode(stack, receiver)];
      try {
        await b.subscribeAsync('@msg/home/#');
        const arrived = nextMessage(b);

        await a.publishAsync('@msg/home/lamp', 'ON');

        expect(await arrived).to.deep.equal({ topic: '@msg/home/lamp', payload: 'ON' });
      } finally {
        await endAll(a, b);
      }
    });

    // shadow.js: "a dashboard writes the shadow, the device reacts": the device node hears '@shadow/data/updated' for
    // writes it did not make over its own MQTT connection (issue 18, item 2).
    it('Node-RED device node: hears @shadow/data/updated when the shadow node writes over REST (PUT /device/shadow/data)', async () => {
      const device = await aDevice(stack);
      const client = await deviceNode(stack, device);
      try {
        await client.subscribeAsync(['@shadow/data/updated']);
        const updated = nextMessage(client, (t) => t === '@shadow/data/updated');

        const res = await rawHttp(stack.baseUrl, axiosRequest(stack, device, 'PUT', '/device/shadow/data', asObject({ data: { fan: 1 } })));

        expect(res.status, res.text).to.equal(200);
        const body = JSON.parse((await updated).payload);
        expect(body.deviceid).to.equal(device.deviceid);
        expect(body.data).to.deep.equal({ fan: 1 });
      } finally {
        await endAll(client);
      }
    });

    it('Node-RED device node: hears @shadow/data/updated when a groupmate writes its shadow with ?alias=', async () => {
      const [device, dashboard] = await aGroup(stack, 2);
      const client = await deviceNode(stack, device);
      try {
        await client.subscribeAsync(['@shadow/data/updated']);
        const updated = nextMessage(client, (t) => t === '@shadow/data/updated');

        const res = await asDevice(stack, dashboard)('PUT', `/v2/device/shadow/data?alias=${device.alias}`, { body: { data: { fan: 2 } } });

        expect(res.status, res.text).to.equal(200);
        expect(JSON.parse((await updated).payload).data).to.deep.equal({ fan: 2 });
      } finally {
        await endAll(client);
      }
    });
  });

  describe('message node, REST fallback (message.js)', () => {
    // message.js: topic '@msg/home/lamp' -> part 'home/lamp' -> PUT {apihost}/device/message?topic=home/lamp, the '/'
    // left as it is; data = msg.payload, a string -> axios' default form content type, the body the raw text.
    it('Node-RED message node: PUT /device/message?topic= with a string under axios\' form content type is published as the raw text', async () => {
      const [sender, receiver] = await aGroup(stack, 2);
      const mqtt = await deviceNode(stack, receiver);
      try {
        await mqtt.subscribeAsync('@msg/#');
        const arrived = nextMessage(mqtt);

        const res = await rawHttp(stack.baseUrl, axiosRequest(stack, sender, 'PUT', '/device/message?topic=home/lamp', asString('state=ON&level=3')));

        expect(res.status, res.text).to.equal(200);
        expect(res.headers['content-type']).to.match(/^application\/json/);
        expect(await arrived).to.deep.equal({ topic: '@msg/home/lamp', payload: 'state=ON&level=3' });
      } finally {
        await endAll(mqtt);
      }
    });

    // message.js: a Buffer payload (a binary node upstream) is sent as it is, with the same default content type.
    it('Node-RED message node: a Buffer payload under the form content type arrives as the same bytes', async () => {
      const [sender, receiver] = await aGroup(stack, 2);
      const mqtt = await deviceNode(stack, receiver);
      try {
        await mqtt.subscribeAsync('@msg/#');
        const arrived = new Promise<Buffer>((resolve) => mqtt.once('message', (_t, payload) => resolve(payload)));
        const bytes = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x25, 0x3d]);

        const res = await rawHttp(stack.baseUrl, axiosRequest(stack, sender, 'PUT', '/device/message?topic=bin', { contentType: AXIOS_FORM, bytes }));

        expect(res.status, res.text).to.equal(200);
        expect((await arrived).equals(bytes)).to.equal(true);
      } finally {
        await endAll(mqtt);
      }
    });

    // message.js: an object payload -> axios serialises it, 'application/json;charset=utf-8'.
    it('Node-RED message node: an object payload sent as axios\' JSON arrives as that JSON text', async () => {
      const [sender, receiver] = await aGroup(stack, 2);
      const mqtt = await deviceNode(stack, receiver);
      try {
        await mqtt.subscribeAsync('@msg/#');
        const arrived = nextMessage(mqtt);

        const res = await rawHttp(stack.baseUrl, axiosRequest(stack, sender, 'PUT', '/device/message?topic=home/temp', asObject({ temp: 21.5 })));

        expect(res.status, res.text).to.equal(200);
        expect(await arrived).to.deep.equal({ topic: '@msg/home/temp', payload: '{"temp":21.5}' });
      } finally {
        await endAll(mqtt);
      }
    });

    // message.js: topic '@private/alerts/door' -> PUT {apihost}/device/private?topic=alerts/door, same body rules.
    it('Node-RED message node: PUT /device/private?topic= with a string under the form content type reaches the device on @private/', async () => {
      const device = await aDevice(stack);
      const mqtt = await deviceNode(stack, device);
      try {
        await mqtt.subscribeAsync('@private/#');
        const arrived = nextMessage(mqtt, (t) => t.startsWith('@private/alerts'));

        const res = await rawHttp(stack.baseUrl, axiosRequest(stack, device, 'PUT', '/device/private?topic=alerts/door', asString('open')));

        expect(res.status, res.text).to.equal(200);
        expect(await arrived).to.deep.equal({ topic: '@private/alerts/door', payload: 'open' });
      } finally {
        await endAll(mqtt);
      }
    });
  });

  describe('shadow, status and feed nodes, REST (shadow.js, status.js, feed.js)', () => {
    // shadow.js REST fallback: PUT {apihost}/device/shadow/data with the object; GET reads deviceid, data, rev,
    // timestamp and modified from response.data.
    it('Node-RED shadow node: PUT then GET /device/shadow/data give deviceid, data, rev, timestamp and modified', async () => {
      const device = await aDevice(stack);

      const put = await rawHttp(stack.baseUrl, axiosRequest(stack, device, 'PUT', '/device/shadow/data', asObject({ data: { temp: 30.1, mode: 'eco' } })));
      const get = await rawHttp(stack.baseUrl, axiosRequest(stack, device, 'GET', '/device/shadow/data'));

      expect(put.status, put.text).to.equal(200);
      expect(get.status, get.text).to.equal(200);
      expect(get.json.deviceid).to.equal(device.deviceid);
      expect(get.json.data).to.deep.equal({ temp: 30.1, mode: 'eco' });
      expect(get.json.rev).to.equal(1);
      expect(get.json.timestamp).to.be.a('number').above(0);
      expect(get.json.modified).to.be.a('number').above(0);
    });

    // shadow.js sends msg.payload as it is: a JSON string (what a function node or a template node often makes)
    // goes out under axios' form type; a refusal would be an unhandled rejection that ends Node-RED.
    it('Node-RED shadow node: a JSON string under axios\' form content type is read as the JSON it is', async () => {
      const device = await aDevice(stack);

      const put = await rawHttp(stack.baseUrl, axiosRequest(stack, device, 'PUT', '/device/shadow/data', asString('{"data":{"lamp":"on"}}')));

      expect(put.status, put.text).to.equal(200);
      expect(put.json.data).to.deep.equal({ lamp: 'on' });
    });

    // status.js REST fallback: GET {apihost}/device/status; reads deviceid, groupid, projectid, status, enabled.
    it('Node-RED status node: GET /device/status gives deviceid, groupid, projectid, status (1 while connected) and enabled', async () => {
      const device = await aDevice(stack);
      const mqtt = await deviceNode(stack, device);
      try {
        const res = await rawHttp(stack.baseUrl, axiosRequest(stack, device, 'GET', '/device/status'));

        expect(res.status, res.text).to.equal(200);
        expect(res.json).to.include({
          deviceid: device.deviceid,
          groupid: device.groupid,
          projectid: device.projectid,
          status: 1,
          enabled: true,
        });
      } finally {
        await endAll(mqtt);
      }
    });

    // feed.js: POST {dshost}/feed/api/v1/datapoints/query; the metric is the deviceid, group_by tag attr, avg with the
    // node's sampling (its value a string from the editor); convert_feed_data reads queries[0].results[], s.tags.attr[0]
    // as the series name and s.values as [ts, value] pairs.
    it('Node-RED feed node: POST /feed/api/v1/datapoints/query gives series named by tags.attr[0] with [ts, value] pairs', async () => {
      const device = await aDevice(stack);
      await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { temp: 20 } } });
      await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { temp: 22 } } });
      const query = {
        metrics: [
          {
            name: device.deviceid,
            group_by: [{ name: 'tag', tags: ['attr'] }],
            aggregators: [{ name: 'avg', sampling: { value: '1', unit: 'hours' } }],
          },
        ],
        start_relative: { value: 1, unit: 'days' },
        end_absolute: Date.now() + 1000,
      };

      const res = await rawHttp(stack.baseUrl, axiosRequest(stack, device, 'POST', '/feed/api/v1/datapoints/query', asObject(query)));

      expect(res.status, res.text).to.equal(200);
      const results = res.json.queries[0].results;
      const temp = results.find((s: any) => s.tags?.attr?.[0] === 'temp');
      expect(temp, res.text).to.not.equal(undefined);
      expect(temp.values).to.have.length(1);
      expect(temp.values[0][0]).to.be.a('number');
      expect(temp.values[0][1]).to.equal(21);
    });
  });

  // What the message node does with the answer does not matter to it, but an answer outside 2xx rejects a promise
  // nobody catches: the one case the vendor's code cannot survive. The REST fallback's other content types.
  describe('no refusal that would end the Node-RED process', () => {
    const bodies: [string, string | undefined][] = [
      ['no content type', undefined],
      ['text/plain', 'text/plain'],
      ['application/octet-stream', 'application/octet-stream'],
      ['application/x-www-form-urlencoded;charset=utf-8', 'application/x-www-form-urlencoded;charset=utf-8'],
    ];
    for (const [what, contentType] of bodies) {
      it(`Node-RED message node: PUT /device/message?topic= with ${what} is answered 2xx and published`, async () => {
        const [sender, receiver] = await aGroup(stack, 2);
        const mqtt = await deviceNode(stack, receiver);
        try {
          const seen = collect(mqtt);
          await mqtt.subscribeAsync('@msg/#');
          const { host } = new URL(stack.baseUrl);
          const headers: [string, string][] = [['Accept', AXIOS_ACCEPT]];
          if (contentType) headers.push(['Content-Type', contentType]);
          headers.push(['Authorization', sender.auth], ['User-Agent', 'axios/0.21.4'], ['Content-Length', '2'], ['Host', host], ['Connection', 'close']);

          const res = await rawHttp(stack.baseUrl, { method: 'PUT', target: '/device/message?topic=home/lamp', headers, body: 'ON' });
          await sleep(100);

          expect(res.status, res.text).to.be.within(200, 299);
          expect(seen).to.deep.equal([{ topic: '@msg/home/lamp', payload: 'ON' }]);
        } finally {
          await endAll(mqtt);
        }
      });
    }
  });
});
