import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

const QUERY = '/v2/feed/api/v1/datapoints/query';

/**
 * Issue 10 §4: a huge sampling in a zone other than UTC answered 500 INTERNAL (a RangeError of the zone arithmetic),
 * where UTC gave a correct 400. The queries of the report, over HTTP.
 */
describe('POST /v2/feed/api/v1/datapoints/query: huge samplings in any zone (issue 10)', () => {
  let stack: Stack;
  let device: TestDevice;
  before(async () => {
    stack = await startStack();
    device = await aDevice(stack);
    await stack.http('PUT', '/v2/device/shadow/data', { headers: { authorization: device.auth }, body: { data: { temp: 21 } } });
  });
  after(() => stack.stop());

  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ['300000 years in Asia/Bangkok on the aggregator', {}, { name: 'gaps', sampling: { value: 300000, unit: 'years' }, time_zone: 'Asia/Bangkok' }],
    ['3600000 months, the zone on the query', { time_zone: 'Asia/Bangkok' }, { name: 'gaps', sampling: { value: 3600000, unit: 'months' } }],
    ['300000 years aligned, the zone on the query', { time_zone: 'Asia/Bangkok' }, { name: 'avg', align_sampling: true, sampling: { value: 300000, unit: 'years' } }],
    ['300000 years in UTC, as before', {}, { name: 'gaps', sampling: { value: 300000, unit: 'years' }, time_zone: 'UTC' }],
  ];
  for (const [what, top, aggregator] of cases) {
    it(`answers 400 with KairosDB's errors for ${what}`, async () => {
      const res = await stack.http('POST', QUERY, {
        headers: { authorization: device.auth },
        body: { start_relative: { value: 80, unit: 'minutes' }, ...top, metrics: [{ name: device.deviceid, aggregators: [aggregator] }] },
      });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.code).to.equal('KAIROS_QUERY_INVALID');
      expect(res.body.errors[0]).to.match(/time arithmetic overflow/);
    });
  }
});
