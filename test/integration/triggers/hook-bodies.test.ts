import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aDevice, TestDevice } from '../../helpers/devices';
import { connectDevice, nextMessage } from '../../helpers/mqtt';
import { asDevice, expectError } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';
import { startWebhookServer, WebhookServer } from '../../helpers/webhook-server';

/** This suite's webhooks go to a test server on 127.0.0.1, which the operator allow-lists. */
const ALLOW_LOOPBACK = { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_TIMEOUT_MS: '2000' };

/** The probe of issue 20: a shadow value that would close the string and add members if filled as raw text. */
const INJECTION = 'x","injected":true,"y":"z';
const TRICKY = 'say "hi" \\ C:\\dir\\ {{not a hole}}\nline two\r\n\ttabbed é ñ 温度 ✓ 😀 \u2028 </script>';

describe('hook bodies filled safely (issue 20 §4)', () => {
  let stack: Stack;
  let server: WebhookServer;
  before(async () => {
    stack = await startStack({ env: ALLOW_LOOPBACK });
  });
  after(() => stack.stop());
  beforeEach(async () => {
    server = await startWebhookServer();
  });
  afterEach(() => server.close());

  const newProject = () => `p-${randomUUID().slice(0, 8)}`;

  async function deviceWithHook(config: object, type = 'WEBHOOK'): Promise<TestDevice> {
    const device = await aDevice(stack, { projectid: newProject() });
    const hook = await stack.admin('PUT', `/v2/admin/projects/${device.projectid}/hooks/h`, { body: { type, config } });
    expect(hook.status, hook.text).to.equal(200);
    const triggers = await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/triggers`, { body: { trigger: [{ event: 'SHADOW.UPDATED', action: 'h' }] } });
    expect(triggers.status, triggers.text).to.equal(200);
    return device;
  }

  const webhook = (body: string, header?: Record<string, string>) => ({ method: 'POST', uri: `${server.url}/in`, body, ...(header ? { header } : {}) });

  const write = (device: TestDevice, data: object) => asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data } });

  describe('WEBHOOK', () => {
    it('fills a hole inside a JSON string as string content: a shadow value cannot add members', async () => {
      const device = await deviceWithHook(webhook('{"text":"{{$NEW.s}}"}'));

      await write(device, { s: INJECTION });

      const [request] = await server.waitFor(1);
      expect(request.headers['content-type']).to.equal('application/json');
      expect(JSON.parse(request.body)).to.deep.equal({ text: INJECTION });
    });

    it('fills a hole standing as a value with one JSON value of its type', async () => {
      const device = await deviceWithHook(webhook(
        '{"temp":{{$NEW.temp}},"on":{{$NEW.on}},"name":{{$NEW.name}},"place":{{$NEW.place}},"list":{{$NEW.list}},"absent":{{$NEW.nothing}}}',
      ));

      await write(device, { temp: 31.5, on: false, name: INJECTION, place: { room: 'bed "1"', floor: 2 }, list: [1, 'two', { three: 3 }] });

      const [request] = await server.waitFor(1);
      expect(JSON.parse(request.body)).to.deep.equal({
        temp: 31.5,
        on: false,
        name: INJECTION,
        place: { room: 'bed "1"', floor: 2 },
        list: [1, 'two', { three: 3 }],
        absent: null,
      });
    });

    it('delivers quotes, backslashes, line breaks and unicode intact, in strings and as values', async () => {
      const device = await deviceWithHook(webhook('{"quoted":"<{{$NEW.t}}>","value":{{$NEW.t}},"object":"{{$NEW.o}}"}'));

      await write(device, { t: TRICKY, o: { t: TRICKY } });

      const [request] = await server.waitFor(1);
      expect(JSON.parse(request.body)).to.deep.equal({ quoted: `<${TRICKY}>`, value: TRICKY, object: JSON.stringify({ t: TRICKY }) });
    });

    it('keeps the documented example: a text and a number', async () => {
      const device = await aDevice(stack, { projectid: newProject() });
      await stack.admin('PUT', `/v2/admin/projects/${device.projectid}/hooks/alert`, {
        body: { type: 'WEBHOOK', config: { ...webhook('{"text":"{{context.msg}}","temp":{{$NEW.temp}}}'), header: { Authorization: 'Bearer {{context.token}}' } } },
      });
      await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/triggers`, {
        body: { trigger: [{ event: 'SHADOW.UPDATED', action: 'alert', context: { msg: 'bedroom at {{ $NEW.temp }} C', token: 's3cret' } }] },
      });

      await write(device, { temp: 31 });

      const [request] = await server.waitFor(1);
      expect(request.headers.authorization).to.equal('Bearer s3cret');
      expect(JSON.parse(request.body)).to.deep.equal({ text: 'bedroom at 31 C', temp: 31 });
    });

    it('percent-encodes the values of a form body, so a value cannot add a field', async () => {
      const device = await deviceWithHook(webhook('message={{$NEW.s}}&from={{$DEVICEID}}', { 'Content-Type': 'application/x-www-form-urlencoded' }));

      await write(device, { s: 'hot & humid=yes&admin=1' });

      const [request] = await server.waitFor(1);
      expect(request.headers['content-type']).to.equal('application/x-www-form-urlencoded');
      expect([...new URLSearchParams(request.body)]).to.deep.equal([['message', 'hot & humid=yes&admin=1'], ['from', device.deviceid]]);
    });

    it('sends a text body as written, each value as text', async () => {
      const device = await deviceWithHook(webhook('[ALERT] {{$NEW.t}}'));

      await write(device, { t: TRICKY });

      const [request] = await server.waitFor(1);
      expect(request.headers['content-type']).to.equal('text/plain; charset=utf-8');
      expect(request.body).to.equal(`[ALERT] ${TRICKY}`);
    });

    it('refuses, when saved, a JSON body that values could reshape', async () => {
      const cases: [object, RegExp][] = [
        [webhook('{"text":"a"{{$NEW.s}}}'), /config\.body: opens and closes like JSON, so expected JSON in which every \{\{ \}\} stands as a whole value.*Content-Type header such as text\/plain/],
        [webhook('{"v":{{$NEW.a}}{{$NEW.b}}}'), /config\.body: opens and closes like JSON/],
        [webhook('text={{$NEW.s}}', { 'Content-Type': 'application/json' }), /config\.body: the Content-Type is JSON, so expected JSON/],
        [webhook('{"a":1}', { 'Content-Type': 'application/{{context.kind}}' }), /config\.body: the Content-Type header decides how the body is filled/],
      ];
      for (const [config, message] of cases) {
        const res = await stack.admin('PUT', `/v2/admin/projects/${newProject()}/hooks/h`, { body: { type: 'WEBHOOK', config } });

        expectError(res, 400, 'INVALID_BODY');
        expect(res.body.message).to.match(message);
      }
    });
  });

  describe('MESSAGE', () => {
    it('fills a JSON payload as JSON: strings escaped, values typed, nothing added', async () => {
      const device = await deviceWithHook({ topic: '@private/alerts', payload: '{"text":"{{$NEW.s}}","tricky":"{{$NEW.t}}","temp":{{$NEW.temp}},"place":{{$NEW.place}}}' }, 'MESSAGE');
      const subscriber = await connectDevice(stack.mqttUrl, device);
      try {
        await subscriber.subscribeAsync('@private/alerts');
        const heard = nextMessage(subscriber, (topic) => topic === '@private/alerts', 5000);

        await write(device, { s: INJECTION, t: TRICKY, temp: 40, place: { room: 'bed "1"' } });

        expect(JSON.parse((await heard).payload)).to.deep.equal({ text: INJECTION, tricky: TRICKY, temp: 40, place: { room: 'bed "1"' } });
      } finally {
        await subscriber.endAsync(true);
      }
    });

    it('refuses, when saved, a JSON payload that values could reshape', async () => {
      const res = await stack.admin('PUT', `/v2/admin/projects/${newProject()}/hooks/m`, {
        body: { type: 'MESSAGE', config: { topic: '@msg/alerts', payload: '{"text":"{{$NEW.s}}" {{$NEW.more}}}' } },
      });

      expectError(res, 400, 'INVALID_BODY');
      expect(res.body.message).to.match(/config\.payload: opens and closes like JSON/);
    });
  });
});
