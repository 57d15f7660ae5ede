import { expect } from 'chai';
import { coapAs, CoapClient, CoapResponse, expectCoapError } from '../../helpers/coap';
import { aDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

/** The ETag option of a reply, as bytes (node-coap hands it over as text; our revs here are below 0x80). */
const etagOf = (res: CoapResponse) => Buffer.from(String(res.headers.ETag));

/** Issue 25 §1 over CoAP: the rev as ETag (RFC 7252 §5.10.6), If-Match (§5.10.8.1), If-None-Match (§5.10.8.2). */
describe('conditional shadow writes over CoAP (ETag, If-Match, If-None-Match)', () => {
  let stack: Stack;
  let coap: CoapClient;
  before(async () => {
    stack = await startStack();
  });
  beforeEach(async () => {
    coap = coapAs(stack.coapUrl, await aDevice(stack));
  });
  after(() => stack.stop());

  const writeTwice = async () => {
    for (const temp of [20, 21]) expect((await coap('PUT', '/shadow/data', { payload: { data: { temp } } })).code).to.equal('2.04');
  };

  it('gives the rev as ETag, one zero byte for a shadow never written, and on every write\'s 2.04', async () => {
    expect(etagOf(await coap('GET', '/shadow/data'))).to.deep.equal(Buffer.of(0));
    const written = await coap('PUT', '/shadow/data', { payload: { data: { temp: 1 } } });
    expect(etagOf(written)).to.deep.equal(Buffer.of(1));
    const batch = await coap('PUT', '/shadow/batch', { payload: { batch: [{ data: { temp: 2 }, ts: 0 }] } });
    expect(batch.code, batch.text).to.equal('2.04');
    expect(batch.body).to.not.have.property('rev');
    expect(etagOf(batch)).to.deep.equal(Buffer.of(2));
    expect(etagOf(await coap('GET', '/shadow/data'))).to.deep.equal(Buffer.of(2));
  });

  it('keeps the rev as ETag on a reply that goes block-wise (RFC 7959 Block2), not a digest of its bytes', async () => {
    await coap('PUT', '/shadow/data', { payload: { data: { big: 'x'.repeat(3000) } } });
    const written = await coap('PUT', '/shadow/data', { payload: { data: { big: 'y'.repeat(3000) } } });
    const read = await coap('GET', '/shadow/data');
    expect(read.body.rev).to.equal(2);
    expect(etagOf(written)).to.deep.equal(Buffer.of(2));
    expect(etagOf(read)).to.deep.equal(Buffer.of(2));
  });

  it('applies a write whose If-Match is the ETag read, and answers a stale one with 4.12 REV_MISMATCH, changing nothing', async () => {
    await writeTwice();
    const read = await coap('GET', '/shadow/data');

    const stale = await coap('PUT', '/shadow/data', { payload: { data: { temp: 99 } }, options: { 'If-Match': Buffer.of(1) } });
    expectCoapError(stale, '4.12', 412, 'REV_MISMATCH');
    expect(stale.body.rev).to.equal(2);
    expect((await coap('GET', '/shadow/data')).body).to.deep.include({ rev: 2, data: { temp: 21 } });

    const fresh = await coap('PUT', '/shadow/data', { payload: { data: { temp: 30 } }, options: { 'If-Match': etagOf(read) } });
    expect(fresh.code, fresh.text).to.equal('2.04');
    expect(fresh.body).to.include({ rev: 3 });
  });

  it('takes an empty If-Match as "the shadow was written"', async () => {
    const never = await coap('PUT', '/shadow/data', { payload: { data: { a: 1 } }, options: { 'If-Match': Buffer.alloc(0) } });
    expectCoapError(never, '4.12', 412, 'REV_MISMATCH');
    await writeTwice();
    const written = await coap('PUT', '/shadow/data', { payload: { data: { a: 1 } }, options: { 'If-Match': Buffer.alloc(0) } });
    expect(written.code, written.text).to.equal('2.04');
  });

  it('writes with If-None-Match only a shadow never written', async () => {
    const first = await coap('POST', '/shadow/data', { payload: { data: { setup: 1 } }, options: { 'If-None-Match': Buffer.alloc(0) } });
    expect(first.code, first.text).to.equal('2.04');
    const second = await coap('POST', '/shadow/data', { payload: { data: { setup: 2 } }, options: { 'If-None-Match': Buffer.alloc(0) } });
    expectCoapError(second, '4.12', 412, 'REV_MISMATCH');
    expect((await coap('GET', '/shadow/data')).body.data).to.deep.equal({ setup: 1 });
  });

  it('conditions a batch, and takes the body\'s `rev` as REST does', async () => {
    await writeTwice();
    const batch = { batch: [{ data: { temp: 5 }, ts: 0 }] };
    expectCoapError(await coap('PUT', '/shadow/batch', { payload: batch, options: { 'If-Match': Buffer.of(7) } }), '4.12', 412, 'REV_MISMATCH');
    expectCoapError(await coap('PUT', '/shadow/batch', { payload: { ...batch, rev: 1 } }), '4.12', 412, 'REV_MISMATCH');
    const ok = await coap('PUT', '/shadow/batch', { payload: { ...batch, rev: 2 }, options: { 'If-Match': Buffer.of(2) } });
    expect(ok.code, ok.text).to.equal('2.04');
    expect(etagOf(ok)).to.deep.equal(Buffer.of(3));
  });
});
