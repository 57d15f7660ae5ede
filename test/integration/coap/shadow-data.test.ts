import { expect } from 'chai';
import { coapAs, CoapClient, expectCoapError } from '../../helpers/coap';
import { aDevice, TestDevice } from '../../helpers/devices';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/** What only CoAP's /shadow/data has; the rules shared with REST are in test/integration/device-api. */
describe('CoAP GET, PUT and POST /shadow/data', () => {
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

  it('answers a read with 2.05 and Content-Format application/json, in NETPIE\'s order: deviceid, then data', async () => {
    const res = await coap('GET', '/shadow/data');

    expect(res.code, res.text).to.equal('2.05');
    expect(res.headers['Content-Format']).to.equal('application/json');
    // NETPIE's order (netpie reference §4): clients that split strings look for deviceid, then data.
    expect(res.text).to.match(/^\{"deviceid":"[^"]+","data":/);
  });

  it('merges NETPIE\'s lenient example {data:{temp:30.4}} with PUT and replies 2.04 with the whole shadow', async () => {
    await coap('PUT', '/shadow/data', { payload: '{data:{humid:76.2,temp:25}}' });

    const res = await coap('PUT', '/shadow/data', { payload: '{data:{temp:30.4}}' });

    expect(res.code, res.text).to.equal('2.04');
    expect(res.body).to.have.all.keys('deviceid', 'data', 'rev', 'modified', 'timestamp', 'applied');
    expect(res.body).to.deep.include({ deviceid: device.deviceid, data: { humid: 76.2, temp: 30.4 }, rev: 2, applied: true });
    expect((await coap('GET', '/shadow/data')).body.data).to.deep.equal({ humid: 76.2, temp: 30.4 });
  });

  it('reads JSON5 generally: single quotes, comments, trailing commas, and strict JSON too', async () => {
    const lenient = await coap('PUT', '/shadow/data', { payload: "{data:{name:'lamp', /* on */ on:true,},}" });
    const strict = await coap('PUT', '/shadow/data', { payload: { data: { level: 3 } } });

    expect(lenient.code, lenient.text).to.equal('2.04');
    expect(strict.code, strict.text).to.equal('2.04');
    expect((await coap('GET', '/shadow/data')).body.data).to.deep.equal({ name: 'lamp', on: true, level: 3 });
  });

  it('takes Content-Format application/json, text/plain or none for the body', async () => {
    for (const contentFormat of ['application/json', 'text/plain', undefined]) {
      const res = await coap('PUT', '/shadow/data', { payload: '{data:{a:1}}', contentFormat });
      expect(res.code, `${contentFormat}: ${res.text}`).to.equal('2.04');
    }
  });

  it('shares the shadow with REST: written over CoAP, read over REST, and back', async () => {
    await coap('PUT', '/shadow/data', { payload: '{data:{via:"coap"}}' });
    const rest = asDevice(stack, device);

    const readOverRest = await rest('GET', '/v2/device/shadow/data');
    await rest('PUT', '/v2/device/shadow/data', { body: { data: { also: 'rest' } } });
    const readOverCoap = await coap('GET', '/shadow/data');

    expect(readOverRest.body.data).to.deep.equal({ via: 'coap' });
    expect(readOverCoap.body).to.deep.include({ data: { via: 'coap', also: 'rest' }, rev: 2 });
  });

  it('sends and receives a shadow longer than one datagram block-wise (Block1 and Block2), codes intact', async () => {
    const data = { text: 'x'.repeat(20_000), list: Array.from({ length: 500 }, (_, i) => i) };

    const write = await coap('PUT', '/shadow/data', { payload: { data } });
    const read = await coap('GET', '/shadow/data');

    // The reply is long too: every block of it must keep the PUT's 2.04 (RFC 7959 §2.4).
    expect(write.code, write.text.slice(0, 200)).to.equal('2.04');
    expect(write.body.data).to.deep.equal(data);
    expect(read.code).to.equal('2.05');
    expect(read.body.data).to.deep.equal(data);
  });

  it('answers 4.05 METHOD_NOT_ALLOWED for DELETE', async () => {
    expectCoapError(await coap('DELETE', '/shadow/data'), '4.05', 405, 'METHOD_NOT_ALLOWED');
  });
});
