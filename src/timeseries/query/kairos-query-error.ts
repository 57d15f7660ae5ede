import { AppError } from '../../core/errors';

/**
 * A query the engine refuses, carrying KairosDB's list of messages. The KairosDB API answers every error with
 * `{"errors": [...]}` (reference §1, §3.6); the error body carries that list beside the service's usual
 * `{status, code, message}` (the HTTP error middleware adds it to every error of the data-store API).
 *
 * KairosDB itself answers 500 for some of these (errors raised while aggregating, reference §4.6; a body that is
 * not a JSON object, §3); they all depend only on the query, so the engine reports them as 400 (issue 3: a valid
 * query never gives a 500, a bad one gives 400 with a message).
 */
export class KairosQueryError extends AppError {
  constructor(readonly errors: readonly string[]) {
    super('KAIROS_QUERY_INVALID', errors.join('; '), { errors: [...errors] });
    this.name = 'KairosQueryError';
  }
}

/** Shorthand for the common single-message case. */
export function queryError(message: string): KairosQueryError {
  return new KairosQueryError([message]);
}
