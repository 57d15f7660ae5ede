import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { HttpResponse } from '../../helpers/http';
import { startStack, Stack } from '../../helpers/stack';

const QUERY = '/v2/feed/api/v1/datapoints/query';
/** About 800 ms in the sandbox: 10 points of 80 ms. */
const SLOW_SCRIPT = 'var t = Date.now(); while (Date.now() - t < 80) {} return value';

/**
 * Issue 10 §1: queries run in slots shared fairly between callers (a user token's project, a device's group); one
 * caller cannot take them all, its surplus waits its turn or is refused with 429, and a query whose client goes
 * away stops and frees its slot.
 */
describe('POST /v2/feed/api/v1/datapoints/query: slots per caller (issue 10)', function () {
  this.timeout(30_000);

  let stack: Stack;
  let busy: TestDevice;
  let calm: TestDevice;

  const body = (device: TestDevice, script?: string) => ({
    start_relative: { value: 1, unit: 'hours' },
    metrics: [{ name: device.deviceid, ...(script ? { aggregators: [{ name: 'js_function', script }] } : {}) }],
  });
  const query = (device: TestDevice, script?: string): Promise<HttpResponse> =>
    stack.http('POST', QUERY, { headers: { authorization: device.auth }, body: body(device, script) });
  const timed = async (work: Promise<HttpResponse>) => {
    const started = Date.now();
    const res = await work;
    return { res, ms: Date.now() - started };
  };

  before(async () => {
    stack = await startStack({ env: { QUERY_CONCURRENCY: '2', QUERY_CONCURRENCY_PER_CALLER: '1', QUERY_QUEUE_PER_CALLER: '1' } });
    [busy, calm] = [await aDevice(stack), await aDevice(stack)];
    for (const device of [busy, calm]) {
      const batch = Array.from({ length: 10 }, (_, i) => ({ ts: -(i + 1) * 60_000, data: { temp: i } }));
      expect((await stack.http('PUT', '/v2/device/shadow/batch', { headers: { authorization: device.auth }, body: { batch } })).status).to.equal(200);
    }
    expect((await query(busy, 'value')).status).to.equal(200);
  });
  after(() => stack.stop());

  it('runs one query of the caller, queues the next, refuses the one after with 429 and Retry-After', async () => {
    const running = query(busy, SLOW_SCRIPT);
    await new Promise((r) => setTimeout(r, 100));
    const queued = query(busy, SLOW_SCRIPT);
    await new Promise((r) => setTimeout(r, 100));

    const refused = await query(busy, SLOW_SCRIPT);
    const served = await Promise.all([running, queued]);

    expect(refused.status).to.equal(429);
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(refused.body).to.include({ code: 'TOO_MANY_QUERIES', retryAfter: 1 });
    expect(refused.body.errors).to.have.length(1);
    expect(served.map((r) => r.status)).to.deep.equal([200, 200]);
  });

  it('refuses the GET form of a query over the same slots with 429 and Retry-After', async () => {
    const running = query(busy, SLOW_SCRIPT);
    await new Promise((r) => setTimeout(r, 100));
    const queued = query(busy, SLOW_SCRIPT);
    await new Promise((r) => setTimeout(r, 100));

    const path = `${QUERY}?query=${encodeURIComponent(JSON.stringify(body(busy)))}`;
    const refused = await stack.http('GET', path, { headers: { authorization: busy.auth } });
    await Promise.all([running, queued]);

    expect(refused.status).to.equal(429);
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(refused.body).to.include({ code: 'TOO_MANY_QUERIES' });
  });

  it('answers another caller at once while one caller fills its slot and its queue', async () => {
    const flood = [query(busy, SLOW_SCRIPT), query(busy, SLOW_SCRIPT)];
    await new Promise((r) => setTimeout(r, 100));

    const { res, ms } = await timed(query(calm));
    await Promise.all(flood);

    expect(res.status).to.equal(200);
    expect(res.body.queries[0].sample_size).to.equal(10);
    expect(ms).to.be.below(300);
  });

  /** A query whose client hangs up after `ms`. */
  const abandon = async (ms: number) => {
    const gone = new AbortController();
    const abandoned = fetch(stack.baseUrl + QUERY, {
      method: 'POST',
      headers: { authorization: busy.auth, 'content-type': 'application/json' },
      body: JSON.stringify(body(busy, SLOW_SCRIPT)),
      signal: gone.signal,
    }).catch((err: Error) => err);
    await new Promise((r) => setTimeout(r, ms));
    gone.abort();
    expect(await abandoned).to.be.instanceOf(Error);
  };

  /** Queries the metrics counted as ended by their client (499), over both mounts. */
  const cancelledCount = async () => {
    const text = (await stack.http('GET', '/metrics')).text;
    return [...text.matchAll(/^openpie_http_requests_total\{[^}]*status="499"[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
  };

  it('stops a query whose client went away and frees its slot at once', async () => {
    const before = await cancelledCount();
    await abandon(150);

    // The caller's only slot is free again long before the abandoned script would have ended.
    const { res, ms } = await timed(query(busy));

    expect(res.status).to.equal(200);
    expect(ms).to.be.below(300);
    expect(await cancelledCount()).to.equal(before + 1);
  });

  it('takes a waiting query whose client went away out of its caller\'s queue', async () => {
    const before = await cancelledCount();
    const running = query(busy, SLOW_SCRIPT);
    await new Promise((r) => setTimeout(r, 100));
    await abandon(100);
    // The service hears of the hang-up on its own socket: a moment later.
    await new Promise((r) => setTimeout(r, 50));

    // The queue holds one query: it has room again.
    const next = await query(busy);
    await running;

    expect(next.status).to.equal(200);
    expect(await cancelledCount()).to.equal(before + 1);
  });
});
