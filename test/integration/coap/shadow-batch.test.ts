import { expect } from 'chai';
import { coapAs, CoapClient, expectCoapError } from '../../helpers/coap';
import { aDevice, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

const items = (count: number) => Array.from({ length: count }, (_, i) => ({ data: { n: i }, ts: -count + i }));

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

  it('merges with PUT and overwrites with POST', async () => {
    await coap('PUT', '/shadow/data', { payload: '{data:{kept:1},timestamp:-60000}' });

    await coap('PUT', '/shadow/batch', { payload: '{batch:[{data:{a:1},ts:-2000},{data:{b:2},ts:-1000}]}' });
    const merged = await shadow();
    await coap('POST', '/shadow/batch', { payload: '{batch:[{data:{c:3},ts:0}]}' });
    const overwritten = await shadow();

    expect(merged.data).to.deep.equal({ kept: 1, a: 1, b: 2 });
    expect(overwritten.data).to.deep.equal({ c: 3 });
  });

  it('lets merged beat the method both ways', async () => {
    await coap('PUT', '/shadow/data', { payload: '{data:{kept:1},timestamp:-60000}' });

    await coap('POST', '/shadow/batch', { payload: '{merged:true,batch:[{data:{a:1},ts:-2000}]}' });
    const mergedByPost = await shadow();
    await coap('PUT', '/shadow/batch', { payload: '{merged:false,batch:[{data:{b:2},ts:-1000}]}' });
    const overwrittenByPut = await shadow();

    expect(mergedByPost.data).to.deep.equal({ kept: 1, a: 1 });
    expect(overwrittenByPut.data).to.deep.equal({ b: 2 });
  });

  it('takes 100 items, sent block-wise', async () => {
    const res = await coap('PUT', '/shadow/batch', { payload: { ackid: 'a-100', batch: items(100) } });

    expect(res.code, res.text).to.equal('2.04');
    expect(res.body.response).to.include({ ackid: 'a-100', total: 100, applied: 100 });
    expect((await shadow()).data).to.deep.equal({ n: 99 });
  });

  it('refuses 101 items with 4.00 and NETPIE\'s errcode 429 body, saving nothing', async () => {
    const res = await coap('PUT', '/shadow/batch', { payload: { ackid: 1234, batch: items(101) } });

    // REST answers this with HTTP 400 and the same body; 4.29 is kept for quotas (issue 5 §5).
    expectCoapError(res, '4.00', 400, 'BATCH_TOO_LARGE');
    expect(res.body).to.include({ errcode: 429, message: 'batch size exceeds 100', inputsize: 101, ackid: 1234 });
    expect(await shadow()).to.deep.include({ data: {}, rev: 0 });
  });

  it('answers 4.00 INVALID_BATCH_ITEM naming the bad item, saving none of the good ones', async () => {
    const res = await coap('PUT', '/shadow/batch', { payload: '{batch:[{data:{a:1},ts:0},{data:5,ts:0}]}' });

    expectCoapError(res, '4.00', 400, 'INVALID_BATCH_ITEM');
    expect(res.body.index).to.equal(1);
    expect(res.body.message).to.match(/^batch item 1: /);
    expect((await shadow()).rev).to.equal(0);
  });

  it('answers 4.00 for an item without ts and for an empty batch', async () => {
    const withoutTs = await coap('PUT', '/shadow/batch', { payload: '{batch:[{data:{a:1}}]}' });
    const empty = await coap('PUT', '/shadow/batch', { payload: '{batch:[]}' });

    expectCoapError(withoutTs, '4.00', 400, 'INVALID_BATCH_ITEM');
    expectCoapError(empty, '4.00', 400, 'INVALID_BODY');
  });

  it('answers 4.05 METHOD_NOT_ALLOWED for GET and DELETE', async () => {
    for (const method of ['GET', 'DELETE']) {
      expectCoapError(await coap(method, '/shadow/batch'), '4.05', 405, 'METHOD_NOT_ALLOWED');
    }
  });
});
