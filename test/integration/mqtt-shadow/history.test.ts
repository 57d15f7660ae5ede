import { expect } from 'chai';
import { aGroup } from '../../helpers/devices';
import { shadowSession, UPDATE, UPDATED } from '../../helpers/mqtt-shadow';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/** MQTT has no history topic, but its writes are revisions like any other (docs/device-api.md "Shadow history"). */
describe('MQTT @shadow/data/update and the shadow history', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('keeps each MQTT write as a revision, read back over REST with ?at= and the revision list', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    let first;
    try {
      first = await session.ask(UPDATE, { data: { temp: 20, mode: 'eco' } }, UPDATED);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await session.ask(UPDATE, { data: { mode: null } }, UPDATED);
    } finally {
      await session.end();
    }

    const rest = asDevice(stack, device);
    const list = await rest('GET', '/v2/device/shadow/revisions');
    const atFirst = await rest('GET', `/v2/device/shadow/data?at=${first.body.modified}`);

    expect(list.body.revisions.map((r: { data: object }) => r.data)).to.deep.equal([{ temp: 20 }, { temp: 20, mode: 'eco' }]);
    expect(atFirst.body).to.include({ rev: 1, modified: first.body.modified });
    expect(atFirst.body.data).to.deep.equal({ temp: 20, mode: 'eco' });
  });
});
