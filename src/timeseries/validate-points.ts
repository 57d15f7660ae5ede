import { Point } from './point';

/**
 * A point that no store may keep. Edges (REST, MQTT, CoAP) should never let one through, so reaching a store with
 * one is a bug of ours: this is deliberately not an AppError, and a request that hits it answers 500.
 */
export class InvalidPointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidPointError';
  }
}

/**
 * Throws InvalidPointError naming the first bad point of `points`, before anything is written, so a call either
 * stores every point or none (PointWriter's contract). The rules are the ones every adapter must enforce:
 * - metric: a non-empty string;
 * - tags: at least one, names and values non-empty strings (KairosDB reference §2.4: "an empty {} is an error");
 * - timestamp: an integer number of epoch ms within ±2^52 (±142,000 years): the difference of any two is then a
 *   safe integer, which the SQLite engine relies on to store gaps between timestamps exactly;
 * - value: a finite number (JSON has no NaN or Infinity, and aggregators would spread them);
 * - expiresAt, when given: an integer of epoch ms within ±2^52, like timestamps (retention.ts).
 */
export function assertValidPoints(points: readonly Point[]): void {
  for (let i = 0; i < points.length; i++) {
    const problem = describeProblem(points[i]);
    if (problem !== undefined) throw new InvalidPointError(`points[${i}]: ${problem}`);
  }
}

const MAX_ABS_TIMESTAMP = 2 ** 52;

function describeProblem(p: Point): string | undefined {
  if (typeof p.metric !== 'string' || p.metric === '') return 'metric must be a non-empty string';
  if (typeof p.tags !== 'object' || p.tags === null) return 'tags must be an object';
  const names = Object.keys(p.tags);
  for (const name of names) {
    const value = p.tags[name];
    if (name === '') return 'tag names must be non-empty';
    if (typeof value !== 'string' || value === '') return `tag ${JSON.stringify(name)} must be a non-empty string`;
  }
  if (names.length === 0) return 'at least one tag is required';
  if (!Number.isInteger(p.timestamp) || Math.abs(p.timestamp) > MAX_ABS_TIMESTAMP) {
    return `timestamp must be an integer of epoch ms within ±2^52 (got ${p.timestamp})`;
  }
  if (typeof p.value !== 'number' || !Number.isFinite(p.value)) return `value must be a finite number (got ${p.value})`;
  if (p.expiresAt !== undefined && (!Number.isInteger(p.expiresAt) || Math.abs(p.expiresAt) > MAX_ABS_TIMESTAMP)) {
    return `expiresAt must be an integer of epoch ms within ±2^52 (got ${p.expiresAt})`;
  }
  return undefined;
}
