import * as t from 'io-ts';
import { closed, stringMatching } from '../core/codecs';
import { QUOTA_NAMES, QuotaName } from './quota';

/** A monthly limit: a whole number, 0 (nothing allowed) up to 2^53 - 1. */
const Limit = new t.Type<number, number, unknown>(
  'limit',
  (u): u is number => typeof u === 'number',
  (u, c) => (typeof u === 'number' && Number.isSafeInteger(u) && u >= 0 ? t.success(u) : t.failure(u, c, 'expected a whole number >= 0, or null for no limit')),
  t.identity,
);

const each = <C extends t.Mixed>(codec: C) => Object.fromEntries(QUOTA_NAMES.map((q) => [q, codec])) as Record<QuotaName, C>;

/** Stored limits: a number per limited quota. */
export const QuotaLimits = closed({}, each(Limit));

/** `PUT /v2/admin/projects/{projectid}/quotas`: the new limits, all of them; `null` or absent = unlimited. */
export const QuotaLimitsRequest = closed({}, each(t.union([Limit, t.null])));
export type QuotaLimitsRequest = t.TypeOf<typeof QuotaLimitsRequest>;

/** `?month=2025-01`. */
export const MonthQuery = closed({}, { month: stringMatching('month', /^\d{4}-(0[1-9]|1[0-2])$/, 'expected a month as YYYY-MM') });
