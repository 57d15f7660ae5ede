import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aDevice } from '../../helpers/devices';
import { expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

describe('DELETE /v2/admin/tokens/{jti} (issue 20 §6)', () => {
  let stack: Stack;
  const projectid = `p-${randomUUID().slice(0, 8)}`;
  before(async () => {
    stack = await startStack();
    await aDevice(stack, { projectid });
  });
  after(() => stack.stop());

  const issue = async () => (await stack.admin('POST', '/v2/admin/tokens', { body: { projectid, ttl: 600 } })).body as { token: string; jti: string };
  /** The data-store API as a user token's bearer sees it. */
  const metricNamesWith = (token: string) => stack.http('GET', '/v2/feed/api/v1/metricnames', { headers: { authorization: `Bearer ${token}` } });

  it('answers the jti the token carries when issuing it', async () => {
    const { token, jti } = await issue();

    expect(jti).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')).jti).to.equal(jti);
  });

  it('answers 204, and the token is refused at once with 401 INVALID_CREDENTIALS saying it was revoked', async () => {
    const { token, jti } = await issue();
    expect((await metricNamesWith(token)).status).to.equal(200);

    const res = await stack.admin('DELETE', `/v2/admin/tokens/${jti}`);

    expect(res.status, res.text).to.equal(204);
    const refused = await metricNamesWith(token);
    expectError(refused, 401, 'INVALID_CREDENTIALS');
    expect(refused.body.message).to.include('revoked');
  });

  it('leaves the other tokens of the project working', async () => {
    const revoked = await issue();
    const kept = await issue();

    await stack.admin('DELETE', `/v2/admin/tokens/${revoked.jti}`);

    expect((await metricNamesWith(kept.token)).status).to.equal(200);
  });

  it('answers 204 again for a token revoked already, and for a jti no token has', async () => {
    const { jti } = await issue();

    const first = await stack.admin('DELETE', `/v2/admin/tokens/${jti}`);
    const again = await stack.admin('DELETE', `/v2/admin/tokens/${jti}`);
    const unknown = await stack.admin('DELETE', `/v2/admin/tokens/${randomUUID()}`);

    expect([first.status, again.status, unknown.status]).to.deep.equal([204, 204, 204]);
  });

  it('takes the jti in capitals as the same token', async () => {
    const { token, jti } = await issue();

    await stack.admin('DELETE', `/v2/admin/tokens/${jti.toUpperCase()}`);

    expectError(await metricNamesWith(token), 401, 'INVALID_CREDENTIALS');
  });

  it('keeps the revocation across a restart', async () => {
    const { token, jti } = await issue();
    await stack.admin('DELETE', `/v2/admin/tokens/${jti}`);

    await stack.stop({ keepData: true });
    stack = await startStack({ dataDir: stack.dataDir });

    expectError(await metricNamesWith(token), 401, 'INVALID_CREDENTIALS');
  });

  for (const [what, jti] of [['a jti that is no UUID', 'not-a-uuid'], ['a UUID with a character too many', `${randomUUID()}0`]] as const) {
    it(`answers 400 INVALID_QUERY naming the jti for ${what}`, async () => {
      const res = await stack.admin('DELETE', `/v2/admin/tokens/${jti}`);

      expectError(res, 400, 'INVALID_QUERY');
      expect(res.body.message).to.include('jti');
    });
  }

  it('answers 401 without the admin token', async () => {
    expectError(await stack.http('DELETE', `/v2/admin/tokens/${randomUUID()}`), 401, 'MISSING_CREDENTIALS');
  });
});
