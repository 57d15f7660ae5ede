/** Limits of the expression language, named in docs/automation.md ("Schema and expressions") and docs/limits-and-errors.md ("Limits"). */
export const EXPRESSION_LIMITS = {
  /** Characters of one expression (a schema transform, a trigger condition, one `{{ }}` of a template). */
  maxLength: 1024,
  /** Nesting of the parsed expression: brackets, calls and operators inside each other. */
  maxDepth: 48,
  /** Work of one evaluation: one step per node evaluated, plus one per array element or character a helper touches. */
  maxSteps: 10_000,
  /** Elements of an array an expression makes. */
  maxArrayLength: 10_000,
  /** Characters of a string an expression makes. */
  maxStringLength: 64 * 1024,
  /** Characters of a template (`{{ }}` included), e.g. a webhook body. */
  maxTemplateLength: 16 * 1024,
} as const;
