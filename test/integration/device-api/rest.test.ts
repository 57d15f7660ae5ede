import { expect } from 'chai';
import { overRest } from '../../helpers/device-transport';
import { aDevice } from '../../helpers/devices';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';
import { messageScenarios } from './messages.scenarios';
import { shadowBatchScenarios } from './shadow-batch.scenarios';
import { shadowDataScenarios } from './shadow-data.scenarios';
import { shadowHistoryScenarios } from './shadow-history.scenarios';

describe('the Device API over REST', () => {
  shadowDataScenarios(overRest);
  shadowBatchScenarios(overRest);
  shadowHistoryScenarios(overRest);
  messageScenarios(overRest);

  // The scenarios' client leaves out the `status` that REST repeats in a success body; it is checked here.
  describe('the status member of a success body', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack();
    });
    after(() => stack.stop());

    it('comes first in every /v2/device/shadow/data reply as status: 200, before deviceid and data', async () => {
      const client = asDevice(stack, await aDevice(stack));

      const replies = [
        await client('GET', '/v2/device/shadow/data'),
        await client('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 } } }),
        await client('POST', '/v2/device/shadow/data', { body: { data: { b: 2 } } }),
        await client('GET', '/v2/device/shadow/data'),
      ];

      for (const res of replies) {
        expect(res.status, res.text).to.equal(200);
        expect(res.text).to.match(/^\{"status":200,"deviceid":"[^"]+","data":/);
      }
    });

    it('is status: 200 in a message reply, and absent from a batch reply', async () => {
      const client = asDevice(stack, await aDevice(stack));

      const message = await client('PUT', '/v2/device/message/home/lamp', { body: 'ON' });
      const batch = await client('PUT', '/v2/device/shadow/batch', { body: { batch: [{ data: { a: 1 }, ts: 0 }] } });

      expect(message.body.status).to.equal(200);
      expect(batch.status, batch.text).to.equal(200);
      expect(batch.body).to.not.have.property('status');
    });
  });
});
