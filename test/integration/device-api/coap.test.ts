import { expect } from 'chai';
import { coapAs } from '../../helpers/coap';
import { overCoap } from '../../helpers/device-transport';
import { aGroup } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';
import { messageScenarios } from './messages.scenarios';
import { shadowBatchScenarios } from './shadow-batch.scenarios';
import { shadowDataScenarios } from './shadow-data.scenarios';
import { shadowHistoryScenarios } from './shadow-history.scenarios';

describe('the Device API over CoAP', () => {
  shadowDataScenarios(overCoap);
  shadowBatchScenarios(overCoap);
  shadowHistoryScenarios(overCoap);
  messageScenarios(overCoap);

  // The scenarios' client reads 2.04 and 2.05 both as 200; which one each call answers is checked here.
  describe('success codes', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack();
    });
    after(() => stack.stop());

    it('answers a read with 2.05 Content and every write and publish with 2.04 Changed (RFC 7252 §5.9.1)', async () => {
      const [device, lamp] = await aGroup(stack, 2);
      const coap = coapAs(stack.coapUrl, device);
      const batch = { batch: [{ data: { a: 1 }, ts: 0 }] };

      const codes = {
        read: (await coap('GET', '/shadow/data')).code,
        merge: (await coap('PUT', '/shadow/data', { payload: { data: { a: 1 } } })).code,
        overwrite: (await coap('POST', '/shadow/data', { payload: { data: { b: 2 } } })).code,
        backDated: (await coap('PUT', '/shadow/data', { payload: { data: { b: 9 }, timestamp: 1_000_000_000_000 } })).code,
        aliasWrite: (await coap('PUT', '/shadow/data', { query: [`alias=${lamp.alias}`], payload: { data: { on: true } } })).code,
        aliasRead: (await coap('GET', '/shadow/data', { query: [`alias=${lamp.alias}`] })).code,
        batchMerge: (await coap('PUT', '/shadow/batch', { payload: batch })).code,
        batchOverwrite: (await coap('POST', '/shadow/batch', { payload: batch })).code,
        publish: (await coap('PUT', '/message/home/lamp', { payload: 'ON' })).code,
      };

      // A write that changes nothing, being older than the shadow, is still 2.04: the reply says applied: false.
      expect(codes).to.deep.equal({
        read: '2.05',
        merge: '2.04',
        overwrite: '2.04',
        backDated: '2.04',
        aliasWrite: '2.04',
        aliasRead: '2.05',
        batchMerge: '2.04',
        batchOverwrite: '2.04',
        publish: '2.04',
      });
    });
  });
});
