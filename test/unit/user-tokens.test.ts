import { expect } from 'chai';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUserTokens } from '../../src/tokens/user-tokens';

describe('user tokens', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'openpie-keys-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('verify on every node that shares the key file, even when both start at once on a new file', async () => {
    const file = join(dir, 'shared', 'user-token-key.json');
    const [node1, node2] = await Promise.all([createUserTokens(file), createUserTokens(file)]);

    const { token } = await node1.issue('p1', 60);

    expect(await node2.verify(token)).to.include({ projectid: 'p1' });
    expect(statSync(file).mode & 0o077).to.equal(0);
  });

  it('are refused by a node with another key', async () => {
    const node1 = await createUserTokens(join(dir, 'a.json'));
    const other = await createUserTokens(join(dir, 'b.json'));

    const { token } = await node1.issue('p1', 60);

    expect(await other.verify(token)).to.equal(undefined);
  });
});
