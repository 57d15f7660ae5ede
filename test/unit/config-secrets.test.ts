import { expect } from 'chai';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, CONFIG_VARIABLES, loadConfig } from '../../src/config/config';

const errorOf = (env: NodeJS.ProcessEnv): string => {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
};

const TOKEN = 'a-long-enough-admin-token-of-40-chars-xy';

describe('configuration: secrets from files (*_FILE) and placeholder secrets (issue 21)', () => {
  let dir: string;
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'openpie-secrets-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a _FILE variant for each secret the service reads', () => {
    const names = CONFIG_VARIABLES.map((v) => v.name);
    for (const secret of ['ADMIN_TOKEN', 'METRICS_TOKEN', 'BACKBONE_PASSWORD', 'CASSANDRA_PASSWORD', 'SESSION_STORE_PASSWORD']) {
      expect(names).to.include(`${secret}_FILE`);
    }
  });

  it("takes the file's content less one trailing newline as the value", () => {
    const config = loadConfig({
      ADMIN_TOKEN_FILE: file('admin', `${TOKEN}\n`),
      METRICS_TOKEN_FILE: file('metrics', 'metrics-token-0123456789\r\n'),
      BACKBONE_URL: 'mqtt://backbone:1883',
      BACKBONE_PASSWORD_FILE: file('backbone', 'pass word \n\n'),
      STORE: 'cassandra',
      CASSANDRA_USERNAME: 'svc',
      CASSANDRA_PASSWORD_FILE: file('cassandra', 'cassandra-secret'),
    });
    expect(config.adminToken).to.equal(TOKEN);
    expect(config.metricsToken).to.equal('metrics-token-0123456789');
    expect(config.backbone?.password).to.equal('pass word \n');
    expect(config.store).to.deep.include({ credentials: { username: 'svc', password: 'cassandra-secret' } });
  });

  it('puts SESSION_STORE_PASSWORD into a SESSION_STORE_URL without one, and refuses a URL that has one', () => {
    const config = loadConfig({ SESSION_STORE: 'redis', SESSION_STORE_URL: 'redis://redis:6379/0', SESSION_STORE_PASSWORD_FILE: file('redis', 's3cret/@x\n') });
    expect(config.sessions.store).to.deep.include({ url: 'redis://:s3cret%2F%40x@redis:6379/0' });
    expect(new URL((config.sessions.store as { url: string }).url).password).to.equal('s3cret%2F%40x');
    expect(errorOf({ SESSION_STORE: 'redis', SESSION_STORE_URL: 'redis://:other@redis:6379', SESSION_STORE_PASSWORD: 'secret' })).to.contain(
      'SESSION_STORE_PASSWORD: SESSION_STORE_URL has a password already',
    );
  });

  it('refuses a secret set both directly and from a file, naming both', () => {
    expect(errorOf({ ADMIN_TOKEN: TOKEN, ADMIN_TOKEN_FILE: file('admin', TOKEN) })).to.contain('ADMIN_TOKEN, ADMIN_TOKEN_FILE: set one or the other, not both');
  });

  it('names the variable and the path of a file it cannot read, never what a file holds', () => {
    const missing = join(dir, 'missing');
    expect(errorOf({ METRICS_TOKEN_FILE: missing })).to.contain(`METRICS_TOKEN_FILE: cannot read ${missing} (ENOENT)`);
    expect(errorOf({ METRICS_TOKEN_FILE: dir })).to.contain(`METRICS_TOKEN_FILE: cannot read ${dir} (EISDIR)`);
    if (process.getuid?.() !== 0) {
      const locked = file('locked', TOKEN);
      chmodSync(locked, 0o000);
      expect(errorOf({ ADMIN_TOKEN_FILE: locked })).to.contain(`ADMIN_TOKEN_FILE: cannot read ${locked} (EACCES)`);
    }
    const short = errorOf({ ADMIN_TOKEN_FILE: file('short', 'too-short\n') });
    expect(short).to.contain('ADMIN_TOKEN: must be at least 16 characters');
    expect(short).to.not.contain('too-short');
  });

  it('refuses an empty secret file rather than running without the secret', () => {
    const empty = file('empty', '\n');
    expect(errorOf({ METRICS_TOKEN_FILE: empty })).to.contain(`METRICS_TOKEN_FILE: ${empty} is empty`);
  });

  it("refuses the old compose file's placeholders and any secret starting with change-me, without echoing it", () => {
    const message = errorOf({
      ADMIN_TOKEN: 'change-me-admin-token-0123456789',
      BACKBONE_URL: 'mqtt://backbone:1883',
      BACKBONE_PASSWORD: 'change-me-backbone-password',
      METRICS_TOKEN_FILE: file('metrics', 'CHANGE-ME-metrics-token-please\n'),
    });
    for (const name of ['ADMIN_TOKEN', 'BACKBONE_PASSWORD', 'METRICS_TOKEN']) {
      expect(message).to.contain(`${name}: starts with "change-me", a placeholder from an example: set a secret of your own`);
    }
    expect(message).to.not.contain('change-me-admin-token-0123456789');
    expect(message).to.not.contain('change-me-backbone-password');
    expect(loadConfig({ ADMIN_TOKEN: 'please-change-me-later-0123' }).adminToken).to.equal('please-change-me-later-0123');
  });
});
