import { AppError, ErrorCode } from '../core/errors';
import { SHADOW_LIMITS } from './limits';

/**
 * Resolves a write or batch time (spec 4.6 rules 1-3): below 8388608000 ms it is relative to `now` (negative = in
 * the past, 0 = now); from the threshold up it is absolute epoch ms. Absent means now.
 */
export function resolveWriteTime(given: number | undefined, now: number, code: ErrorCode, where: string): number {
  if (given === undefined) return now;
  const resolved = given < SHADOW_LIMITS.relativeThresholdMs ? now + given : given;
  if (resolved < 0) throw new AppError(code, `${where}: resolves to a time before 1970`);
  if (resolved > now + SHADOW_LIMITS.maxFutureMs) {
    throw new AppError(code, `${where}: more than 24 hours in the future`);
  }
  return resolved;
}
