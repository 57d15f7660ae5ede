import { expect } from 'chai';
import { aDevice } from '../../helpers/devices';
import { deleteMetrics, kairosDbUrlOrSkip, pollUntil, storedCounts } from '../../helpers/kairosdb';
import { startStack, Stack } from '../../helpers/stack';
import { startTcpProxy, TcpProxy } from '../../helpers/tcp-proxy';

const WRITES = 30;
const CUT_AT = 10;
const RESTORE_AT = 20;
const FIELDS_PER_ITEM = 2;
const ITEMS_PER_WRITE = 5;

// Issue 4 §3: KairosDB taken away in the middle of a stream of writes. Shadow writes are acknowledged all along
// (their points wait durably in the outbox) and, once KairosDB is back, it holds every acknowledged point.
describe('TIMESERIES=kairosdb when KairosDB goes away in the middle of a stream of writes', function () {
  this.timeout(90_000);
  let stack: Stack | undefined;
  let proxy: TcpProxy | undefined;
  let url: string;
  let metric: string | undefined;

  afterEach(async () => {
    await stack?.stop();
    await proxy?.close();
    if (metric) await deleteMetrics(url, [metric]);
  });

  it('acknowledges every write and ends with every acknowledged point stored', async function () {
    url = await kairosDbUrlOrSkip(this);
    proxy = await startTcpProxy(new URL(url).host);
    stack = await startStack({ env: { TIMESERIES: 'kairosdb', KAIROSDB_URL: `http://127.0.0.1:${proxy.port}`, KAIROSDB_TIMEOUT_MS: '1000' } });
    const device = await aDevice(stack);
    metric = device.deviceid;
    const start = Date.now() - 3_600_000;

    let acknowledged = 0;
    for (let w = 0; w < WRITES; w++) {
      if (w === CUT_AT) proxy.cut();
      if (w === RESTORE_AT) proxy.restore();
      const batch = Array.from({ length: ITEMS_PER_WRITE }, (_, i) => ({
        ts: start + (w * ITEMS_PER_WRITE + i) * 1000,
        data: { temp: w, humid: i },
      }));
      const res = await stack.http('PUT', '/v2/device/shadow/batch', { headers: { authorization: device.auth }, body: { batch } });
      expect(res.status, res.text).to.equal(200);
      acknowledged += ITEMS_PER_WRITE * FIELDS_PER_ITEM;
      if (w === CUT_AT) {
        // KairosDB really is out of reach now: the data-store API says so.
        const query = { start_absolute: start, metrics: [{ name: device.deviceid }] };
        const down = await stack.http('POST', '/v2/feed/api/v1/datapoints/query', { headers: { authorization: device.auth }, body: query });
        expect(down.status, down.text).to.equal(503);
      }
    }

    const [stored] = await pollUntil(() => storedCounts(url, [device.deviceid]), ([count]) => count >= acknowledged, 60_000);
    expect(stored).to.equal(acknowledged);
  });
});
