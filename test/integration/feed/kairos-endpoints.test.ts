import { expect } from 'chai';
import { ReadinessCheck } from '../../../src/health/port';
import { aDevice, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

const API = '/v2/feed/api/v1';

describe('KairosDB endpoints beside the query: GET query, health, features', () => {
  let stack: Stack;
  let device: TestDevice;
  let failing = false;
  /** A backend the tests can take down: /health/* must see it. */
  const flaky: ReadinessCheck = {
    name: 'flaky',
    check: async () => {
      if (failing) throw new Error('down for the test');
    },
  };
  const base = Date.now() - 10 * 60_000;

  before(async () => {
    stack = await startStack({ readinessChecks: [flaky] });
    device = await aDevice(stack);
    const res = await stack.http('PUT', '/v2/device/shadow/batch', {
      headers: { authorization: device.auth },
      body: { batch: [0, 1, 2].map((i) => ({ ts: base + i * 60_000, data: { temp: 20 + i } })) },
    });
    expect(res.status, res.text).to.equal(200);
  });
  after(() => stack.stop());

  const get = (path: string, auth = device.auth) => stack.http('GET', path, { headers: { authorization: auth } });

  describe('GET /datapoints/query?query=', () => {
    it('answers KairosDB\'s GET form with what POST answers', async () => {
      const body = { start_absolute: base, metrics: [{ name: device.deviceid, aggregators: [{ name: 'sum', sampling: { value: 1, unit: 'hours' } }] }] };
      const viaGet = await get(`${API}/datapoints/query?query=${encodeURIComponent(JSON.stringify(body))}`);
      const viaPost = await stack.http('POST', `${API}/datapoints/query`, { headers: { authorization: device.auth }, body });

      expect(viaGet.status, viaGet.text).to.equal(200);
      expect(viaGet.body).to.deep.equal(viaPost.body);
      expect(viaGet.body.queries[0].results[0].values[0][1]).to.equal(63);
    });

    it('reads the parameter leniently, # comments included, also under /feed', async () => {
      const text = `{start_absolute: ${base}, # the batch\n metrics: [{name: '${device.deviceid}'}]}`;
      const res = await get(`/feed/api/v1/datapoints/query?query=${encodeURIComponent(text)}`);

      expect(res.status, res.text).to.equal(200);
      expect(res.body.queries[0].sample_size).to.equal(3);
    });

    it('refuses a missing or empty query parameter with KairosDB\'s message', async () => {
      for (const path of [`${API}/datapoints/query`, `${API}/datapoints/query?query=`]) {
        const res = await get(path);
        expect(res.status, path).to.equal(400);
        expect(res.body.errors).to.deep.equal(['query json must not be null or empty']);
      }
    });

    it('validates and scopes like POST: 400 with KairosDB\'s messages, 403 for a device of another group, 401 without credentials', async () => {
      const stranger = await aDevice(stack);
      const query = (body: object) => `${API}/datapoints/query?query=${encodeURIComponent(JSON.stringify(body))}`;

      const invalid = await get(query({ metrics: [{ name: device.deviceid }] }));
      const forbidden = await get(query({ start_absolute: base, metrics: [{ name: device.deviceid }] }), stranger.auth);
      const anonymous = await stack.http('GET', query({ start_absolute: base, metrics: [{ name: device.deviceid }] }));

      expect(invalid.status).to.equal(400);
      expect(invalid.body.errors).to.deep.equal(['query.metric[0].start_time relative or absolute time must be set']);
      expect(forbidden.status).to.equal(403);
      expect(forbidden.body.code).to.equal('METRIC_FORBIDDEN');
      expect(anonymous.status).to.equal(401);
    });
  });

  describe('GET /health/check and GET /health/status', () => {
    afterEach(() => {
      failing = false;
    });

    it('answers 204 and a list of OK checks while every backend answers', async () => {
      const check = await get(`${API}/health/check`);
      const status = await get(`${API}/health/status`);

      expect(check.status).to.equal(204);
      expect(check.text).to.equal('');
      expect(status.status).to.equal(200);
      expect(status.body).to.include.members(['sqlite: OK', 'timeseries: OK', 'mqtt: OK', 'flaky: OK']);
    });

    it('answers 500 and FAIL for a backend that does not answer', async () => {
      failing = true;
      const check = await get(`${API}/health/check`);
      const status = await get(`/feed/api/v1/health/status`);

      expect(check.status).to.equal(500);
      expect(check.body.code).to.equal('HEALTH_CHECK_FAILED');
      expect(check.body.errors).to.deep.equal([check.body.message]);
      expect(check.body.message).to.contain('flaky').and.not.contain('down for the test');
      expect(status.status).to.equal(200);
      expect(status.body).to.include.members(['flaky: FAIL', 'sqlite: OK']);
    });

    it('wants the credentials of a query, so a connection test checks them', async () => {
      expect((await stack.http('GET', `${API}/health/check`)).status).to.equal(401);
      expect((await get(`${API}/health/status`, 'Bearer not-a-token')).status).to.equal(401);
    });
  });

  describe('GET /features', () => {
    it('lists the groupers and aggregators in KairosDB\'s shape', async () => {
      const res = await get(`${API}/features`);

      expect(res.status).to.equal(200);
      expect(res.body.map((f: { name: string }) => f.name)).to.deep.equal(['group_by', 'aggregators']);
      const [groupBy, aggregators] = res.body;
      expect(groupBy.label).to.equal('Group By');
      expect(groupBy.properties.map((p: { name: string }) => p.name)).to.deep.equal(['bin', 'tag', 'time', 'value']);
      const names = aggregators.properties.map((p: { name: string }) => p.name);
      expect(names).to.include.members(['avg', 'sum', 'percentile', 'save_as', 'filter', 'histogram', 'js_function', 'js_filter', 'js_range']);
      const avg = aggregators.properties.find((p: { name: string }) => p.name === 'avg');
      expect(avg).to.include.keys('name', 'label', 'description', 'properties');
      const sampling = avg.properties.find((p: { name: string }) => p.name === 'sampling');
      expect(sampling.type).to.equal('Object');
      expect(sampling.properties.map((p: { name: string }) => p.name)).to.deep.equal(['value', 'unit']);
      expect(sampling.properties[1].options).to.deep.equal(['MILLISECONDS', 'SECONDS', 'MINUTES', 'HOURS', 'DAYS', 'WEEKS', 'MONTHS', 'YEARS']);
    });

    it('answers one feature\'s list at /features/{feature}, and 404 for an unknown one', async () => {
      const one = await get(`${API}/features/aggregators`);
      const unknown = await get(`${API}/features/bogus`);
      const all = await get(`${API}/features`);

      expect(one.status).to.equal(200);
      expect(one.body).to.deep.equal(all.body[1].properties);
      expect(unknown.status).to.equal(404);
      expect(unknown.body.code).to.equal('FEATURE_NOT_FOUND');
      expect(unknown.body.errors).to.deep.equal(["Unknown feature 'bogus'"]);
    });
  });
});
