import { DEFAULT_FLEET_INDEX_SETTINGS, FleetIndexSettings } from './fleet-index';

/**
 * The fleet query's budgets and slots (docs/fleet-query.md "Budgets"), as the data store's queries have theirs
 * (timeseries/data-queries.ts): a query certain to scan too many devices is refused before it waits; the others take
 * one of `concurrency` slots, at most `perCaller` per project, waiting their turn fairly or refused with 429.
 */
export interface FleetLimits extends FleetIndexSettings {
  /** Devices one query may scan (the project's, or the group's with `groupid`); more: 413 QUERY_TOO_LARGE. */
  readonly maxScanned: number;
  /** Wall-clock time of one query's scan, in ms; past it: 400 QUERY_TIMEOUT. */
  readonly timeoutMs: number;
  readonly concurrency: number;
  readonly perCaller: number;
  readonly queuePerCaller: number;
  readonly queueTimeoutMs: number;
}

export const DEFAULT_FLEET_LIMITS: FleetLimits = {
  maxScanned: 250_000,
  timeoutMs: 2_000,
  concurrency: 4,
  perCaller: 2,
  queuePerCaller: 8,
  queueTimeoutMs: 5_000,
  ...DEFAULT_FLEET_INDEX_SETTINGS,
};
