import { expect } from 'chai';
import { TestDevice } from '../../helpers/devices';
import { httpClient } from '../../helpers/http';
import { expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';
import { adminQuery, aFleet, aUserToken, idsOf } from './fleet-helpers';

describe('POST /v2/admin/projects/{projectid}/shadows/query and POST /v2/shadows/query', () => {
  let stack: Stack;
  let fleet: TestDevice[];
  let projectid: string;
  let other: TestDevice[];
  before(async function () {
    // A keyspace of its own with TEST_STORE=cassandra takes a while to make on a busy machine.
    this.timeout(90_000);
    stack = await startStack();
    fleet = await aFleet(stack, [
      { alias: 'a', data: { battery: 15, fw: '2.0', env: { temp: 30 } } },
      { alias: 'b', data: { battery: 80, fw: '2.0', env: { temp: 20 } } },
      { alias: 'c', data: { battery: 5, fw: '2.1', env: { temp: 25 } } },
      { alias: 'd', groupid: 'g2', data: { battery: 10, fw: '1.9' } },
      { alias: 'e', groupid: 'g2', data: { fw: '2.0' } },
    ]);
    projectid = fleet[0].projectid;
    other = await aFleet(stack, [{ data: { battery: 1, fw: '1.0' } }]);
  });
  after(() => stack.stop());
  const id = (alias: string) => fleet.find((d) => d.alias === alias)!.deviceid;

  it('answers the devices the filter matches, with their place, metadata and data', async () => {
    const res = await adminQuery(stack, projectid, { filter: '$.battery < 20 && $.fw != "2.1"', sort: { field: 'battery' } });

    expect(idsOf(res)).to.deep.equal([id('d'), id('a')]);
    expect(res.body.items[1]).to.deep.include({ deviceid: id('a'), groupid: 'g1', alias: 'a', rev: 1, data: { battery: 15, fw: '2.0', env: { temp: 30 } } });
    expect(res.body.items[1].modified).to.be.a('number').above(0);
    expect(res.body).to.include({ total: 2, scanned: 5, filterErrors: 0 });
    expect(res.body).to.not.have.property('next');
  });

  it('returns only the fields asked, nested as in the shadow', async () => {
    const res = await adminQuery(stack, projectid, { filter: `$device.alias == "a"`, fields: ['env.temp', 'missing.path'] });

    expect(res.body.items).to.have.length(1);
    expect(res.body.items[0].data).to.deep.equal({ env: { temp: 30 } });
  });

  it('sorts descending, devices without the field last, ties by deviceid', async () => {
    const res = await adminQuery(stack, projectid, { sort: { field: 'battery', order: 'desc' } });

    expect(idsOf(res)).to.deep.equal([id('b'), id('a'), id('d'), id('c'), id('e')]);
  });

  it('sorts by a member of $device and narrows to one group', async () => {
    const res = await adminQuery(stack, projectid, { groupid: 'g2', sort: { field: '$device.alias', order: 'desc' } });

    expect(idsOf(res)).to.deep.equal([id('e'), id('d')]);
    expect(res.body.scanned).to.equal(2);
  });

  it('pages with the cursor through every match once, in order', async () => {
    const body = { filter: 'true', sort: { field: 'env.temp' }, limit: 2 };
    const everything = idsOf(await adminQuery(stack, projectid, { ...body, limit: 100 }));

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await adminQuery(stack, projectid, { ...body, ...(cursor ? { cursor } : {}) });
      seen.push(...idsOf(res));
      cursor = res.body.next;
      pages++;
    } while (cursor !== undefined);

    expect(seen).to.deep.equal(everything);
    expect(seen).to.have.length(5);
    expect(pages).to.equal(3);
  });

  it('refuses a cursor of another query, and one it did not write', async () => {
    const first = await adminQuery(stack, projectid, { limit: 1 });

    expectError(await adminQuery(stack, projectid, { limit: 1, filter: '$.fw == "2.0"', cursor: first.body.next }), 400, 'INVALID_BODY');
    expectError(await adminQuery(stack, projectid, { cursor: 'bm90LWEtY3Vyc29y' }), 400, 'INVALID_BODY');
  });

  it('counts devices the filter cannot be evaluated on as not matching', async () => {
    const res = await adminQuery(stack, projectid, { filter: '$.fw > 2' });

    expect(res.body.items).to.deep.equal([]);
    expect(res.body.filterErrors).to.equal(5);
  });

  for (const [what, filter, mentions] of [
    ['a syntax error', '$.battery <', 'character'],
    ['an unknown variable', '$$.battery < 20', '$$'],
    ['an unknown function', 'nosuch($.battery)', 'nosuch'],
    ['a filter over 1024 characters', `${'true && '.repeat(140)}true`, '1024'],
  ] as const) {
    it(`answers 400 INVALID_FILTER for ${what}`, async () => {
      const res = await adminQuery(stack, projectid, { filter });

      expectError(res, 400, 'INVALID_FILTER');
      expect(res.body.message).to.include(mentions);
    });
  }

  for (const [what, body, mentions] of [
    ['a limit over 100', { limit: 101 }, 'limit'],
    ['an unknown member', { where: 'true' }, 'where'],
    ['a sort field that is no path', { sort: { field: 'a..b' } }, 'sort'],
    ['more than 32 fields', { fields: Array.from({ length: 33 }, (_, i) => `f${i}`) }, 'fields'],
  ] as const) {
    it(`answers 400 INVALID_BODY for ${what}`, async () => {
      const res = await adminQuery(stack, projectid, body);

      expectError(res, 400, 'INVALID_BODY');
      expect(res.body.message).to.include(mentions);
    });
  }

  describe('with a user token', () => {
    it('answers the devices of the token\'s project only', async () => {
      const asUser = await aUserToken(stack, projectid, ['fleet']);

      const res = await asUser('POST', '/v2/shadows/query', { body: { filter: '$.battery < 100' } });

      expect(idsOf(res).sort()).to.deep.equal([id('a'), id('b'), id('c'), id('d')].sort());
      expect(idsOf(res)).to.not.include(other[0].deviceid);
    });

    it('refuses a token without the fleet grant with 403 TOKEN_GRANT_MISSING, and a call without a token with 401', async () => {
      const readOnly = await aUserToken(stack, projectid, []);
      const desiredOnly = await aUserToken(stack, projectid, ['desired']);

      const refused = await readOnly('POST', '/v2/shadows/query', { body: {} });

      expectError(refused, 403, 'TOKEN_GRANT_MISSING');
      expect(refused.body.grant).to.equal('fleet');
      expectError(await desiredOnly('POST', '/v2/shadows/query', { body: {} }), 403, 'TOKEN_GRANT_MISSING');
      expectError(await stack.http('POST', '/v2/shadows/query', { body: {} }), 401, 'MISSING_CREDENTIALS');
      expectError(await httpClient(stack.baseUrl, { authorization: 'Bearer forged' })('POST', '/v2/shadows/query', { body: {} }), 401, 'INVALID_CREDENTIALS');
    });
  });

  describe('as an operator', () => {
    it('answers a viewer of the project and refuses one of another project', async () => {
      const viewerOf = async (projects: string[]) => {
        const res = await stack.admin('POST', '/v2/admin/operators', { body: { name: `v-${projects[0]}`, role: 'viewer', projects } });
        expect(res.status, res.text).to.equal(201);
        return httpClient(stack.baseUrl, { authorization: `Bearer ${res.body.key}` });
      };
      const mine = await viewerOf([projectid]);
      const theirs = await viewerOf([other[0].projectid]);

      expect(idsOf(await mine('POST', `/v2/admin/projects/${projectid}/shadows/query`, { body: {} }))).to.have.length(5);
      expectError(await theirs('POST', `/v2/admin/projects/${projectid}/shadows/query`, { body: {} }), 403, 'PROJECT_FORBIDDEN');
    });

    it('writes no audit entry: a query reads', async () => {
      await adminQuery(stack, projectid, {});

      const audit = await stack.admin('GET', '/v2/admin/audit');
      expect(audit.text).to.not.include('shadows/query');
    });
  });
});
