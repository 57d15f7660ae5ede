import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

const QUERY = '/v2/feed/api/v1/datapoints/query';
const HOUR = 3600_000;

describe('POST /v2/feed/api/v1/datapoints/query: what shadow writes recorded', () => {
  let stack: Stack;
  let device: TestDevice;
  let base: number;

  before(async () => {
    stack = await startStack();
    device = await aDevice(stack);
    base = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
    const batch = [0, 1, 2, 3].map((i) => ({
      ts: base + i * 60_000,
      data: { temp: 20 + i, env: { humid: 50 + i, ok: i % 2 === 0 }, label: 'text', list: [1, 2] },
    }));
    const res = await stack.http('PUT', '/v2/device/shadow/batch', { headers: { authorization: device.auth }, body: { batch } });
    expect(res.status).to.equal(200);
  });
  after(() => stack.stop());

  const query = (body: object) => stack.http('POST', QUERY, { headers: { authorization: device.auth }, body });

  it('keeps one series per numeric or boolean field, nested fields as dotted paths, no strings or arrays', async () => {
    const res = await query({
      start_absolute: base,
      metrics: [{ name: device.deviceid, group_by: [{ name: 'tag', tags: ['attr'] }] }],
    });
    expect(res.status).to.equal(200);
    const byField = Object.fromEntries(
      res.body.queries[0].results.map((r: { tags: { attr: string[] }; values: number[][] }) => [r.tags.attr[0], r.values.map((v) => v[1])]),
    );
    expect(byField).to.deep.equal({ temp: [20, 21, 22, 23], 'env.humid': [50, 51, 52, 53], 'env.ok': [1, 0, 1, 0] });
    expect(res.body.queries[0].results[0].name).to.equal(device.deviceid);
    const temp = res.body.queries[0].results.find((r: { tags: { attr: string[] } }) => r.tags.attr[0] === 'temp');
    expect(temp.group_by).to.deep.equal([
      { name: 'tag', tags: ['attr'], group: { attr: 'temp' } },
      { name: 'type', type: 'number' },
    ]);
  });

  it('filters by field with tags and aggregates with sampling', async () => {
    const res = await query({
      start_absolute: base,
      end_absolute: base + HOUR,
      metrics: [{ name: device.deviceid, tags: { attr: ['temp'] }, aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'hours' } }] }],
    });
    expect(res.status).to.equal(200);
    expect(res.body.queries[0].results[0].values).to.deep.equal([[base, 21.5]]);
  });

  it('records back-dated writes that do not change the shadow', async () => {
    const old = base - HOUR;
    const write = await stack.http('PUT', '/v2/device/shadow/data', {
      headers: { authorization: device.auth },
      body: { data: { temp: -5 }, timestamp: old },
    });
    expect(write.body.applied).to.equal(false);
    const res = await query({ start_absolute: old, end_absolute: old + 1, metrics: [{ name: device.deviceid, tags: { attr: ['temp'] } }] });
    expect(res.body.queries[0].results[0].values).to.deep.equal([[old, -5]]);
  });

  it('records nothing for a write with store:false', async () => {
    const at = base - 2 * HOUR;
    await stack.http('PUT', '/v2/device/shadow/data', { headers: { authorization: device.auth }, body: { data: { temp: 99 }, timestamp: at, store: false } });
    const res = await query({ start_absolute: at, end_absolute: at + 1, metrics: [{ name: device.deviceid }] });
    expect(res.body.queries[0].sample_size).to.equal(0);
  });

  it('answers an invalid query with 400 and KairosDB messages', async () => {
    const res = await query({ metrics: [{ name: device.deviceid }] });
    expect(res.status).to.equal(400);
    expect(res.body.errors).to.be.an('array').that.is.not.empty;
    expect(res.body.errors[0]).to.match(/start/);
  });

  it('reads bodies leniently like KairosDB: single quotes, unquoted keys and comments', async () => {
    const text = `{start_absolute: ${base}, // from the first batch\n metrics: [{'name': '${device.deviceid}', tags: {attr: ['temp']}}]}`;
    const res = await stack.http('POST', QUERY, { headers: { authorization: device.auth }, body: text, contentType: 'application/json' });
    expect(res.status).to.equal(200);
    expect(res.body.queries[0].sample_size).to.equal(4);
  });

  it('answers /datapoints/query/tags with the tags of the series in range', async () => {
    const res = await stack.http('POST', `${QUERY}/tags`, {
      headers: { authorization: device.auth },
      body: { start_absolute: base, metrics: [{ name: device.deviceid }] },
    });
    expect(res.status).to.equal(200);
    expect(res.body.queries[0].results[0].tags.attr).to.have.members(['temp', 'env.humid', 'env.ok']);
  });

  it('keeps the points of a batch across a restart', async () => {
    await stack.stop({ keepData: true });
    stack = await startStack({ dataDir: stack.dataDir });
    const res = await query({ start_absolute: base, metrics: [{ name: device.deviceid, tags: { attr: ['temp'] } }] });
    expect(res.body.queries[0].sample_size).to.equal(4);
  });
});
