import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Application } from '../../../src/applications/application';
import { ApplicationStore } from '../../../src/applications/port';
import { testCredentialKey } from './store-under-test';

export interface OpenApplicationStore {
  store: ApplicationStore;
  /** Another adapter on the same data, as another node, or the service after a restart, opens it. */
  another(): ApplicationStore;
  /** The secret column of a key's row as the backend holds it. */
  storedSecret(key: string): Promise<string>;
  dispose(): Promise<void>;
}

/** A record as the service makes it: a random key, the secret's digest; fields given win. */
const anApplication = (fields: Partial<Application> = {}): Application => ({
  key: randomUUID(),
  name: 'flows',
  projectid: `p-${randomUUID().slice(0, 8)}`,
  groups: [],
  enabled: true,
  secret: testCredentialKey.digest(`secret-${randomUUID()}`),
  created: Date.UTC(2025, 0, 1),
  ...fields,
});

/** ApplicationStore (src/applications/port.ts): application keys, shared by every node (issue 22). */
export function applicationStoreContract(adapter: string, open: () => Promise<OpenApplicationStore>): void {
  describe(`ApplicationStore contract: ${adapter}`, () => {
    let opened: OpenApplicationStore;
    let store: ApplicationStore;
    before(async () => {
      opened = await open();
      store = opened.store;
    });
    after(async () => {
      await opened?.dispose();
    });

    it('reads back what it stored, through another adapter on the same data too', async () => {
      const app = anApplication({ name: 'Node-RED ☕', groups: ['lights', 'doors'] });

      expect(await store.insert(app)).to.equal(true);

      expect(await store.get(app.key)).to.deep.equal(app);
      expect(await opened.another().get(app.key)).to.deep.equal(app);
    });

    it('answers undefined for a key never stored', async () => {
      expect(await store.get(randomUUID())).to.equal(undefined);
    });

    it('keeps the secret column as given: the digest, never anything else', async () => {
      const app = anApplication();
      await store.insert(app);

      expect(await opened.storedSecret(app.key)).to.equal(app.secret).and.match(/^hmac-sha256:/);
    });

    it('refuses a key that exists (false), leaving the first record', async () => {
      const app = anApplication();
      await store.insert(app);

      expect(await store.insert({ ...app, name: 'other', secret: testCredentialKey.digest('x') })).to.equal(false);

      expect(await store.get(app.key)).to.deep.equal(app);
    });

    it('lists the keys of one project by age, or of every project by project then age', async () => {
      const projectid = `p-${randomUUID().slice(0, 8)}`;
      const older = anApplication({ projectid, created: 1000 });
      const newer = anApplication({ projectid, created: 2000 });
      const elsewhere = anApplication();
      await store.insert(newer);
      await store.insert(elsewhere);
      await store.insert(older);

      const ofProject = await store.list({ projectid });
      const all = await store.list({});

      expect(ofProject).to.deep.equal([older, newer]);
      expect(all.map((a) => a.key)).to.include.members([older.key, newer.key, elsewhere.key]);
      const projects = all.map((a) => a.projectid);
      expect(projects).to.deep.equal([...projects].sort());
      expect(await store.list({ projectid: `p-${randomUUID().slice(0, 8)}` })).to.deep.equal([]);
    });

    it('updates only the members given, each of them, and answers false for an unknown key', async () => {
      const app = anApplication({ groups: ['a'] });
      await store.insert(app);
      const secret = testCredentialKey.digest('rotated');

      expect(await store.update(app.key, { enabled: false })).to.equal(true);
      expect(await store.update(app.key, { secret })).to.equal(true);
      expect(await store.update(app.key, { name: 'renamed', groups: [] })).to.equal(true);
      expect(await store.update(app.key, {})).to.equal(true);

      expect(await store.get(app.key)).to.deep.equal({ ...app, enabled: false, secret, name: 'renamed', groups: [] });
      expect(await store.update(randomUUID(), { enabled: false })).to.equal(false);
      expect(await store.update(randomUUID(), {})).to.equal(false);
    });

    it('deletes a key (true once, then false) and never brings it back with an update', async () => {
      const app = anApplication();
      await store.insert(app);

      expect(await store.delete(app.key)).to.equal(true);
      expect(await store.delete(app.key)).to.equal(false);
      expect(await store.update(app.key, { enabled: true })).to.equal(false);

      expect(await store.get(app.key)).to.equal(undefined);
      expect(await opened.another().get(app.key)).to.equal(undefined);
    });
  });
}
