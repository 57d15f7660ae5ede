import { expect } from 'chai';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importJWK, SignJWT } from 'jose';
import { createFileSigningKeyStore } from '../../src/adapters/files/file-signing-key-store';
import { withLowS } from '../../src/tokens/low-s';
import { createUserTokens, hasGrant } from '../../src/tokens/user-tokens';

/** The JWT `scope` claim, read without checking the signature. */
const scopeClaimOf = (token: string): unknown => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')).scope;
import { memoryFeed } from '../helpers/memory-ledger';

describe('user tokens', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'openpie-keys-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const keysIn = (file: string) => createFileSigningKeyStore(join(dir, file));

  it('verify on every node that shares the key, even when both start at once on a new key file', async () => {
    const [node1, node2] = await Promise.all([createUserTokens({ keys: keysIn('shared/key.json') }), createUserTokens({ keys: keysIn('shared/key.json') })]);

    const { token } = await node1.issue('p1', 60);

    expect(await node2.verify(token)).to.include({ projectid: 'p1' });
    expect(statSync(join(dir, 'shared/key.json')).mode & 0o077).to.equal(0);
  });

  it('are refused by a node with another key', async () => {
    const node1 = await createUserTokens({ keys: keysIn('a.json') });
    const other = await createUserTokens({ keys: keysIn('b.json') });

    const { token } = await node1.issue('p1', 60);

    expect(await other.verify(token)).to.equal(undefined);
  });

  it('carry their scope: read by default, write when issued so', async () => {
    const tokens = await createUserTokens({ keys: keysIn('k.json') });

    const read = await tokens.issue('p1', 60);
    const write = await tokens.issue('p1', 60, ['write']);

    expect(read.scope).to.equal('read');
    expect(await tokens.verify(read.token)).to.include({ projectid: 'p1', scope: 'read' });
    expect(write.scope).to.equal('write');
    expect(await tokens.verify(write.token)).to.include({ projectid: 'p1', scope: 'write' });
  });

  it('carry the grants they were issued with, read always among them, each its own scope entry', async () => {
    const tokens = await createUserTokens({ keys: keysIn('k.json') });

    const issued = await tokens.issue('p1', 60, ['desired', 'fleet', 'fleet']);
    const claims = await tokens.verify(issued.token);

    expect(issued.grants).to.deep.equal(['read', 'fleet', 'desired']);
    expect(claims?.grants).to.deep.equal(['read', 'fleet', 'desired']);
    expect(claims?.scope).to.equal('read');
    expect(hasGrant(claims!, 'fleet')).to.equal(true);
    expect(hasGrant(claims!, 'write')).to.equal(false);
    expect(scopeClaimOf(issued.token)).to.deep.equal(['project:p1', 'shadow:fleet', 'shadow:desired']);
  });

  it('issued as before grants (read, or feed:write) hold neither fleet nor desired', async () => {
    const keys = keysIn('old.json');
    const tokens = await createUserTokens({ keys });
    const key = await importJWK((await keys.read())!, 'ES256');
    const at = Math.floor(Date.now() / 1000);
    const old = async (scope: string[]) => withLowS(await new SignJWT({ ctx: { projectid: 'p1' }, scope })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).setIssuer('cer:usertoken').setIssuedAt(at).setExpirationTime(at + 60).sign(key));

    const read = await tokens.verify(await old(['project:p1']));
    const write = await tokens.verify(await old(['project:p1', 'feed:write']));

    expect(read?.grants).to.deep.equal(['read']);
    expect(write?.grants).to.deep.equal(['read', 'write']);
    for (const claims of [read!, write!]) {
      expect(hasGrant(claims, 'fleet')).to.equal(false);
      expect(hasGrant(claims, 'desired')).to.equal(false);
    }
  });

  it('are refused once the key is rotated, on the node that rotated it and, told so, on the others', async () => {
    const feed = memoryFeed();
    const node1 = await createUserTokens({ keys: keysIn('key.json'), changes: feed.node() });
    const node2 = await createUserTokens({ keys: keysIn('key.json'), changes: feed.node() });
    const before = (await node1.issue('p1', 60)).token;

    const { kid } = await node1.rotateKey();
    const after = (await node2.issue('p1', 60)).token;

    expect(await node1.verify(before)).to.equal(undefined);
    expect(await node2.verify(before)).to.equal(undefined);
    expect(await node1.verify(after)).to.include({ projectid: 'p1' });
    expect(kid).to.match(/^[A-Za-z0-9_-]{43}$/);
  });

  it('go on being checked with the key a node has while the store cannot be read', async () => {
    const keys = keysIn('key.json');
    let down = false;
    // Fault injection: the store stops answering reads after the start.
    const flaky = { ...keys, read: () => (down ? Promise.reject(new Error('store down')) : keys.read()) };
    const tokens = await createUserTokens({ keys: flaky, maxAgeMs: 0 });
    const { token } = await tokens.issue('p1', 60);

    down = true;

    expect(await tokens.verify(token)).to.include({ projectid: 'p1' });
    expect(await tokens.verify((await tokens.issue('p2', 60)).token)).to.include({ projectid: 'p2' });
  });

  it('accept tokens made before keys had ids, while the key is the same (in their low-S form, issue 20)', async () => {
    const keys = keysIn('key.json');
    const tokens = await createUserTokens({ keys });
    const privateKey = await importJWK((await keys.read())!, 'ES256');
    const now = Math.floor(Date.now() / 1000);
    const legacy = withLowS(await new SignJWT({ ctx: { projectid: 'p1' } })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .setIssuer('cer:usertoken')
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(privateKey));

    expect(await tokens.verify(legacy)).to.include({ projectid: 'p1' });
  });
});
