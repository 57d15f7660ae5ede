import { expect } from 'chai';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareDataDir } from '../../src/config/data-dir';
import { loadCredentialKey } from '../../src/devices/credential-key';
import { generateKey } from '../../src/devices/credentials';

describe('the credential key (issue 20 §1)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'openpie-key-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is made on first start with mode 0600, and the same key is read on the next', () => {
    const file = join(dir, 'credential-key');
    const first = loadCredentialKey(file, { createIfMissing: true });
    const again = loadCredentialKey(file, { createIfMissing: true });

    expect(first.created).to.equal(true);
    expect(again.created).to.equal(false);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(again.key.digest('a-token')).to.equal(first.key.digest('a-token'));
  });

  it('is required when it may not be made (a cluster\'s nodes are given one), and refused when too short', () => {
    expect(() => loadCredentialKey(join(dir, 'missing'), { createIfMissing: false })).to.throw(/CREDENTIAL_KEY_FILE/);
    writeFileSync(join(dir, 'short'), 'abc\n');
    expect(() => loadCredentialKey(join(dir, 'short'), { createIfMissing: false })).to.throw(/32 random bytes/);
  });

  it('digests as hmac-sha256:<key id>:<mac>, which only the same credential matches and no device key can look like', () => {
    const { key } = loadCredentialKey(join(dir, 'k'), { createIfMissing: true });
    const token = generateKey();
    const kept = key.digest(token);

    expect(kept).to.match(new RegExp(`^hmac-sha256:${key.id}:[A-Za-z0-9_-]{43}$`));
    expect(kept).not.to.include(token);
    expect(key.matches(token, kept)).to.equal(true);
    expect(key.matches(generateKey(), kept)).to.equal(false);
    expect(key.matches(kept, kept), 'the digest is no credential').to.equal(false);
  });

  it('is told apart from another key: a digest made with one never matches under the other', () => {
    const a = loadCredentialKey(join(dir, 'a'), { createIfMissing: true }).key;
    const b = loadCredentialKey(join(dir, 'b'), { createIfMissing: true }).key;

    expect(a.id).not.to.equal(b.id);
    expect(a.digest('same-token-value')).not.to.equal(b.digest('same-token-value'));
    expect(b.matches('same-token-value', a.digest('same-token-value'))).to.equal(false);
    expect(a.matches('same-token-value', a.digest('same-token-value'))).to.equal(true);
    expect(a.matches('same-token-value', `${a.digest('same-token-value')}x`), 'a malformed digest').to.equal(false);
  });
});

describe('DATA_DIR modes (issue 20 §1)', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'openpie-datadir-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const warnings = () => {
    const seen: { paths: string[] }[] = [];
    return { seen, logger: { warn: (obj: { paths: string[] }) => void seen.push(obj) } as never };
  };

  it('makes a new DATA_DIR 0700, silently', () => {
    const { seen, logger } = warnings();
    prepareDataDir(join(root, 'data'), logger);

    expect(statSync(join(root, 'data')).mode & 0o777).to.equal(0o700);
    expect(seen).to.deep.equal([]);
  });

  it('keeps an existing DATA_DIR as it is, and warns when it or a file in it is readable by others', () => {
    const data = join(root, 'data');
    mkdirSync(data, { mode: 0o755 });
    chmodSync(data, 0o755);
    writeFileSync(join(data, 'openpie.db'), '', { mode: 0o644 });
    writeFileSync(join(data, 'admin-token'), 'x', { mode: 0o600 });
    const { seen, logger } = warnings();

    prepareDataDir(data, logger);

    expect(statSync(data).mode & 0o777).to.equal(0o755);
    expect(seen).to.have.lengthOf(1);
    expect(seen[0].paths).to.have.members([data, join(data, 'openpie.db')]);
    expect(readFileSync(join(data, 'admin-token'), 'utf8')).to.equal('x');
  });
});
