import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMainProcess } from '../../helpers/main-process';

/**
 * Issue 20 §6: the generated admin token was printed on stdout, the stream the structured log goes to (and from
 * there to whatever collects logs). It is now written to DATA_DIR/admin-token and to stderr, once, when it is made.
 */
describe('the generated admin token', function () {
  this.timeout(60_000);

  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'openpie-admin-token-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const run = async () => {
    // trace: every log line the service has, so that none may carry the token.
    const main = startMainProcess({ DATA_DIR: dataDir, PORT: '0', MQTT_PORT: '0', COAP_PORT: '0', LOG_LEVEL: 'trace' });
    await main.waitFor(/"msg":"openpie listening"/);
    main.child.kill('SIGTERM');
    expect(await main.exited).to.equal(0);
    return main;
  };

  it('goes to its file and to stderr once, on the start that makes it, and never into the structured log on stdout', async () => {
    const first = await run();
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const second = await run();

    expect(token).to.have.length.of.at.least(32);
    expect(first.stderr().split(token)).to.have.lengthOf(2);
    expect(first.stderr()).to.include('shown only now');
    expect(first.stdout()).to.include('"msg":"openpie listening"');
    expect(first.stdout()).to.not.include(token);
    expect(second.stdout() + second.stderr()).to.not.include(token);
  });
});
