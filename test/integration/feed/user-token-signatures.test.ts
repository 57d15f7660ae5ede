import { expect } from 'chai';
import { createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { aDevice, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

const QUERY = '/v2/feed/api/v1/datapoints/query';
/** The order n of the P-256 group (SEC 2 §2.4.2). */
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

const sOf = (token: string) => BigInt(`0x${Buffer.from(token.split('.')[2], 'base64url').subarray(32).toString('hex')}`);

/** The same token with (r, n - s) for (r, s): a signature that verifies as well as the original. */
function highSTwin(token: string): string {
  const [head, payload, signature] = token.split('.');
  const r = Buffer.from(signature, 'base64url').subarray(0, 32);
  const twinS = Buffer.from((N - sOf(token)).toString(16).padStart(64, '0'), 'hex');
  return `${head}.${payload}.${Buffer.concat([r, twinS]).toString('base64url')}`;
}

/** Issue 20 §6: ECDSA's (r, n - s) twin is a second text for the same token; only the low-S form is taken. */
describe('user tokens: low-S ES256 signatures only', () => {
  let stack: Stack;
  let lamp: TestDevice;
  before(async () => {
    stack = await startStack();
    lamp = await aDevice(stack);
  });
  after(() => stack.stop());

  const query = (token: string) =>
    stack.http('POST', QUERY, { headers: { authorization: `Bearer ${token}` }, body: { start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: lamp.deviceid }] } });
  const issue = async () => (await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: lamp.projectid, ttl: 600 } })).body.token as string;

  it('issues every token with s <= n/2', async () => {
    for (let i = 0; i < 20; i++) expect(sOf(await issue()) <= N / 2n).to.equal(true);
  });

  it('refuses the high-S twin of a valid token with 401, though the twin\'s signature verifies', async () => {
    const token = await issue();
    const twin = highSTwin(token);
    const jwk = JSON.parse(readFileSync(join(stack.dataDir, 'user-token-key.json'), 'utf8'));
    const publicKey = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, format: 'jwk' });
    const [head, payload, signature] = twin.split('.');
    expect(verify('sha256', Buffer.from(`${head}.${payload}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'))).to.equal(true);

    const original = await query(token);
    const refused = await query(twin);

    expect(original.status, original.text).to.equal(200);
    expect(refused.status).to.equal(401);
    expect(refused.body.code).to.equal('INVALID_CREDENTIALS');
  });
});
