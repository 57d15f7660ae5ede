import { QuotaGate, Reservation, UsageCharge } from '../quotas/port';
import { Amounts, monthOf, QUOTA_NAMES } from '../quotas/quota';
import { Point } from '../timeseries/point';
import { assertValidPoints } from '../timeseries/validate-points';
import { isRevMismatch } from './condition';
import { RevisionToKeep, revisionsToKeep } from './history';
import { ShadowStore, StagedWrite } from './port';
import { emptyShadow, Shadow } from './shadow';

/** What one write would do to the shadow as it is (see ShadowWriteQueue.submit). */
export interface Plan {
  next: Shadow | undefined;
  points: Point[];
  /** Quota charge of the write (netpie reference §9, spec section 8). */
  amounts: Amounts;
}

export interface WriteTarget {
  readonly deviceid: string;
  readonly projectid: string;
}

/** Bounds of the queue (docs/operations.md "Performance"). */
export const WRITE_QUEUE_LIMITS = {
  /** Writes of one device folded into one stored write, at most. */
  maxFold: 100,
  /**
   * Shadows kept after their device's last write, so that its next write needs no read (at most 64 KiB each, see
   * shadows/limits.ts). A shadow another node changed meanwhile only costs a lost compare-and-set and a read.
   */
  recentShadows: 1_024,
  /** Concurrent writers to one shadow retry on a lost compare-and-set; this many losses in a row is a server fault. */
  maxAttempts: 50,
};

interface Waiting {
  readonly at: number;
  /** Throws to refuse the write alone (a bad point, a shadow too large). */
  readonly plan: (current: Shadow) => Plan;
  attempts: number;
  resolve(outcome: { current: Shadow; done: Plan }): void;
  reject(err: unknown): void;
}

interface Lane {
  readonly target: WriteTarget;
  waiting: Waiting[];
  /** The shadow as this node last stored it; dropped on any failure, then read again. */
  known?: Shadow;
}

interface Folded {
  readonly write: Waiting;
  readonly current: Shadow;
  readonly done: Plan;
  readonly held?: Reservation;
}

/** A fold: the writes to store, and the conditional ones whose condition failed on the shadow they were planned on. */
interface Fold {
  readonly folded: Folded[];
  /** Refused only once the shadow they were refused on is known to be the stored one (see run). */
  readonly mismatched: { readonly write: Waiting; readonly err: unknown }[];
  /** Both, in the order they came: the order to plan them in again. */
  readonly order: Waiting[];
}

export interface ShadowWriteQueueDeps {
  shadows: ShadowStore;
  quotas?: QuotaGate;
  /** After each stored write that queued points. */
  pointsQueued(): void;
  /** How long a project's shadow revisions are kept, in ms (its point retention); kept until deleted when absent. */
  retentionOf?(projectid: string): Promise<number | undefined>;
}

/**
 * Writes of one device, one stored write at a time (issue 12). While a device's write is being stored, the writes
 * that arrive for it wait; then they are planned one after the other, each on the shadow as the ones before it leave
 * it, and stored together as one compare-and-set of the shadow with all of their points and quota charges. So ten
 * writers of one hot device cost two stored writes instead of ten (and, before, as many lost compare-and-sets and
 * retries). Each write is answered only once that stored write is committed (on disk), with the shadow as it left
 * it; a write refused on its own (a bad point, a spent quota) is refused alone, the others going on without it. A
 * lost compare-and-set (another node wrote) plans every write of the fold again on the shadow as stored. With a
 * store that tells a commit's outcome before it is on disk (stageShadowWrite), the next fold goes as soon as the
 * outcome is known, so a hot device is not held to one fold per fsync; answers still wait for the disk.
 */
export function createShadowWriteQueue({ shadows, quotas, pointsQueued, retentionOf }: ShadowWriteQueueDeps) {
  const lanes = new Map<string, Lane>();
  /** The shadows of the devices written last, as this node stored them, oldest first. */
  const recent = new Map<string, Shadow>();
  const remember = (deviceid: string, shadow: Shadow | undefined) => {
    recent.delete(deviceid);
    if (shadow === undefined) return;
    if (recent.size >= WRITE_QUEUE_LIMITS.recentShadows) recent.delete(recent.keys().next().value as string);
    recent.set(deviceid, shadow);
  };

  async function run(lane: Lane): Promise<void> {
    while (lane.waiting.length > 0) {
      const writes = lane.waiting.splice(0, WRITE_QUEUE_LIMITS.maxFold);
      let base: Shadow;
      /** The shadow as this node last stored it, which another node may have changed since. */
      const remembered = lane.known !== undefined;
      try {
        base = lane.known ?? (await shadows.readShadow(lane.target.deviceid)) ?? emptyShadow(lane.target.deviceid);
      } catch (err) {
        writes.forEach((w) => w.reject(err));
        continue;
      }
      const { folded, mismatched, order } = await fold(lane.target, base, writes);
      // A condition that failed on a remembered shadow may have failed on a stale one: such a refusal stands only
      // once a compare-and-set on the same base succeeds, or on a shadow read from the store (issue 25 §1).
      const refuse = () => mismatched.forEach((m) => m.write.reject(m.err));
      const askAgain = () => {
        lane.known = undefined;
        lane.waiting.unshift(...mismatched.map((m) => m.write));
      };
      if (folded.length === 0) {
        if (remembered && mismatched.length > 0) askAgain();
        else refuse();
        continue;
      }
      const last = folded[folded.length - 1];
      const stored = last.done.next ?? last.current;
      const commit = {
        shadow: stored === base ? undefined : stored,
        expectedRev: base.rev,
        points: folded.length === 1 ? folded[0].done.points : folded.flatMap((f) => f.done.points),
        charge: chargeOf(folded),
      };
      let staged: StagedWrite;
      try {
        const kept = { ...commit, revisions: await revisionsOf(lane.target, folded) };
        staged = shadows.stageShadowWrite
          ? await shadows.stageShadowWrite(kept)
          : { committed: await shadows.commitShadowWrite(kept), durable: Promise.resolve() };
      } catch (err) {
        lane.known = undefined;
        folded.forEach((f) => f.held?.release());
        folded.forEach((f) => f.write.reject(err));
        mismatched.forEach((m) => m.write.reject(err));
        continue;
      }
      if (staged.committed) {
        // Settled at once: the commit holds the charges now (src/quotas/service.ts saves them accordingly).
        folded.forEach((f) => f.held?.committed());
        // The next fold may build on this one now; these writes are answered once it is on disk.
        lane.known = stored;
        // Only a commit that stored a shadow compared its rev with the base (a write older than the shadow does not).
        // The refusals leave with the others' answers, once the rev they name is on disk.
        if (commit.shadow !== undefined || !remembered) staged.durable.then(refuse, refuse);
        else askAgain();
        staged.durable.then(
          () => {
            if (folded.some((f) => f.done.points.length > 0)) pointsQueued();
            folded.forEach((f) => f.write.resolve({ current: f.current, done: f.done }));
          },
          (err: unknown) => folded.forEach((f) => f.write.reject(err)),
        );
        continue;
      }
      // Another writer got there first: plan every write of the fold again, in the same order, first in line.
      lane.known = undefined;
      folded.forEach((f) => f.held?.release());
      const again = order.filter((w) => {
        if (++w.attempts < WRITE_QUEUE_LIMITS.maxAttempts) return true;
        w.reject(new Error(`shadow ${lane.target.deviceid}: too many concurrent writers`));
        return false;
      });
      lane.waiting.unshift(...again);
    }
    lanes.delete(lane.target.deviceid);
    remember(lane.target.deviceid, lane.known);
  }

  /** Each applied write of the fold as a revision to keep (shadows/history.ts), under its project's retention. */
  async function revisionsOf(target: WriteTarget, folded: readonly Folded[]): Promise<RevisionToKeep[]> {
    const applied = folded.flatMap((f) => (f.done.next ? [f.done.next] : []));
    if (applied.length === 0) return [];
    return revisionsToKeep(applied, await retentionOf?.(target.projectid));
  }

  /**
   * Plans the writes in order, each on the shadow the previous ones leave. One that fails its checks or its quota
   * is refused and left out; one whose rev condition fails is left out and set aside (see run). Writes of another
   * month than the first stay for the next fold: a fold carries one charge.
   */
  async function fold(target: WriteTarget, base: Shadow, writes: Waiting[]): Promise<Fold> {
    const folded: Folded[] = [];
    const mismatched: Fold['mismatched'] = [];
    const order: Waiting[] = [];
    const month = monthOf(writes[0].at);
    let state = base;
    for (let i = 0; i < writes.length; i++) {
      const write = writes[i];
      if (monthOf(write.at) !== month) {
        lanes.get(target.deviceid)?.waiting.unshift(...writes.slice(i));
        break;
      }
      let done: Plan;
      let held: Reservation | undefined;
      try {
        done = write.plan(state);
        assertValidPoints(done.points);
        held = await quotas?.reserve(target.projectid, done.amounts, write.at);
      } catch (err) {
        if (isRevMismatch(err)) {
          mismatched.push({ write, err });
          order.push(write);
        } else write.reject(err);
        continue;
      }
      folded.push({ write, current: state, done, held });
      order.push(write);
      if (done.next) state = done.next;
    }
    return { folded, mismatched, order };
  }

  return {
    /**
     * Plans the write on the device's shadow as the writes before it leave it (`plan` may throw to refuse it), and
     * resolves once it is stored, with the shadow it was planned on (`current`) and its plan (`done`).
     */
    submit<P extends Plan>(target: WriteTarget, at: number, plan: (current: Shadow) => P): Promise<{ current: Shadow; done: P }> {
      return new Promise((resolve, reject) => {
        let lane = lanes.get(target.deviceid);
        const start = lane === undefined;
        if (!lane) lanes.set(target.deviceid, (lane = { target, waiting: [], known: recent.get(target.deviceid) }));
        lane.waiting.push({ at, plan, attempts: 0, resolve: resolve as Waiting['resolve'], reject });
        if (start) {
          const started = lane;
          run(started).catch((err: unknown) => {
            // Not expected (every step catches its own failures), but a lane must never stay stuck.
            lanes.delete(target.deviceid);
            started.waiting.splice(0).forEach((w) => w.reject(err));
          });
        }
      });
    },
  };
}

export type ShadowWriteQueue = ReturnType<typeof createShadowWriteQueue>;

/** The charges of a fold, added up: one device, so one project; one month (see fold). */
function chargeOf(folded: Folded[]): UsageCharge | undefined {
  const charges = folded.flatMap((f) => (f.held?.charge ? [f.held.charge] : []));
  if (charges.length <= 1) return charges[0];
  const amounts: Amounts = {};
  for (const c of charges) for (const q of QUOTA_NAMES) if (c.amounts[q]) amounts[q] = (amounts[q] ?? 0) + c.amounts[q];
  return { ...charges[0], amounts };
}
