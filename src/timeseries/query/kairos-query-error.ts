import { AppError } from '../../errors';

/**
 * A query the engine refuses, carrying KairosDB's list of messages. The KairosDB API answers every error with
 * `{"errors": [...]}` (reference §1, §3.6), not the service's usual `{status, code, message}`, so the HTTP layer
 * renders this error as `ctx.status = err.status; ctx.body = { errors: err.errors }`.
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

/** The body the KairosDB API sends for an error. */
export function kairosErrorBody(err: KairosQueryError): { errors: string[] } {
  return { errors: [...err.errors] };
}

/** Shorthand for the common single-message case. */
export function queryError(message: string): KairosQueryError {
  return new KairosQueryError([message]);
}
