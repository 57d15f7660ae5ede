/**
 * Why an expression could not be read (`syntax`) or could not be evaluated (`evaluation`). Not an AppError: callers
 * decide what it means (a 400 when a schema is saved, a warning when a write runs it, a log entry for a trigger).
 */
export class ExpressionError extends Error {
  constructor(
    readonly kind: 'syntax' | 'evaluation',
    message: string,
    /** 0-based character offset in the expression, when the error is at a known place. */
    readonly position?: number,
  ) {
    super(position === undefined ? message : `${message} (at character ${position + 1})`);
    this.name = 'ExpressionError';
  }
}
