import { expect } from 'chai';
import { exportJWK, generateKeyPair, JWK } from 'jose';
import { SigningKeyStore } from '../../../src/tokens/port';
import { OpenStores, OpenStoresFn } from './store-under-test';

const aKey = async (): Promise<JWK> => exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey);

/** SigningKeyStore (src/tokens/port.ts): what every adapter must do, whatever it stores in. */
export function signingKeyStoreContract(adapter: string, open: OpenStoresFn): void {
  describe(`SigningKeyStore contract: ${adapter}`, () => {
    let stores: OpenStores;
    let keys: SigningKeyStore;
    before(async () => {
      stores = await open();
    });
    beforeEach(() => {
      keys = stores.freshSigningKeys();
    });
    after(async () => {
      await stores?.dispose();
    });

    it('holds no key before one is created', async () => {
      expect(await keys.read()).to.equal(undefined);
    });

    it('keeps the first key created: a later create answers it and changes nothing', async () => {
      const first = await aKey();
      const second = await aKey();

      expect(await keys.create(first)).to.deep.equal(first);
      expect(await keys.create(second)).to.deep.equal(first);

      expect(await keys.read()).to.deep.equal(first);
    });

    it('gives every one of concurrent creators the same key, the one stored', async () => {
      const candidates = await Promise.all(Array.from({ length: 5 }, aKey));

      const answers = await Promise.all(candidates.map((k) => keys.create(k)));

      const stored = await keys.read();
      expect(candidates).to.deep.include(stored);
      for (const answer of answers) expect(answer).to.deep.equal(stored);
    });

    it('replaces the key on rotation', async () => {
      await keys.create(await aKey());
      const next = await aKey();

      await keys.replace(next);

      expect(await keys.read()).to.deep.equal(next);
    });
  });
}
