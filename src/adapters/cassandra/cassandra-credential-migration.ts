import { CredentialKey } from '../../devices/credential-key';
import { DIGEST_PREFIX, isKeptDigest, keyIdOf } from '../../devices/credentials';
import { CredentialMigration, CredentialMigrationStatus } from '../../devices/port';
import { CassandraConnection } from './cassandra-client';
import { translated } from './cassandra-errors';

const NAME = 'credential-digests';
/** Rows read per page of the scan. */
const PAGE_SIZE = 500;

interface CredentialRow {
  deviceid: string;
  token: string;
  secret: string;
}

/**
 * `credential-digests` in Cassandra (issue 20 §1). Nodes of this release write digests and accept rows an older
 * release wrote in plaintext; those rows stay as they are while older nodes may still run, since an older node
 * compares plaintexts and would refuse a digest. `complete`, run by an operator once every node is new (POST
 * /v2/admin/migrations/credential-digests, `openpie migrations complete`), rewrites each such row with a lightweight
 * transaction conditional on the plaintext read, so a rotation racing it is never overwritten; it may run on several
 * nodes at once and again (idempotent), and records the migration as done in `migrations`.
 */
export function createCassandraCredentialMigration(conn: CassandraConnection, key: CredentialKey, nodeId: string): CredentialMigration {
  const { client, tables } = conn;
  const cql = {
    scan: `SELECT deviceid, "token", secret FROM ${tables.devices}`,
    rewrite: `UPDATE ${tables.devices} SET "token" = ?, secret = ? WHERE deviceid = ? IF "token" = ? AND secret = ?`,
    done: `SELECT done FROM ${tables.migrations} WHERE name = ?`,
    markDone: `INSERT INTO ${tables.migrations} (name, done, by_node) VALUES (?, ?, ?) IF NOT EXISTS`,
  };
  const keep = (kept: string) => (isKeptDigest(kept) ? kept : key.digest(kept));

  /** Every row still holding a plaintext credential (a scan of the registry, paged: an operator's command). */
  async function plaintextRows(): Promise<CredentialRow[]> {
    const found: CredentialRow[] = [];
    for await (const row of await client.execute(cql.scan, [], { prepare: true, fetchSize: PAGE_SIZE })) {
      const r = { deviceid: String(row.get('deviceid')), token: String(row.get('token') ?? ''), secret: String(row.get('secret') ?? '') };
      if (r.token !== '' && (!isKeptDigest(r.token) || !isKeptDigest(r.secret))) found.push(r);
    }
    return found;
  }

  async function status(): Promise<CredentialMigrationStatus> {
    const [done, rows] = await Promise.all([client.execute(cql.done, [NAME], { prepare: true }), plaintextRows()]);
    return { name: NAME, done: done.first() !== null, plaintextDevices: rows.length };
  }

  return {
    status: translated('read the credential migration', status),
    complete: translated('complete the credential migration', async () => {
      let rewritten = 0;
      for (const r of await plaintextRows()) {
        const rs = await client.execute(cql.rewrite, [keep(r.token), keep(r.secret), r.deviceid, r.token, r.secret], { prepare: true });
        if (rs.first().get('[applied]') === true) rewritten++;
      }
      await client.execute(cql.markDone, [NAME, Date.now(), nodeId], { prepare: true });
      return { rewritten, ...(await status()) };
    }),
  };
}

/**
 * Refuses to start a node whose CREDENTIAL_KEY_FILE differs from the key the registry's digests were made with (every
 * device would be refused on it): a sample of rows is enough, since every node of a cluster must hold the same key.
 */
export async function checkCassandraCredentialKey(conn: CassandraConnection, key: CredentialKey): Promise<void> {
  const rows = (await conn.client.execute(`SELECT "token" FROM ${conn.tables.devices} LIMIT 50`, [], { prepare: true })).rows;
  const other = rows.map((row) => String(row.get('token') ?? '')).find((t) => isKeptDigest(t) && !t.startsWith(`${DIGEST_PREFIX}${key.id}:`));
  if (other !== undefined) {
    throw new Error(`the registry's credentials were digested with credential key ${keyIdOf(other)}, but ` +
      `CREDENTIAL_KEY_FILE holds key ${key.id}: give every node the key file the cluster was started with`);
  }
}
