import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { deleteMetrics, kairosDbRequest, kairosDbUrlOrSkip, waitForStored } from '../../helpers/kairosdb';
import { startStack, Stack } from '../../helpers/stack';

const QUERY = '/v2/feed/api/v1/datapoints/query';
const HOUR = 3_600_000;

/** KairosDB's own JSON, the same query as `unquotedQuery`. */
const quotedQuery = (base: number, deviceid: string) => ({
  start_absolute: base,
  metrics: [{
    name: deviceid,
    tags: { attr: ['temp'] },
    aggregators: [{ name: 'sum', align_sampling: true, sampling: { value: 1, unit: 'hours' } }],
  }],
});

/** As Gson reads it leniently (issue 23 §5): unquoted names and string values, TRUE in capitals, a ; separator. */
const unquotedQuery = (base: number, deviceid: string) =>
  `{start_absolute:${base}, metrics:[{name:${deviceid}; tags:{attr:[temp]}, ` +
  `aggregators:[{name:sum, align_sampling:TRUE, sampling:{value:1, unit:hours}}]}]}`;

// Issue 23 §5: KairosDB reads bodies with Gson's lenient reader, which takes unquoted string values; the service
// answers such a body as KairosDB does, on both engines.
describe('data-store queries with unquoted string values (Gson lenient)', function () {
  this.timeout(60_000);
  const base = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;

  for (const engine of ['embedded', 'kairosdb'] as const) {
    describe(`TIMESERIES=${engine}`, () => {
      let stack: Stack | undefined;
      let device: TestDevice;
      let url: string | undefined;

      before(async function () {
        if (engine === 'kairosdb') url = await kairosDbUrlOrSkip(this);
        stack = await startStack({ env: url ? { TIMESERIES: 'kairosdb', KAIROSDB_URL: url } : {} });
        device = await aDevice(stack);
        const batch = [0, 1, 2, 3].map((i) => ({ ts: base + i * 60_000, data: { temp: 20 + i, humid: 50 } }));
        const res = await stack.http('PUT', '/v2/device/shadow/batch', { headers: { authorization: device.auth }, body: { batch } });
        expect(res.status, res.text).to.equal(200);
        if (url) await waitForStored(url, [device.deviceid], [8]);
      });
      after(async () => {
        await stack?.stop();
        if (url && device) await deleteMetrics(url, [device.deviceid]);
      });

      it('answers {name:sum,unit:hours}-style bodies as their quoted JSON', async () => {
        const lenient = await stack!.http('POST', QUERY, {
          headers: { authorization: device.auth }, body: unquotedQuery(base, device.deviceid), contentType: 'application/json',
        });
        const strict = await stack!.http('POST', QUERY, { headers: { authorization: device.auth }, body: quotedQuery(base, device.deviceid) });

        expect(lenient.status, lenient.text).to.equal(200);
        expect(lenient.body).to.deep.equal(strict.body);
        expect(lenient.body.queries[0].results[0].values).to.deep.equal([[base, 86]]);
      });

      if (engine === 'kairosdb') {
        it('is what KairosDB itself answers to the same text', async () => {
          const res = await fetch(`${url}/api/v1/datapoints/query`, {
            method: 'POST', headers: { 'content-type': 'application/json' }, body: unquotedQuery(base, device.deviceid),
          });
          const direct = await kairosDbRequest(url!, 'POST', '/datapoints/query', quotedQuery(base, device.deviceid));

          expect(res.status).to.equal(200);
          expect(await res.json()).to.deep.equal(direct.body);
        });
      }
    });
  }
});
