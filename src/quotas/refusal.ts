import { AppError } from '../core/errors';
import { monthEnd, QUOTA_LABEL, QuotaName } from './quota';

/** The refusal of a charge that does not fit (docs/automation.md "Quotas"): 429 QUOTA_EXCEEDED until the month ends. */
export function quotaExceeded(projectid: string, quota: QuotaName, limit: number, used: number, month: string, at: number): AppError {
  const resetsAt = new Date(monthEnd(month)).toISOString();
  return new AppError(
    'QUOTA_EXCEEDED',
    `project ${projectid} has used its monthly quota of ${limit} ${QUOTA_LABEL[quota]} (${quota}); it refills at ${resetsAt}`,
    { quota, limit, used, resetsAt, retryAfter: Math.max(1, Math.ceil((monthEnd(month) - at) / 1000)) },
  );
}
