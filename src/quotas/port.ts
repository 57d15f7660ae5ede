import { AppError } from '../errors';
import { Amounts, Limits } from './quota';

/** Usage to add to a project's counters of one month, e.g. together with a shadow write (ShadowCommit.charge). */
export interface UsageCharge {
  projectid: string;
  /** `YYYY-MM`, UTC. */
  month: string;
  amounts: Amounts;
}

/** Where quota limits and counters live. */
export interface QuotaStore {
  /** The limits of a project; {} when none is set (all unlimited). */
  getLimits(projectid: string): Promise<Limits>;
  /** Replaces the limits of a project. */
  setLimits(projectid: string, limits: Limits): Promise<void>;
  /** The counters of a project for one month; absent quotas are 0. */
  readUsage(projectid: string, month: string): Promise<Amounts>;
  /** Adds to counters, all or nothing. */
  addUsage(charges: readonly UsageCharge[]): Promise<void>;
}

/** A hold on quota amounts, taken before a write and committed with it (see QuotaGate.reserve). */
export interface Reservation {
  /** What to add to the counters in the write's own transaction (ShadowCommit.charge). */
  readonly charge: UsageCharge;
  /** Gives the hold back: the write was not committed. Idempotent. */
  release(): void;
}

/** What the features that spend quota ask of it. Every method throws AppError('QUOTA_EXCEEDED') when a quota is spent. */
export interface QuotaGate {
  /** Checks and holds `amounts`; for usage that must be stored together with a write (shadow writes). */
  reserve(projectid: string, amounts: Amounts, at: number): Promise<Reservation>;
  /** Checks and charges `amounts`; the counters are saved within a second (reads, messages, API calls, triggers). */
  spend(projectid: string, amounts: Amounts, at: number): Promise<void>;
  /**
   * `spend` without waiting, for the broker's hot path: checks against the counters in memory and returns the refusal,
   * if any. When the project's counters or limits are not in memory yet (they are after its devices connect), the
   * amounts are charged without a check and the counters are loaded for the next call.
   */
  spendNow(projectid: string, amounts: Amounts, at: number): AppError | undefined;
  /** Charges without a check, for what cannot be refused any more (a message delivered, a reply sent). */
  record(projectid: string, amounts: Amounts, at: number): void;
}
