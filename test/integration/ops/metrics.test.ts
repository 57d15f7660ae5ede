import { expect } from 'chai';
import { aDevice, aGroup } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { parsePrometheus, Sample, scrape, valueOf } from '../../helpers/prometheus';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

const MESSAGE_ROUTE = '/v2/device/message/*topic';

describe('GET /metrics', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  /** How much `name{labels}` moved while `act` ran. */
  async function change(name: string, labels: Record<string, string>, act: () => Promise<unknown>): Promise<number> {
    const before = valueOf(await scrape(stack), name, labels);
    await act();
    return valueOf(await scrape(stack), name, labels) - before;
  }

  it('answers in the Prometheus text format, without credentials when METRICS_TOKEN is unset', async () => {
    const res = await stack.http('GET', '/metrics');

    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    expect(() => parsePrometheus(res.text)).not.to.throw();
    expect(res.text).to.contain('# TYPE openpie_http_requests_total counter');
  });

  it('counts HTTP requests by route template and status, never by raw URL', async () => {
    const device = await aDevice(stack);
    const call = asDevice(stack, device);

    const moved = await change('openpie_http_requests_total', { method: 'PUT', route: MESSAGE_ROUTE, status: '200' }, async () => {
      await call('PUT', '/v2/device/message/room1/lamp', { body: 'ON' });
      await call('PUT', '/v2/device/message/room2/fan/speed', { body: '3' });
    });
    await call('GET', '/v2/no/such/path');

    const samples = await scrape(stack);
    expect(moved).to.equal(2);
    expect(valueOf(samples, 'openpie_http_requests_total', { route: 'unmatched', status: '404' })).to.be.at.least(1);
    expect(samples.filter((s) => s.labels.route?.includes('room1') || s.labels.route?.includes('/no/such'))).to.deep.equal([]);
  });

  it('labels a request refused before its route ran (401) with that route', async () => {
    const moved = await change('openpie_http_requests_total', { route: '/v2/device/status', status: '401' }, () =>
      stack.http('GET', '/v2/device/status'),
    );

    expect(moved).to.equal(1);
  });

  it('keeps a latency histogram per route and status', async () => {
    const device = await aDevice(stack);
    await asDevice(stack, device)('GET', '/v2/device/shadow/data');

    const samples = await scrape(stack);
    const labels = { method: 'GET', route: '/v2/device/shadow/data', status: '200' };
    const count = valueOf(samples, 'openpie_http_request_duration_seconds_count', labels);
    expect(count).to.be.at.least(1);
    expect(valueOf(samples, 'openpie_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).to.equal(count);
    expect(valueOf(samples, 'openpie_http_request_duration_seconds_sum', labels)).to.be.above(0);
  });

  it('counts MQTT connections, messages in from devices and messages out to them', async () => {
    const [sender, listener] = await aGroup(stack, 2);
    const before = await scrape(stack);
    const tx = await connectDevice(stack.mqttUrl, sender);
    const rx = await connectDevice(stack.mqttUrl, listener);
    let during: Sample[];
    try {
      await rx.subscribeAsync('@msg/metrics');
      const arrived = nextMessage(rx);
      await tx.publishAsync('@msg/metrics', 'one', { qos: 1 });
      await arrived;
      during = await scrape(stack);
    } finally {
      await endAll(tx, rx);
    }

    const delta = (name: string, samples: Sample[]) => valueOf(samples, name) - valueOf(before, name);
    expect(delta('openpie_mqtt_connections', during)).to.equal(2);
    expect(delta('openpie_mqtt_messages_in_total', during)).to.equal(1);
    expect(delta('openpie_mqtt_messages_out_total', during)).to.equal(1);
    expect(await connectionsBack(valueOf(before, 'openpie_mqtt_connections'))).to.equal(true);
  });

  /** Polls until the connection gauge is back to `want`: disconnects are seen a moment after the client ends. */
  async function connectionsBack(want: number): Promise<boolean> {
    for (let i = 0; i < 40; i++) {
      if (valueOf(await scrape(stack), 'openpie_mqtt_connections') === want) return true;
      await sleep(25);
    }
    return false;
  }

  it('counts shadow writes, the points they record and the latency of data-store queries', async () => {
    const device = await aDevice(stack);
    const call = asDevice(stack, device);
    const before = await scrape(stack);

    await call('PUT', '/v2/device/shadow/data', { body: { data: { temp: 21.5, humid: 40, label: 'not a point' } } });
    await call('PUT', '/v2/device/shadow/data', { body: { data: { temp: 20 }, timestamp: 1_000_000_000_000 } });
    // A query first moves every acknowledged point to the time-series store.
    const query = await call('POST', '/v2/feed/api/v1/datapoints/query', {
      body: { start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: device.deviceid }] },
    });
    expect(query.status, query.text).to.equal(200);

    const after = await scrape(stack);
    const delta = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('openpie_shadow_writes_total', { applied: 'true' })).to.equal(1);
    // The back-dated write changes nothing but still records its point (docs/data-store.md "Data-store API").
    expect(delta('openpie_shadow_writes_total', { applied: 'false' })).to.equal(1);
    expect(delta('openpie_points_written_total')).to.equal(3);
    expect(delta('openpie_feed_query_duration_seconds_count', { kind: 'datapoints', outcome: 'ok' })).to.equal(1);
  });

  it('has no backend errors, quota or rate-limit refusals on a healthy service with no limits', async () => {
    const samples = await scrape(stack);

    for (const name of ['openpie_backend_errors_total', 'openpie_quota_refusals_total', 'openpie_rate_limit_refusals_total']) {
      expect(samples.filter((s) => s.name === name)).to.deep.equal([]);
    }
  });

  it('keeps the counts of each service instance apart', async () => {
    const other = await startStack();
    try {
      const samples = await scrape(other);
      expect(valueOf(samples, 'openpie_http_requests_total', { route: MESSAGE_ROUTE })).to.equal(0);
      expect(valueOf(await scrape(stack), 'openpie_http_requests_total', { route: MESSAGE_ROUTE })).to.be.at.least(2);
    } finally {
      await other.stop();
    }
  });
});

describe('GET /metrics with METRICS_TOKEN set', () => {
  const token = 'metrics-scrape-token-0123456789';
  let stack: Stack;
  before(async () => {
    stack = await startStack({ env: { METRICS_TOKEN: token } });
  });
  after(() => stack.stop());

  it('answers 200 to Authorization: Bearer <METRICS_TOKEN>', async () => {
    const samples = await scrape(stack, { authorization: `Bearer ${token}` });

    expect(valueOf(samples, 'openpie_mqtt_connections')).to.equal(0);
  });

  it('answers 401 MISSING_CREDENTIALS without it', async () => {
    expectError(await stack.http('GET', '/metrics'), 401, 'MISSING_CREDENTIALS');
  });

  it('answers 401 INVALID_CREDENTIALS to another token, the admin token included', async () => {
    expectError(await stack.http('GET', '/metrics', { headers: { authorization: 'Bearer wrong-token-0123456789' } }), 401, 'INVALID_CREDENTIALS');
    expectError(await stack.admin('GET', '/metrics'), 401, 'INVALID_CREDENTIALS');
  });

  it('leaves /healthz and /readyz open', async () => {
    expect((await stack.http('GET', '/healthz')).status).to.equal(200);
    expect((await stack.http('GET', '/readyz')).status).to.equal(200);
  });
});
