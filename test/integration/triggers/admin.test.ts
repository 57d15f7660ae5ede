import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aDevice, TestDevice } from '../../helpers/devices';
import { expectError } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

const HOOK = { type: 'WEBHOOK', config: { method: 'POST', uri: 'https://hooks.example.com/t/{{context.token}}', body: '{{msg}}' } };

describe('admin API: triggers, event hooks and the delivery log', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  async function deviceWithHook(): Promise<TestDevice> {
    const device = await aDevice(stack, { projectid: `p-${randomUUID().slice(0, 8)}` });
    const res = await stack.admin('PUT', `/v2/admin/projects/${device.projectid}/hooks/alert`, { body: HOOK });
    expect(res.status, res.text).to.equal(200);
    return device;
  }

  describe('event hooks', () => {
    it('creates, lists, reads, replaces and deletes hooks of a project', async () => {
      const projectid = `p-${randomUUID().slice(0, 8)}`;
      const base = `/v2/admin/projects/${projectid}/hooks`;

      const created = await stack.admin('PUT', `${base}/b`, { body: HOOK });
      await stack.admin('PUT', `${base}/a`, { body: { type: 'MESSAGE', config: { topic: '@msg/alerts' }, enabled: false } });
      const list = await stack.admin('GET', base);
      const one = await stack.admin('GET', `${base}/b`);
      const removed = await stack.admin('DELETE', `${base}/b`);

      expect(created.body).to.deep.equal({ name: 'b', ...HOOK });
      expect(list.body.hooks.map((h: { name: string }) => h.name)).to.deep.equal(['a', 'b']);
      expect(one.body).to.deep.equal({ name: 'b', ...HOOK });
      expect(removed.status).to.equal(204);
      expectError(await stack.admin('GET', `${base}/b`), 404, 'HOOK_NOT_FOUND');
      expectError(await stack.admin('DELETE', `${base}/b`), 404, 'HOOK_NOT_FOUND');
    });

    const bad: [string, unknown, string, RegExp][] = [
      ['no type', { config: {} }, 'INVALID_BODY', /type: required/],
      ['an unknown type', { type: 'LINENOTIFY', config: {} }, 'INVALID_BODY', /type/],
      ['a webhook without uri', { type: 'WEBHOOK', config: { method: 'GET' } }, 'INVALID_BODY', /config\.uri: required/],
      ['a method NETPIE does not have', { type: 'WEBHOOK', config: { method: 'TRACE', uri: 'https://x.example' } }, 'INVALID_BODY', /config\.method/],
      ['a uri that is not http', { type: 'WEBHOOK', config: { method: 'GET', uri: 'file:///etc/passwd' } }, 'INVALID_BODY', /http:\/\/ or https:\/\//],
      ['a host filled by a template', { type: 'WEBHOOK', config: { method: 'GET', uri: 'https://{{context.host}}/x' } }, 'INVALID_BODY', /host written out/],
      ['a broken template', { type: 'WEBHOOK', config: { method: 'GET', uri: 'https://x.example/{{ $NEW. }}' } }, 'INVALID_BODY', /field name/],
      ['an unknown variable', { type: 'WEBHOOK', config: { method: 'POST', uri: 'https://x.example', body: '{{ $SECRET }}' } }, 'INVALID_BODY', /unknown variable \$SECRET/],
      ['a reserved header', { type: 'WEBHOOK', config: { method: 'GET', uri: 'https://x.example', header: { Host: 'evil' } } }, 'INVALID_BODY', /"Host" is set by the service/],
      ['an unknown member', { type: 'WEBHOOK', config: { method: 'GET', uri: 'https://x.example', headers: {} } }, 'INVALID_BODY', /unknown member "headers"/],
      ['a message topic outside @msg and @private', { type: 'MESSAGE', config: { topic: '@shadow/data/update' } }, 'INVALID_BODY', /@msg/],
      ['a message topic with a wildcard', { type: 'MESSAGE', config: { topic: '@msg/a/#' } }, 'INVALID_BODY', /wildcards/],
      ['not JSON', '{"type":', 'INVALID_JSON', /not valid JSON/],
    ];
    for (const [what, body, code, message] of bad) {
      it(`refuses ${what}: 400 ${code}`, async () => {
        const res = await stack.admin('PUT', `/v2/admin/projects/p-${randomUUID().slice(0, 8)}/hooks/h`, { body });
        expectError(res, 400, code);
        expect(res.body.message).to.match(message);
      });
    }

    it('refuses a bad hook name or project id: 400 INVALID_QUERY', async () => {
      expectError(await stack.admin('PUT', '/v2/admin/projects/p/hooks/a%20b', { body: HOOK }), 400, 'INVALID_QUERY');
      expectError(await stack.admin('GET', '/v2/admin/projects/$p/hooks'), 400, 'INVALID_QUERY');
    });
  });

  describe('triggers', () => {
    it('starts empty, stores a list with generated ids, and deletes it', async () => {
      const device = await deviceWithHook();
      const path = `/v2/admin/devices/${device.deviceid}/triggers`;
      const body = {
        trigger: [
          { event: 'SHADOW.UPDATED', condition: '$NEW.temp > 30', action: 'alert', context: { token: 't', n: 3 } },
          { id: '1', event: 'DEVICE.STATUSCHANGED', action: ['alert'], msg: '{{$DEVICEID}} is {{$NEW.STATUSTEXT}}' },
        ],
      };

      const empty = await stack.admin('GET', path);
      const put = await stack.admin('PUT', path, { body });
      const got = await stack.admin('GET', path);
      const removed = await stack.admin('DELETE', path);

      expect(empty.body).to.deep.equal({ enabled: true, trigger: [] });
      expect(put.status, put.text).to.equal(200);
      expect(put.body.trigger.map((t: { id: string }) => t.id)).to.deep.equal(['2', '1']);
      expect(got.body).to.deep.equal(put.body);
      expect(removed.status).to.equal(204);
      expect((await stack.admin('GET', path)).body.trigger).to.deep.equal([]);
    });

    const bad: [string, unknown, RegExp][] = [
      ['no trigger list', {}, /trigger: required/],
      ['an unknown event', { trigger: [{ event: 'DEVICE.LOG', action: 'alert' }] }, /SHADOW\.UPDATED or DEVICE\.STATUSCHANGED/],
      ['no action', { trigger: [{ event: 'SHADOW.UPDATED' }] }, /action: required/],
      ['a hook the project does not have', { trigger: [{ event: 'SHADOW.UPDATED', action: 'nope' }] }, /trigger\.0\.action: project .* has no event hook named "nope"/],
      ['a condition with a syntax error', { trigger: [{ event: 'SHADOW.UPDATED', action: 'alert', condition: '$NEW.temp >' }] }, /condition: expected a value/],
      ['a condition reading $ (a schema variable)', { trigger: [{ event: 'SHADOW.UPDATED', action: 'alert', condition: '$.temp > 1' }] }, /unknown variable \$/],
      ['a context template that does not parse', { trigger: [{ event: 'SHADOW.UPDATED', action: 'alert', context: { a: '{{ 1 + }}' } }] }, /context\.a/],
      ['a context value that is an object', { trigger: [{ event: 'SHADOW.UPDATED', action: 'alert', context: { a: { b: 1 } } }] }, /context\.a/],
      ['an id used twice', { trigger: [{ id: 'x', event: 'SHADOW.UPDATED', action: 'alert' }, { id: 'x', event: 'SHADOW.UPDATED', action: 'alert' }] }, /"x" is used twice/],
      ['33 triggers', { trigger: Array.from({ length: 33 }, () => ({ event: 'SHADOW.UPDATED', action: 'alert' })) }, /at most 32 triggers/],
      ['an unknown member', { trigger: [{ event: 'SHADOW.UPDATED', action: 'alert', conditon: 'true' }] }, /unknown member "conditon"/],
    ];
    for (const [what, body, message] of bad) {
      it(`refuses ${what}: 400 INVALID_BODY, nothing stored`, async () => {
        const device = await deviceWithHook();
        const res = await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/triggers`, { body });
        expectError(res, 400, 'INVALID_BODY');
        expect(res.body.message).to.match(message);
        expect((await stack.admin('GET', `/v2/admin/devices/${device.deviceid}/triggers`)).body.trigger).to.deep.equal([]);
      });
    }

    it('answers 404 DEVICE_NOT_FOUND for an unknown device', async () => {
      expectError(await stack.admin('GET', `/v2/admin/devices/${randomUUID()}/triggers`), 404, 'DEVICE_NOT_FOUND');
      expectError(await stack.admin('PUT', `/v2/admin/devices/${randomUUID()}/triggers`, { body: { trigger: [] } }), 404, 'DEVICE_NOT_FOUND');
    });
  });

  describe('delivery log', () => {
    it('is empty for a new project and refuses a bad limit', async () => {
      const path = `/v2/admin/projects/p-${randomUUID().slice(0, 8)}/deliveries`;
      expect((await stack.admin('GET', path)).body).to.deep.equal({ deliveries: [] });
      expectError(await stack.admin('GET', `${path}?limit=0`), 400, 'INVALID_QUERY');
      expectError(await stack.admin('GET', `${path}?limit=abc`), 400, 'INVALID_QUERY');
      expectError(await stack.admin('GET', `${path}?since=1`), 400, 'INVALID_QUERY');
    });
  });
});
