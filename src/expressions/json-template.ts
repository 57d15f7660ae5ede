import { Variables } from './evaluate';
import { Template } from './template';
import { toText } from './values';

/** Where a hole of a JSON template stands: inside a string literal (`"t":"{{x}}"`), or as a whole value (`"t":{{x}}`). */
export type HoleRole = 'in-string' | 'value';

/** A template read as JSON with its holes standing for values (issue 20 §4). */
export interface JsonShape {
  /** The template with each hole replaced by a placeholder value. */
  readonly skeleton: string;
  /** Whether the skeleton is JSON: then every hole stands as a whole value or inside a string literal. */
  readonly isJson: boolean;
  /** The role of each hole, in order (meaningful when `isJson`). */
  readonly roles: readonly HoleRole[];
}

/**
 * Stands for a hole in the skeleton: one whole JSON value, fenced by spaces so that it joins no neighbouring token
 * (`1{{x}}` and `{{x}}{{y}}` are not JSON), and not a valid escape after a backslash (`"\{{x}}"` is not JSON either).
 */
const PLACEHOLDER = ' null ';

/** Reads a template as JSON: the placeholder skeleton, and which holes stand inside string literals. */
export function jsonShapeOf(template: Template): JsonShape {
  const roles: HoleRole[] = [];
  let skeleton = '';
  let inString = false;
  let escaped = false;
  for (const part of template.parts) {
    if ('expr' in part) {
      roles.push(inString ? 'in-string' : 'value');
      skeleton += PLACEHOLDER;
      continue;
    }
    // The placeholder holds no quote nor backslash, so this scan sees the skeleton's strings as JSON.parse does.
    for (const ch of part.text) {
      if (escaped) escaped = false;
      else if (inString && ch === '\\') escaped = true;
      else if (ch === '"') inString = !inString;
    }
    skeleton += part.text;
  }
  return { skeleton, isJson: parsesAsJson(skeleton), roles };
}

/**
 * Fills a JSON template so that the result is JSON of the template's shape whatever the values: a hole inside a
 * string literal gets its value's text (`toText`) escaped as string content, a hole standing as a value gets its
 * value as one JSON value. `roles` come from `jsonShapeOf` of a template that `isJson`.
 */
export function fillJson(template: Template, roles: readonly HoleRole[], variables: Variables): string {
  return template.fill(variables, (value, index) =>
    roles[index] === 'value' ? JSON.stringify(value) : JSON.stringify(toText(value)).slice(1, -1));
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
