import { AppError } from '../core/errors';
import { Amounts, Limits, QuotaName } from './quota';

/** Usage to add to a project's counters of one month, e.g. together with a shadow write (ShadowCommit.charge). */
export interface UsageCharge {
  projectid: string;
  /** `YYYY-MM`, UTC. */
  month: string;
  amounts: Amounts;
}

/** Where the limits of each project live (beside the ledger of its counters). */
export interface QuotaLimitStore {
  /** The limits of a project; {} when none is set (all unlimited). */
  getLimits(projectid: string): Promise<Limits>;
  /** Replaces the limits of a project. */
  setLimits(projectid: string, limits: Limits): Promise<void>;
}

/** One node's row of the ledger for one quota of a project in one month. */
export interface LedgerEntry {
  quota: QuotaName;
  node: string;
  /** What the node charged, as it last saved it. */
  used: number;
  /** What the node was granted: it may charge up to this much without asking again. */
  granted: number;
}

/** The ledger of a project's month as read: every node's rows, and the version its grants are compared on. */
export interface LedgerSnapshot {
  /** 0 before the first grant. */
  version: number;
  entries: LedgerEntry[];
}

/**
 * The quota counters (src/quotas/service.ts): each node counts its own charges and takes a grant of a limit before it
 * spends it. Shared by the nodes of a cluster (STORE=cassandra), a grant is a block of the limit; kept by one node in
 * its own database (STORE=sqlite), a grant is the whole limit, since no other node can want any of it.
 */
export interface QuotaLedger {
  /**
   * Set when the ledger is one node's: the name its rows go by, whatever that node's NODE_ID (random when unset). Such
   * a ledger lives in the database of the node's shadows, so a shadow write adds its charge to it in the write's own
   * transaction (Reservation.charge, ShadowCommit.charge).
   */
  readonly singleNode?: string;
  read(projectid: string, month: string): Promise<LedgerSnapshot>;
  /** Stores what `node` charged so far: absolute values, so a repeated save changes nothing. Leaves `granted` alone. */
  saveUsed(node: string, counts: readonly { projectid: string; month: string; quota: QuotaName; used: number }[]): Promise<void>;
  /**
   * Sets `node`'s grant of one quota, if no grant of the project's month changed since `version` was read (the
   * version then goes up by one). False when one did: read again.
   */
  setGranted(projectid: string, month: string, quota: QuotaName, node: string, granted: number, version: number): Promise<boolean>;
}

/** A hold on quota amounts, taken before a write and settled by its outcome (see QuotaGate.reserve). */
export interface Reservation {
  /**
   * What the write's commit adds to the counters in its own transaction (ShadowCommit.charge), when the ledger lives
   * in the shadows' database (QuotaLedger.singleNode); absent otherwise, the service then saves it once committed.
   */
  readonly charge?: UsageCharge;
  /** The write was committed (with `charge`, if any): the amounts stay charged. Call it as soon as the outcome is known. */
  committed(): void;
  /** Gives the hold back: the write was not committed. Idempotent, and a no-op once committed. */
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

/** The counters and limits of a project, as the admin API shows them. */
export interface QuotaReport {
  projectid: string;
  month: string;
  resetsAt: string;
  quotas: Record<QuotaName, { used: number; limit: number | null }>;
}

/** The quotas as the service uses them: the gate, the admin's report and limits, and shutdown. */
export interface QuotaService extends QuotaGate {
  report(projectid: string, month?: string): Promise<QuotaReport>;
  /** Replaces the limits of a project; a quota left out is unlimited. */
  setLimits(projectid: string, limits: Limits): Promise<void>;
  /** Saves every unsaved charge now. */
  flush(): Promise<void>;
  /** Saves what is unsaved and gives back what was held; idempotent. */
  close(): Promise<void>;
}
