import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileSigningKeyStore } from '../../src/adapters/files/file-signing-key-store';
import { AppError } from '../../src/core/errors';
import { cachedRevokedTokens } from '../../src/tokens/cached-revoked-tokens';
import { RevokedTokens } from '../../src/tokens/port';
import { createUserTokens, UserTokens } from '../../src/tokens/user-tokens';
import { memoryFeed } from '../helpers/memory-ledger';

/** A revocation store shared by the nodes of a test, counting its reads. */
function sharedRevocations() {
  const until = new Map<string, number>();
  const store = {
    reads: 0,
    revoked: [] as { jti: string; expiresAt: number }[],
    async revoke(jti: string, expiresAt: number) {
      until.set(jti, expiresAt);
      store.revoked.push({ jti, expiresAt });
    },
    async isRevoked(jti: string) {
      store.reads++;
      return until.has(jti);
    },
  } satisfies RevokedTokens & Record<string, unknown>;
  return store;
}

/** The error `verify` rejects with; undefined when it answers. */
const refusalOf = (tokens: UserTokens, token: string) => tokens.verify(token).then(() => undefined, (err: unknown) => err);

describe('revoking one user token (issue 20 §6)', () => {
  let dir: string;
  let clock: number;
  const now = () => clock;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'openpie-revoke-'));
    clock = Date.now();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A node on the shared key file and revocation store, with its own cache of revocations. */
  const aNode = (store: RevokedTokens, feed: ReturnType<typeof memoryFeed>, maxAgeMs = 5000) => {
    const changes = feed.node();
    return createUserTokens({
      keys: createFileSigningKeyStore(join(dir, 'key.json')),
      changes,
      now,
      revoked: cachedRevokedTokens(store, changes, { maxAgeMs, now }),
    });
  };

  it('refuses the revoked token at once with INVALID_CREDENTIALS naming the revocation, and accepts the others', async () => {
    const tokens = await aNode(sharedRevocations(), memoryFeed());
    const revoked = await tokens.issue('p1', 600);
    const kept = await tokens.issue('p1', 600);
    expect(await tokens.verify(revoked.token)).to.include({ projectid: 'p1' });

    await tokens.revoke(revoked.jti);

    const err = await refusalOf(tokens, revoked.token);
    expect(err).to.be.instanceOf(AppError).and.include({ code: 'INVALID_CREDENTIALS' });
    expect((err as AppError).message).to.include('revoked').and.include(revoked.jti);
    expect(await tokens.verify(kept.token)).to.include({ projectid: 'p1' });
  });

  it('answers the jti the token carries when issuing it', async () => {
    const tokens = await aNode(sharedRevocations(), memoryFeed());

    const { token, jti } = await tokens.issue('p1', 60);

    expect(JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).jti).to.equal(jti);
  });

  it('keeps a revocation a year and a day, past the end of any token', async () => {
    const store = sharedRevocations();
    const tokens = await aNode(store, memoryFeed());

    await tokens.revoke('3f0c5a52-8d7e-4c1b-9a4e-2b6f1d0c7e95');

    expect(store.revoked).to.deep.equal([{ jti: '3f0c5a52-8d7e-4c1b-9a4e-2b6f1d0c7e95', expiresAt: clock + (365 + 1) * 86_400_000 }]);
  });

  it('is obeyed by another node on the change notice, though it had kept "not revoked"', async () => {
    const store = sharedRevocations();
    const feed = memoryFeed();
    const [node1, node2] = [await aNode(store, feed), await aNode(store, feed)];
    const { token, jti } = await node1.issue('p1', 600);
    await node2.verify(token);

    await node1.revoke(jti);

    expect(await refusalOf(node2, token)).to.include({ code: 'INVALID_CREDENTIALS' });
  });

  it('is obeyed by a node that missed the notice once its copy is older than the max age', async () => {
    const store = sharedRevocations();
    const feed = memoryFeed();
    const [node1, node2] = [await aNode(store, feed, 5000), await aNode(store, feed, 5000)];
    const { token, jti } = await node1.issue('p1', 600);
    await node2.verify(token);
    feed.cut(true);

    await node1.revoke(jti);
    clock += 4999;
    const stillKept = await refusalOf(node2, token);
    clock += 1;

    expect(stillKept, 'the copy is fresh for 5 s').to.equal(undefined);
    expect(await refusalOf(node2, token)).to.include({ code: 'INVALID_CREDENTIALS' });
  });

  it('fails the check, never lets the token pass, when the revocations cannot be read', async () => {
    const store = sharedRevocations();
    const tokens = await aNode(store, memoryFeed());
    const { token } = await tokens.issue('p1', 600);
    // Fault injection: the store stops answering.
    store.isRevoked = () => Promise.reject(new AppError('BACKEND_UNAVAILABLE', 'store down'));

    expect(await refusalOf(tokens, token)).to.include({ code: 'BACKEND_UNAVAILABLE' });
  });

  it('reads the revocations once per token and max age, and never for a token whose signature fails', async () => {
    const store = sharedRevocations();
    const tokens = await aNode(store, memoryFeed());
    const { token } = await tokens.issue('p1', 600);
    const [header, payload, signature] = token.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), ctx: { projectid: 'p2' } })).toString('base64url')}.${signature}`;

    for (let i = 0; i < 3; i++) await tokens.verify(token);
    expect(await tokens.verify(forged)).to.equal(undefined);

    expect(store.reads).to.equal(1);
  });
});
