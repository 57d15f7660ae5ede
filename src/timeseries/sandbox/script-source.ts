/**
 * Turns a js_* script into the source of one JavaScript function, the way KC-SAS/kise-kairosdb-module's
 * ScriptBuilder does (reference §6.5): when the script contains a `return` statement it is the function body,
 * otherwise it is an expression whose value the function returns.
 */

/** The file name QuickJS gives the script in stack traces, so error locations can be found in them. */
export const SCRIPT_FILE_NAME = 'script.js';

/** Parameters by aggregator: js_function and js_filter see one point, js_range one bucket (reference §6.5). */
export const POINT_PARAMETERS = ['value', 'timestamp'] as const;
export const RANGE_PARAMETERS = ['values', 'valueArray'] as const;

/**
 * The module's test is the regex `^((.*)([^a-zA-Z\\d]))?(return)([ (])(.*)`: `return` at the start or after a
 * non-letter, followed by a space or `(`. Ours also accepts `return;`, `return` before a newline or at the end,
 * and refuses `obj.return` and identifiers such as `returned`. Like the module's, it does not skip strings or
 * comments: a script that mentions "return" anywhere is taken as a body.
 */
const RETURN_STATEMENT = /(?:^|[^A-Za-z0-9_$.])return(?![A-Za-z0-9_$])/;

export interface WrappedScript {
  /** Evaluates to the function. */
  readonly source: string;
  /** Characters before the script on its first line, to turn QuickJS's columns back into the script's own. */
  readonly firstLineOffset: number;
  /** Lines of the script itself; a location past them is the end of the script. */
  readonly lineCount: number;
}

export function containsReturnStatement(script: string): boolean {
  return RETURN_STATEMENT.test(script);
}

/**
 * The script starts on line 1 of the source, so QuickJS's line numbers are the script's. An expression is
 * parenthesised and ends before a newline, so a trailing `// comment` or a leading newline cannot change it; its
 * trailing semicolons are dropped (`value > 5;` is an expression in the module, which writes `return value > 5; }`).
 */
export function wrapScript(script: string, parameters: readonly string[]): WrappedScript {
  const isBody = containsReturnStatement(script);
  const prefix = `(function (${parameters.join(', ')}) {${isBody ? '' : ' return ('}`;
  const body = isBody ? script : script.replace(/[\s;]+$/, '');
  const suffix = isBody ? '\n})' : '\n); })';
  return { source: prefix + body + suffix, firstLineOffset: prefix.length, lineCount: script.split('\n').length };
}
