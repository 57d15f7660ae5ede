import { expect } from 'chai';
import { coapAs, CoapClient, expectCoapError } from '../../helpers/coap';
import { aDevice, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

const items = (count: number) => Array.from({ length: count }, (_, i) => ({ data: { n: i }, ts: -count + i }));

/** What only CoAP's /shadow/batch has; the rules shared with REST are in test/integration/device-api. */
describe('CoAP PUT and POST /shadow/batch', () => {
  let stack: Stack;
  let device: TestDevice;
  let coap: CoapClient;
  before(async () => {
    stack = await startStack();
  });
  beforeEach(async () => {
    device = await aDevice(stack);
    coap = coapAs(stack.coapUrl, device);
  });
  after(() => stack.stop());

  const shadow = async () => (await coap('GET', '/shadow/data')).body;

  it('replies 2.04 {deviceid, response:{ackid, total, applied, mints, maxts}} for a lenient batch', async () => {
    const before = Date.now();

    const res = await coap('PUT', '/shadow/batch', {
      payload: '{ackid:1234, batch:[{data:{temp:25.9},ts:-90000},{data:{humid:60},ts:0}]}',
    });

    const after = Date.now();
    expect(res.code, res.text).to.equal('2.04');
    expect(res.body).to.have.all.keys('deviceid', 'response');
    expect(res.body.deviceid).to.equal(device.deviceid);
    expect(res.body.response).to.include({ ackid: 1234, total: 2, applied: 2 });
    expect(res.body.response.mints).to.be.within(before - 90_000, after - 90_000);
    expect(res.body.response.maxts).to.be.within(before, after);
    expect(await shadow()).to.deep.include({ data: { temp: 25.9, humid: 60 }, rev: 1 });
  });

  it('takes 100 items, sent block-wise', async () => {
    const res = await coap('PUT', '/shadow/batch', { payload: { ackid: 'a-100', batch: items(100) } });

    expect(res.code, res.text).to.equal('2.04');
    expect(res.body.response).to.include({ ackid: 'a-100', total: 100, applied: 100 });
    expect((await shadow()).data).to.deep.equal({ n: 99 });
  });

  it('answers 4.05 METHOD_NOT_ALLOWED for GET and DELETE', async () => {
    for (const method of ['GET', 'DELETE']) {
      expectCoapError(await coap(method, '/shadow/batch'), '4.05', 405, 'METHOD_NOT_ALLOWED');
    }
  });
});
