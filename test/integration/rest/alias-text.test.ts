import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

const aProject = () => `p-${randomUUID().slice(0, 8)}`;

/**
 * Issue 20 §6: aliases are shown in the console and the CLI, so text that reads as another alias is refused (bidi
 * overrides and isolates, zero-width characters) and the rest is kept in NFC, on create, update and import alike.
 */
describe('alias text (create, update, import)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const create = (alias: string) => stack.admin('POST', '/v2/admin/devices', { body: { projectid: aProject(), groupid: 'g', alias } });

  it('keeps an alias in NFC: "e" + U+0301 is stored as the precomposed "é"', async () => {
    const res = await create('cafe\u0301 lamp');

    expect(res.status, res.text).to.equal(201);
    expect(res.body.alias).to.equal('caf\u00e9 lamp');
    const read = await stack.admin('GET', `/v2/admin/devices/${res.body.deviceid}`);
    expect(read.body.alias).to.equal('caf\u00e9 lamp');
  });

  for (const [name, alias, problem] of [
    ['a right-to-left override (U+202E)', 'lamp\u202egnp.exe', 'bidirectional'],
    ['a left-to-right embedding (U+202A)', '\u202alamp', 'bidirectional'],
    ['a first-strong isolate (U+2068)', 'lamp\u2068x\u2069', 'bidirectional'],
    ['a zero-width space (U+200B)', 'lam\u200bp', 'zero-width'],
    ['a zero-width joiner (U+200D)', 'lamp\u200d', 'zero-width'],
    ['a word joiner (U+2060)', 'la\u2060mp', 'zero-width'],
    ['a byte-order mark (U+FEFF)', '\ufefflamp', 'zero-width'],
  ]) {
    it(`refuses an alias with ${name}: 400 INVALID_BODY naming the problem`, async () => {
      const res = await create(alias);

      expectError(res, 400, 'INVALID_BODY');
      expect(res.body.message).to.include('alias').and.include(problem);
    });
  }

  it('refuses the same characters when an alias is changed, and leaves the alias as it was', async () => {
    const device = (await create('porch')).body;

    const res = await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { alias: 'porch\u202e' } });

    expectError(res, 400, 'INVALID_BODY');
    expect(res.body.message).to.include('bidirectional');
    expect((await stack.admin('GET', `/v2/admin/devices/${device.deviceid}`)).body.alias).to.equal('porch');
  });

  it('normalises on update too', async () => {
    const device = (await create('porch')).body;

    const res = await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { alias: 'Ame\u0301lie' } });

    expect(res.status, res.text).to.equal(200);
    expect((await stack.admin('GET', `/v2/admin/devices/${device.deviceid}`)).body.alias).to.equal('Am\u00e9lie');
  });

  it('refuses an import holding such an alias, importing none of its rows, and normalises the others', async () => {
    const projectid = aProject();
    const refused = await stack.admin('POST', '/v2/admin/devices/import', {
      body: { devices: [{ projectid, groupid: 'g', alias: 'fine' }, { projectid, groupid: 'g', alias: 'x\u200by' }] },
    });
    const taken = await stack.admin('POST', '/v2/admin/devices/import', { body: { devices: [{ projectid, groupid: 'g', alias: 'no\u0308el' }] } });

    expect(refused.status, refused.text).to.equal(400);
    expect(refused.text).to.include('zero-width');
    expect(taken.status, taken.text).to.equal(201);
    expect(taken.body.devices[0].alias).to.equal('n\u00f6el');
    const listed = await stack.admin('GET', `/v2/admin/devices?projectid=${projectid}`);
    expect(listed.body.devices.map((d: { alias: string }) => d.alias)).to.deep.equal(['n\u00f6el']);
  });
});
