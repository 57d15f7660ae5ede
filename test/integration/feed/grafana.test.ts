import { expect } from 'chai';
import { aGroup, TestDevice } from '../../helpers/devices';
import { HttpClient } from '../../helpers/http';
import { deleteMetrics, kairosDbUrlOrSkip, waitForStored } from '../../helpers/kairosdb';
import { startStack, Stack } from '../../helpers/stack';

/**
 * Grafana's KairosDB data source (grafana/kairosdb-datasource 3.x) against the service, request by request as the
 * plugin builds them, with the data source URL set to `{service}/v2/feed`. Shapes, as read from the plugin:
 * - connection test ("Save & Test"): GET /api/v1/health/status, success = HTTP 200;
 * - metric names: GET /api/v1/metricnames, no prefix;
 * - tag names and values: POST /api/v1/datapoints/query/tags, `{cache_time: 0, metrics: [{name, tags}], start_absolute: 0}`,
 *   no end, the tags picked so far as the filter;
 * - a panel: POST /api/v1/datapoints/query, `{cache_time: 0, start_absolute, end_absolute}` in whole seconds as ms, one
 *   metric per target with `tags` (non-empty lists only), `limit: 0`, `group_by` and `aggregators` whose parameter
 *   values are the strings typed in the editor: sampling `{value: "1", unit: "MINUTES"}` (upper-case units), the
 *   panel's interval when "auto" (`30s` -> `{value: "30", unit: "SECONDS"}`), alignment as `align_sampling` or
 *   `align_start_time`, trim `both`, percentile `"0.75"`, time groups with string counts.
 * Credentials as Grafana sends them: Basic auth (user and password of the data source) or a custom
 * `Authorization: Bearer` header; in browser access mode a CORS preflight comes first.
 */

const GRAFANA = 'http://grafana.local:3000';
const MINUTE = 60_000;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

interface Backend {
  name: string;
  env(ctx: Mocha.Context): Promise<Record<string, string> | undefined>;
  /** Waits until the backend serves what was written (KairosDB: about a second). */
  settle(device: TestDevice, points: number): Promise<void>;
  cleanup(device: TestDevice): Promise<void>;
}

let kairosUrl: string | undefined;
const BACKENDS: Backend[] = [
  { name: 'embedded engine', env: async () => ({}), settle: async () => undefined, cleanup: async () => undefined },
  {
    name: 'KairosDB',
    async env(ctx) {
      kairosUrl = await kairosDbUrlOrSkip(ctx);
      return { TIMESERIES: 'kairosdb', KAIROSDB_URL: kairosUrl };
    },
    settle: (device, points) => waitForStored(kairosUrl!, [device.deviceid], [points]),
    cleanup: (device) => deleteMetrics(kairosUrl!, [device.deviceid]),
  },
];

for (const backend of BACKENDS) {
  describe(`Grafana's KairosDB data source against the service (${backend.name})`, function () {
    this.timeout(60_000);
    let stack: Stack | undefined;
    let sensor: TestDevice;
    let lamp: TestDevice;
    let userToken: string;
    // Grafana's range: whole seconds.
    const to = Math.floor(Date.now() / 1000) * 1000;
    const from = to - 60 * MINUTE;

    before(async function () {
      const env = await backend.env(this);
      stack = await startStack({ env: { ...env, CORS_ORIGINS: GRAFANA } });
      [sensor, lamp] = await aGroup(stack, 2);
      userToken = (await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: sensor.projectid } })).body.token;
      // An hour of readings, one a minute: temp 20..29 over and over, humid 50, 51, ...
      const items = Array.from({ length: 60 }, (_, i) => ({ ts: from + i * MINUTE, data: { temp: 20 + (i % 10), humid: 50 + i } }));
      for (let i = 0; i < items.length; i += 30) {
        const res = await stack.http('PUT', '/v2/device/shadow/batch', { headers: { authorization: sensor.auth }, body: { batch: items.slice(i, i + 30) } });
        expect(res.status, res.text).to.equal(200);
      }
      await backend.settle(sensor, 120);
    });
    after(async () => {
      await stack?.stop();
      if (stack) await backend.cleanup(sensor);
    });

    /** Credentials as Grafana sends them, by what the data source is configured with. */
    const CREDENTIALS: [string, () => string][] = [
      ['Basic auth with the device\'s ClientID and token', () => basic(sensor.deviceid, sensor.token)],
      ['Basic auth with any user and a user token as the password', () => basic('grafana', userToken)],
      ['a custom Authorization: Bearer header with a user token', () => `Bearer ${userToken}`],
    ];

    /** The plugin's requests, relative to its `{url}/api/v1`. */
    const plugin = (authorization: string) => {
      const http: HttpClient = stack!.http;
      const api = '/v2/feed/api/v1';
      return {
        testConnection: () => http('GET', `${api}/health/status`, { headers: { authorization } }),
        metricNames: () => http('GET', `${api}/metricnames`, { headers: { authorization } }),
        tags: (name: string, filters: Record<string, string[]> = {}) =>
          http('POST', `${api}/datapoints/query/tags`, { headers: { authorization }, body: { cache_time: 0, metrics: [{ name, tags: filters }], start_absolute: 0 } }),
        panel: (metrics: object[]) =>
          http('POST', `${api}/datapoints/query`, { headers: { authorization }, body: { cache_time: 0, start_absolute: from, end_absolute: to, metrics } }),
      };
    };
    const target = (aggregators: object[], groupBy: object[] = [], attr = 'temp') =>
      ({ name: sensor.deviceid, tags: { attr: [attr] }, limit: 0, aggregators, group_by: groupBy });

    for (const [how, authorization] of CREDENTIALS) {
      it(`runs the editor's sequence: connection test, metric names, tags, a panel; ${how}`, async () => {
        const grafana = plugin(authorization());

        const test = await grafana.testConnection();
        expect(test.status, test.text).to.equal(200);

        const names = await grafana.metricNames();
        expect(names.status).to.equal(200);
        expect(names.body.results).to.include(sensor.deviceid).and.not.include(lamp.deviceid);

        const tags = await grafana.tags(sensor.deviceid);
        expect(tags.status, tags.text).to.equal(200);
        expect(tags.body.queries[0].results[0].tags.attr).to.have.members(['humid', 'temp']);
        const values = await grafana.tags(sensor.deviceid, { attr: ['temp'] });
        expect(values.body.queries[0].results[0].tags.attr).to.deep.equal(['temp']);

        const panel = await grafana.panel([target([{ name: 'avg', align_sampling: true, sampling: { value: '10', unit: 'MINUTES' } }])]);
        expect(panel.status, panel.text).to.equal(200);
        expect(panel.body.queries[0].sample_size).to.equal(60);
        expect(panel.body.queries[0].results[0].values).to.have.length.within(6, 7);
      });
    }

    it('answers every aggregator shape the editor builds', async () => {
      const grafana = plugin(basic(sensor.deviceid, sensor.token));
      const shapes: object[][] = [
        [{ name: 'sum', sampling: { value: '1', unit: 'HOURS' } }],
        [{ name: 'count', align_start_time: true, sampling: { value: '30', unit: 'SECONDS' } }],
        [{ name: 'max', align_sampling: true, sampling: { value: '500', unit: 'MILLISECONDS' } }],
        [{ name: 'dev', sampling: { value: '5', unit: 'MINUTES' } }],
        [{ name: 'percentile', align_sampling: true, sampling: { value: '15', unit: 'MINUTES' }, percentile: '0.75' }],
        [{ name: 'first', sampling: { value: '1', unit: 'DAYS' } }, { name: 'last', sampling: { value: '1', unit: 'WEEKS' } }],
        [{ name: 'least_squares', sampling: { value: '1', unit: 'HOURS' } }, { name: 'gaps', sampling: { value: '1', unit: 'HOURS' } }],
        [{ name: 'min', sampling: { value: '10', unit: 'MINUTES' } }, { name: 'sma', size: '3' }],
        [{ name: 'max', sampling: { value: '1', unit: 'MONTHS' } }],
        [{ name: 'diff' }, { name: 'div', divisor: '2' }, { name: 'scale', factor: '10' }],
        [{ name: 'rate', unit: 'MINUTES' }, { name: 'trim', trim: 'both' }],
        [{ name: 'sampler', unit: 'SECONDS' }],
      ];
      for (const aggregators of shapes) {
        const res = await grafana.panel([target(aggregators)]);
        expect(res.status, `${JSON.stringify(aggregators)}: ${res.text}`).to.equal(200);
        expect(res.body.queries[0].results[0].values, JSON.stringify(aggregators)).to.not.be.empty;
      }
    });

    it('answers its group_by shapes and several targets in one request', async () => {
      const grafana = plugin(`Bearer ${userToken}`);
      const res = await grafana.panel([
        target([{ name: 'avg', sampling: { value: '1', unit: 'HOURS' } }], [{ name: 'tag', tags: ['attr'] }]),
        target([{ name: 'count', sampling: { value: '1', unit: 'HOURS' } }], [{ name: 'time', group_count: '6', range_size: { unit: 'MINUTES', value: '10' } }]),
        target([], [{ name: 'value', range_size: '10' }], 'humid'),
      ]);

      expect(res.status, res.text).to.equal(200);
      const [byTag, byTime, byValue] = res.body.queries;
      expect(byTag.results[0].group_by[0]).to.deep.include({ name: 'tag', group: { attr: 'temp' } });
      expect(byTime.results).to.have.length(6);
      expect(byValue.results.map((r: { values: unknown[] }) => r.values.length)).to.deep.equal([10, 10, 10, 10, 10, 10]);
    });

    it('passes a browser access mode preflight from Grafana\'s origin', async () => {
      const res = await stack!.http('OPTIONS', '/v2/feed/api/v1/datapoints/query', {
        headers: { origin: GRAFANA, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });

      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal(GRAFANA);
      expect(res.headers.get('access-control-allow-credentials')).to.equal('true');
    });

    it('fails the connection test with wrong credentials', async () => {
      expect((await plugin(basic(sensor.deviceid, 'wrong')).testConnection()).status).to.equal(401);
    });
  });
}
