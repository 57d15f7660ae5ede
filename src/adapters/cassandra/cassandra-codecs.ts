import { types } from 'cassandra-driver';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';

/** A CQL bigint as the driver returns it (a Long), as a number; our values (epoch ms, revs) stay below 2^53. */
export const BigintNumber = new t.Type<number, types.Long, unknown>(
  'bigint',
  (u): u is number => typeof u === 'number',
  (u, c) => (u instanceof types.Long ? t.success(u.toNumber()) : t.failure(u, c, 'expected a bigint')),
  (n) => types.Long.fromNumber(n),
);

export const TimeUuidCodec = new t.Type<types.TimeUuid, types.TimeUuid, unknown>(
  'timeuuid',
  (u): u is types.TimeUuid => u instanceof types.TimeUuid,
  (u, c) => (u instanceof types.TimeUuid ? t.success(u) : t.failure(u, c, 'expected a timeuuid')),
  t.identity,
);

export const UuidCodec = new t.Type<types.Uuid, types.Uuid, unknown>(
  'uuid',
  (u): u is types.Uuid => u instanceof types.Uuid,
  (u, c) => (u instanceof types.Uuid ? t.success(u) : t.failure(u, c, 'expected a uuid')),
  t.identity,
);

/** A column that may be null (never written, or deleted). */
export const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null, t.undefined]);

/** Decodes a row the driver returned; a mismatch is a bug of ours (a 500), never the client's fault. */
export const decodeRow = <A, O>(codec: t.Type<A, O, unknown>, row: unknown): A => decodeOrThrow(codec, row, 'INTERNAL');

/** Orders timeuuids by their time (100 ns ticks), as Cassandra orders a timeuuid clustering column. */
export function compareTimeUuids(a: types.TimeUuid, b: types.TimeUuid): number {
  const x = a.getDatePrecision();
  const y = b.getDatePrecision();
  return x.date.getTime() - y.date.getTime() || x.ticks - y.ticks;
}

/** A fresh timeuuid strictly later than `after` (when given), even if this node's clock is behind. */
export function timeUuidAfter(after: types.TimeUuid | undefined): types.TimeUuid {
  const now = types.TimeUuid.now();
  if (after === undefined || compareTimeUuids(now, after) > 0) return now;
  return types.TimeUuid.fromDate(new Date(after.getDate().getTime() + 1));
}
