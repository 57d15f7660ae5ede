import { types } from 'cassandra-driver';
import * as t from 'io-ts';
import { RevokedTokens } from '../../tokens/port';
import { BigintNumber, decodeRow } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { translateCassandraError } from './cassandra-errors';

const ExpiresRow = t.type({ expires: BigintNumber });

/**
 * Revoked user tokens in `revoked_tokens` (cassandra-schema.ts), shared by every node: one row per `jti`, written with
 * a TTL that ends when the token would expire anyway, so Cassandra forgets it by itself. `expires` is kept beside it
 * so that a read never answers a revocation past its time, whatever the clocks of the nodes say about the TTL.
 */
export function createCassandraRevokedTokens({ client, tables }: CassandraConnection, now: () => number = Date.now): RevokedTokens {
  const cql = {
    insert: `INSERT INTO ${tables.revokedTokens} (jti, expires) VALUES (?, ?) USING TTL ?`,
    select: `SELECT expires FROM ${tables.revokedTokens} WHERE jti = ?`,
  };
  return {
    async revoke(jti, expiresAt) {
      const ttlSeconds = Math.ceil((expiresAt - now()) / 1000);
      // A token that has expired already needs no record (and Cassandra takes no TTL below 1 s).
      if (ttlSeconds <= 0) return;
      try {
        await client.execute(cql.insert, [jti, types.Long.fromNumber(expiresAt), ttlSeconds]);
      } catch (err) {
        throw translateCassandraError(err, 'revoke the user token');
      }
    },
    async isRevoked(jti) {
      try {
        const row = (await client.execute(cql.select, [jti])).first();
        return row !== null && decodeRow(ExpiresRow, row).expires > now();
      } catch (err) {
        throw translateCassandraError(err, 'read the revoked user tokens');
      }
    },
  };
}
