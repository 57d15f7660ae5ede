import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { HttpResponse } from '../../helpers/http';
import { startStack, Stack } from '../../helpers/stack';

const QUERY = '/v2/feed/api/v1/datapoints/query';
/** The sandbox's per-call time limit (SCRIPT_SANDBOX_LIMITS.cpuTimeMs). */
const CALL_LIMIT_MS = 1000;

/**
 * Issue 10 §2: js_* scripts of one tenant used to queue every other tenant's behind them on one sandbox thread
 * (six endless loops of one device made a `value * 2` of another project wait 5.9 s). A tenant's script query now
 * waits at most for one running call to end, however many calls others queue.
 */
describe('js_* queries share the script sandbox fairly between tenants (issue 10)', function () {
  this.timeout(60_000);

  let stack: Stack;
  let hostile: TestDevice;
  let other: TestDevice;
  let victim: TestDevice;

  const scriptQuery = (device: TestDevice, script: string): Promise<HttpResponse> =>
    stack.http('POST', QUERY, {
      headers: { authorization: device.auth },
      body: { start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: device.deviceid, aggregators: [{ name: 'js_function', script }] }] },
    });

  const timed = async (device: TestDevice, script: string) => {
    const started = Date.now();
    const res = await scriptQuery(device, script);
    return { res, ms: Date.now() - started };
  };

  before(async () => {
    stack = await startStack();
    [hostile, other, victim] = [await aDevice(stack), await aDevice(stack), await aDevice(stack)];
    for (const device of [hostile, other, victim]) {
      const res = await stack.http('PUT', '/v2/device/shadow/data', { headers: { authorization: device.auth }, body: { data: { temp: 21 } } });
      expect(res.status).to.equal(200);
    }
    // Both sandbox threads started before the clock matters.
    const warm = await Promise.all([scriptQuery(hostile, 'value'), scriptQuery(victim, 'value')]);
    expect(warm.map((r) => r.status)).to.deep.equal([200, 200]);
  });
  after(() => stack.stop());

  it('answers another project\'s `value * 2` at once while one device floods the sandbox with endless loops', async () => {
    const flood = Array.from({ length: 6 }, () => scriptQuery(hostile, 'while(true){} return 1'));
    await new Promise((r) => setTimeout(r, 200));

    const { res, ms } = await timed(victim, 'value * 2');

    expect(res.status, res.text.slice(0, 300)).to.equal(200);
    expect(res.body.queries[0].results[0].values[0][1]).to.equal(42);
    expect(ms).to.be.below(CALL_LIMIT_MS / 2);
    for (const refused of await Promise.all(flood)) expect(refused.status, refused.text.slice(0, 300)).to.be.oneOf([400, 429]);
  });

  it('lets a tenant wait at most one call\'s time limit when two others hold every sandbox thread', async () => {
    const flood = [hostile, other].flatMap((device) => Array.from({ length: 4 }, () => scriptQuery(device, 'while(true){} return 1')));
    await new Promise((r) => setTimeout(r, 200));

    const { res, ms } = await timed(victim, 'value * 2');

    expect(res.status, res.text.slice(0, 300)).to.equal(200);
    expect(ms).to.be.below(CALL_LIMIT_MS + 300);
    await Promise.all(flood);
  });
});
