import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aDevice } from '../../helpers/devices';
import { expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/** The claims of a JWT, read without checking the signature (the service's own key signs it). */
function claimsOf(token: string): Record<string, unknown> {
  const parts = token.split('.');
  expect(parts, 'a JWT has three parts').to.have.length(3);
  return JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
}

describe('POST /v2/admin/tokens', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
    // Tokens are issued for projects that have a device.
    for (const projectid of ['p-tokens', 'p-named', 'p-default', 'p-twice', 'p-grants']) await aDevice(stack, { projectid });
  });
  after(() => stack.stop());

  it('answers 201 with a three-part JWT from cer:usertoken that lives exactly ttl seconds', async () => {
    const before = Date.now();

    const res = await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: 'p-tokens', ttl: 600 } });

    expect(res.status).to.equal(201);
    expect(res.body).to.have.all.keys('token', 'jti', 'expires', 'scope', 'grants');
    expect(res.body.scope).to.equal('read');
    expect(res.body.grants).to.deep.equal(['read']);
    const claims = claimsOf(res.body.token);
    expect(claims.iss).to.equal('cer:usertoken');
    expect(Number(claims.exp) - Number(claims.iat)).to.equal(600);
    expect(Number(claims.iat) * 1000).to.be.within(before - 1_000, Date.now());
    expect(res.body.expires).to.equal(Number(claims.exp) * 1000);
    expect(res.body.jti).to.equal(claims.jti);
  });

  it('names the project in the token', async () => {
    const res = await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: 'p-named', ttl: 60 } });

    expect(JSON.stringify(claimsOf(res.body.token))).to.include('p-named');
  });

  it('makes a token live 24 hours when ttl is absent', async () => {
    const res = await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: 'p-default' } });

    const claims = claimsOf(res.body.token);
    expect(Number(claims.exp) - Number(claims.iat)).to.equal(86_400);
  });

  it('issues a different token every time', async () => {
    const body = { projectid: 'p-twice', ttl: 60 };

    const first = await stack.admin('POST', '/v2/admin/tokens', { body });
    const second = await stack.admin('POST', '/v2/admin/tokens', { body });

    expect(first.body.token).to.not.equal(second.body.token);
  });

  it('issues the grants asked, beside the scope, each its own JWT scope entry', async () => {
    const res = await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: 'p-grants', scope: 'write', grants: ['desired', 'fleet'] } });

    expect(res.status, res.text).to.equal(201);
    expect(res.body.scope).to.equal('write');
    expect(res.body.grants).to.deep.equal(['read', 'write', 'fleet', 'desired']);
    expect(claimsOf(res.body.token).scope).to.deep.equal(['project:p-grants', 'feed:write', 'shadow:fleet', 'shadow:desired']);
  });

  it('gives a token asked with scope alone neither fleet nor desired', async () => {
    const res = await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: 'p-grants', scope: 'write' } });

    expect(res.body.grants).to.deep.equal(['read', 'write']);
    expect(claimsOf(res.body.token).scope).to.deep.equal(['project:p-grants', 'feed:write']);
  });

  for (const [what, body, mentions] of [
    ['a ttl of 0', { projectid: 'p', ttl: 0 }, 'ttl'],
    ['a ttl over one year', { projectid: 'p', ttl: 31_536_001 }, 'ttl'],
    ['a ttl that is a string', { projectid: 'p', ttl: '60' }, 'ttl'],
    ['a missing projectid', { ttl: 60 }, 'projectid'],
    ['a malformed projectid', { projectid: 'a/b', ttl: 60 }, 'projectid'],
    ['an unknown member', { projectid: 'p', ttl: 60, scope: 'all' }, 'scope'],
    ['an unknown grant', { projectid: 'p', grants: ['fleet', 'admin'] }, 'grants'],
    ['grants that are no list', { projectid: 'p', grants: 'fleet' }, 'grants'],
  ] as const) {
    it(`answers 400 INVALID_BODY naming the member for ${what}`, async () => {
      const res = await stack.admin('POST', '/v2/admin/tokens', { body });

      expectError(res, 400, 'INVALID_BODY');
      expect(res.body.message).to.include(mentions);
    });
  }

  it('answers 401 without the admin token', async () => {
    expectError(await stack.http('POST', '/v2/admin/tokens', { body: { projectid: 'p', ttl: 60 } }), 401, 'MISSING_CREDENTIALS');
  });
});

describe('POST /v2/admin/tokens/key', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
    for (const projectid of ['p-rotate', 'p-restart']) await aDevice(stack, { projectid });
  });
  after(() => stack.stop());

  const issue = async (projectid: string) => (await stack.admin('POST', '/v2/admin/tokens', { body: { projectid, ttl: 600 } })).body.token as string;
  /** The data-store API as a user token's bearer sees it: 401 for a token it does not accept. */
  const metricNamesWith = (token: string) => stack.http('GET', '/v2/feed/api/v1/metricnames', { headers: { authorization: `Bearer ${token}` } });
  const kidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8')).kid;

  it('replaces the signing key: tokens signed before are refused, new ones name the new key and are accepted', async () => {
    const before = await issue('p-rotate');
    expect((await metricNamesWith(before)).status).to.equal(200);

    const res = await stack.admin('POST', '/v2/admin/tokens/key');
    const after = await issue('p-rotate');

    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys('kid');
    expect(kidOf(after)).to.equal(res.body.kid);
    expect(kidOf(before)).to.not.equal(res.body.kid);
    expect((await metricNamesWith(before)).status).to.equal(401);
    expect((await metricNamesWith(after)).status).to.equal(200);
  });

  it('keeps the new key across a restart', async () => {
    await stack.admin('POST', '/v2/admin/tokens/key');
    const token = await issue('p-restart');

    await stack.stop({ keepData: true });
    stack = await startStack({ dataDir: stack.dataDir });

    expect((await metricNamesWith(token)).status).to.equal(200);
  });

  it('answers 401 without the admin token', async () => {
    expectError(await stack.http('POST', '/v2/admin/tokens/key'), 401, 'MISSING_CREDENTIALS');
  });
});

describe('POST /v2/admin/tokens for a project that does not exist (issue 20 §6)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('answers 404 PROJECT_NOT_FOUND for a project without a device, and issues once a device is there', async () => {
    const projectid = `p-${randomUUID().slice(0, 8)}`;

    const refused = await stack.admin('POST', '/v2/admin/tokens', { body: { projectid, ttl: 60 } });
    await aDevice(stack, { projectid });
    const issued = await stack.admin('POST', '/v2/admin/tokens', { body: { projectid, ttl: 60 } });

    expectError(refused, 404, 'PROJECT_NOT_FOUND');
    expect(refused.body.message).to.include(projectid);
    expect(issued.status, issued.text).to.equal(201);
  });
});
