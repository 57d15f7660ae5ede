import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { RollupTier } from './tiers';

/** How both stores keep a declaration's tiers: one JSON text, `retentionMs` null for unlimited. */
const StoredTiers = t.array(t.type({ periodMs: t.number, retentionMs: t.union([t.number, t.null]) }));

export const tiersToText = (tiers: readonly RollupTier[]): string =>
  JSON.stringify(tiers.map((tier) => ({ periodMs: tier.periodMs, retentionMs: tier.retentionMs ?? null })));

export const tiersFromText = (text: string): RollupTier[] =>
  decodeOrThrow(StoredTiers, JSON.parse(text), 'INTERNAL').map((tier) => ({ periodMs: tier.periodMs, retentionMs: tier.retentionMs ?? undefined }));
