import { Variables } from '../expressions/evaluate';
import { fillJson, HoleRole, jsonShapeOf } from '../expressions/json-template';
import { parseTemplate, Template } from '../expressions/template';

/**
 * How the holes of a webhook body or a MESSAGE payload are filled (issue 20 §4, docs/automation.md "Triggers and
 * event hooks"): `json`, each value as escaped string content or as one JSON value, so device data can never add
 * members; `form`, each value percent-encoded as in the uri; `text`, each value's text as it is.
 */
export type BodyKind = 'json' | 'form' | 'text';

export interface FilledBody {
  text: string;
  /** The Content-Type to send when the hook sets none. */
  contentType: string;
}

export interface HookBody {
  readonly kind: BodyKind;
  /** Throws ExpressionError when a hole cannot be evaluated or the text is too long. */
  fill(variables: Variables): FilledBody;
}

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;
const FORM_MEDIA_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;

const JSON_HOLES = 'JSON in which every {{ }} stands as a whole value ("temp":{{$NEW.temp}}) or inside a string ("text":"{{msg}}")';

/**
 * Reads a body or payload template (already valid as a template) and decides how it is filled. `contentType` is a
 * webhook's Content-Type header as written; a MESSAGE payload has none. Returns why it cannot be filled safely
 * instead, for a 400 when the hook is saved.
 *
 * - A Content-Type that is JSON (`application/json`, `application/…+json`): the body must be a JSON template.
 * - A Content-Type that is `application/x-www-form-urlencoded`: form; any other: text.
 * - No Content-Type: a body that is one hole is text (`{{$NEW.body}}`); one that is JSON with its holes standing for
 *   values is JSON; one that opens and closes like a JSON object or array but is not is refused, since filling it
 *   as text would let a value reshape it; anything else is text.
 */
export function hookBody(source: string, contentType?: string): HookBody | { problem: string } {
  const template = parseTemplate(source);
  if (contentType !== undefined && parseTemplate(contentType).holes.length > 0) {
    return { problem: 'the Content-Type header decides how the body is filled, so it may not hold {{ }}' };
  }
  const shape = jsonShapeOf(template);
  const declared = contentType?.trim();
  if (declared !== undefined) {
    if (JSON_MEDIA_TYPE.test(declared)) return shape.isJson ? jsonBody(template, shape.roles) : { problem: `the Content-Type is JSON, so expected ${JSON_HOLES}` };
    return FORM_MEDIA_TYPE.test(declared) ? formBody(template) : textBody(template);
  }
  const oneHole = template.holes.length === 1 && template.parts.every((p) => 'expr' in p || p.text.trim() === '');
  if (oneHole) return textBody(template);
  if (shape.isJson) return jsonBody(template, shape.roles);
  const skeleton = shape.skeleton.trim();
  const looksLikeJson = (skeleton.startsWith('{') && skeleton.endsWith('}')) || (skeleton.startsWith('[') && skeleton.endsWith(']'));
  return looksLikeJson ? { problem: `opens and closes like JSON, so expected ${JSON_HOLES}` } : textBody(template);
}

/** A webhook's Content-Type header as written (the last one, as the request keeps, if written twice). */
export const contentTypeOf = (header: Readonly<Record<string, string>> = {}): string | undefined =>
  Object.entries(header).filter(([name]) => name.toLowerCase() === 'content-type').pop()?.[1];

const jsonBody = (template: Template, roles: readonly HoleRole[]): HookBody => ({
  kind: 'json',
  fill: (variables) => ({ text: fillJson(template, roles, variables), contentType: 'application/json' }),
});

/** Filled values are percent-encoded, as in the uri: a value cannot add a field (`&`) or end one (`=`). */
const formBody = (template: Template): HookBody => ({
  kind: 'form',
  fill: (variables) => ({ text: template.render(variables, encodeURIComponent), contentType: 'application/x-www-form-urlencoded' }),
});

const textBody = (template: Template): HookBody => ({
  kind: 'text',
  fill: (variables) => {
    const text = template.render(variables);
    return { text, contentType: contentTypeOfText(text) };
  },
});

/** NETPIE does not say; a text body that is JSON once filled (`{{$NEW}}`) is sent as JSON, anything else as text. */
function contentTypeOfText(body: string): string {
  try {
    JSON.parse(body);
    return 'application/json';
  } catch {
    return 'text/plain; charset=utf-8';
  }
}
