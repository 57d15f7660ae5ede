import { ReadinessCheck } from './port';

/**
 * How long a check may take before it counts as failed. Below Kubernetes' default probe timeout (1 s), so a hung
 * backend turns into a 503 the probe can read rather than a probe timeout.
 */
export const CHECK_TIMEOUT_MS = 800;

export interface CheckResult {
  status: 'ok' | 'fail';
  /** How long the check took, in ms. */
  ms: number;
  /** Why it failed; for the log only, since /readyz answers without credentials. */
  error?: string;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, CheckResult>;
}

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<CheckResult> {
  const started = process.hrtime.bigint();
  const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([Promise.resolve().then(() => check.check()), timeout]);
    return { status: 'ok', ms: elapsed() };
  } catch (err) {
    return { status: 'fail', ms: elapsed(), error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every check at once; ready when all pass. */
export async function checkReadiness(checks: readonly ReadinessCheck[], timeoutMs = CHECK_TIMEOUT_MS): Promise<ReadinessReport> {
  const results = await Promise.all(checks.map((c) => runCheck(c, timeoutMs)));
  return {
    ready: results.every((r) => r.status === 'ok'),
    checks: Object.fromEntries(checks.map((c, i) => [c.name, results[i]])),
  };
}
