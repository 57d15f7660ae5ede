import { expect } from 'chai';
import { AppError } from '../../../src/core/errors';

/** The AppError `promise` rejects with; fails the test when it resolves or rejects with anything else. */
export async function appErrorOf(promise: Promise<unknown>): Promise<AppError> {
  const outcome = await promise.then(
    (value) => ({ rejected: false as const, value }),
    (err: unknown) => ({ rejected: true as const, err }),
  );
  if (!outcome.rejected) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.err).to.be.instanceOf(AppError);
  return outcome.err as AppError;
}
