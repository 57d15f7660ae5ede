import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { RevokedTokens } from '../../../src/tokens/port';
import { sleep } from '../../helpers/mqtt';

export interface OpenRevokedTokens {
  revoked: RevokedTokens;
  /** Another adapter on the same data, as another node, or the service after a restart, opens it. */
  another(): RevokedTokens;
  /** The jtis of the rows stored now, expired or not, as the backend holds them. */
  storedJtis(): Promise<string[]>;
  dispose(): Promise<void>;
}

const DAY_MS = 86_400_000;

/** RevokedTokens (src/tokens/port.ts): user tokens refused by `jti` until they would expire anyway (issue 20 §6). */
export function revokedTokensContract(adapter: string, open: () => Promise<OpenRevokedTokens>): void {
  describe(`RevokedTokens contract: ${adapter}`, () => {
    let opened: OpenRevokedTokens;
    let revoked: RevokedTokens;
    before(async () => {
      opened = await open();
      revoked = opened.revoked;
    });
    after(async () => {
      await opened?.dispose();
    });

    it('answers false for a jti never revoked', async () => {
      expect(await revoked.isRevoked(randomUUID())).to.equal(false);
    });

    it('answers true once revoked, through another adapter on the same data too, and only for that jti', async () => {
      const jti = randomUUID();

      await revoked.revoke(jti, Date.now() + DAY_MS);

      expect(await revoked.isRevoked(jti)).to.equal(true);
      expect(await opened.another().isRevoked(jti)).to.equal(true);
      expect(await revoked.isRevoked(randomUUID())).to.equal(false);
    });

    it('takes the same revocation twice', async () => {
      const jti = randomUUID();

      await revoked.revoke(jti, Date.now() + DAY_MS);
      await revoked.revoke(jti, Date.now() + 2 * DAY_MS);

      expect(await revoked.isRevoked(jti)).to.equal(true);
    });

    it('records nothing for a token past its expiry', async () => {
      const jti = randomUUID();

      await revoked.revoke(jti, Date.now() - 1000);

      expect(await revoked.isRevoked(jti)).to.equal(false);
    });

    it('forgets a revocation once its token has expired, and keeps no row of it once another is recorded', async () => {
      const [short, long] = [randomUUID(), randomUUID()];
      await revoked.revoke(short, Date.now() + 1000);
      expect(await revoked.isRevoked(short)).to.equal(true);

      await sleep(1300);
      const afterExpiry = await revoked.isRevoked(short);
      await revoked.revoke(long, Date.now() + DAY_MS);

      expect(afterExpiry).to.equal(false);
      const stored = await opened.storedJtis();
      expect(stored).to.include(long).and.not.include(short);
    });
  });
}
