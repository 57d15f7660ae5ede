import type { JWK } from 'jose';
import * as t from 'io-ts';
import { SigningKeyStore } from '../../tokens/port';
import { decodeRow } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { translateCassandraError } from './cassandra-errors';

const KeyRow = t.type({ jwk: t.string });
/** The row of the user-token key; named, so that keys for other uses (or tests) can sit beside it. */
export const USER_TOKEN_KEY = 'user-tokens';

const parseKey = (row: unknown): JWK => JSON.parse(decodeRow(KeyRow, row).jwk) as JWK;

/**
 * The user-token signing key in `signing_keys`, shared by every node. The first node to start creates it (INSERT
 * ... IF NOT EXISTS: of two nodes starting at once, one key wins and both use it); rotation replaces it with a
 * lightweight transaction too, so no plain write ever races a conditional one on the row. The key is as secret as
 * the keyspace: whoever can read the table can sign tokens.
 */
export function createCassandraSigningKeyStore({ client, tables }: CassandraConnection, name = USER_TOKEN_KEY): SigningKeyStore {
  const cql = {
    select: `SELECT jwk FROM ${tables.signingKeys} WHERE name = ?`,
    insert: `INSERT INTO ${tables.signingKeys} (name, jwk) VALUES (?, ?) IF NOT EXISTS`,
    replace: `UPDATE ${tables.signingKeys} SET jwk = ? WHERE name = ? IF EXISTS`,
  };
  return {
    async read() {
      try {
        const row = (await client.execute(cql.select, [name])).first();
        return row === null ? undefined : parseKey(row);
      } catch (err) {
        throw translateCassandraError(err, 'read the signing key');
      }
    },
    async create(key) {
      try {
        const row = (await client.execute(cql.insert, [name, JSON.stringify(key)])).first();
        return row.get('[applied]') === true ? key : parseKey(row);
      } catch (err) {
        throw translateCassandraError(err, 'create the signing key');
      }
    },
    async replace(key) {
      try {
        const applied = (await client.execute(cql.replace, [JSON.stringify(key), name])).first().get('[applied]') === true;
        if (!applied) await client.execute(cql.insert, [name, JSON.stringify(key)]);
      } catch (err) {
        throw translateCassandraError(err, 'replace the signing key');
      }
    },
  };
}
