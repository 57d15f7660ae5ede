import { ErrorCode } from '../../core/errors';
import { Parameter, Response } from './types';

/** Errors a conditional shadow write may meet besides the write's own (issue 25 §1). */
export const CONDITION_ERRORS: readonly ErrorCode[] = ['INVALID_CONDITION', 'REV_MISMATCH'];

/** If-Match and If-None-Match of a shadow write (docs/device-api.md "Conditional writes"). */
export const conditionHeaders: Parameter[] = [
  {
    name: 'If-Match',
    in: 'header',
    required: false,
    description: 'Write only if the shadow is at one of these revisions, given as the `ETag` of a read or write ' +
      '(`"7"`); `*`: only if it was written at least once. Compared strongly: `W/"7"` never matches. Otherwise 412 ' +
      '`REV_MISMATCH` with the current `rev`, and nothing applied: no change, no points, no triggers, no notice. The ' +
      'body\'s `rev` member says the same and must hold too.',
    schema: { type: 'string' },
    example: '"7"',
  },
  {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: '`*`: write only a shadow never written (rev 0); a list of tags: only if the shadow is at none of ' +
      'those revisions (compared weakly). Otherwise 412 `REV_MISMATCH`, nothing applied.',
    schema: { type: 'string' },
    example: '*',
  },
];

/** The shadow's revision as a strong entity tag, on every read and write of a shadow. */
const ETAG_HEADER = {
  ETag: { description: 'The shadow\'s `rev` as a strong entity tag, e.g. `"7"`: send it back in If-Match.', schema: { type: 'string' } },
};

/** The 200 of `responses` with the ETag header. */
export function withEtag(responses: Record<string, Response>): Record<string, Response> {
  const ok = responses['200'];
  return { ...responses, 200: { ...ok, headers: { ...ok.headers, ...ETAG_HEADER } } };
}

/** If-None-Match of a shadow read (docs/device-api.md "Conditional reads"). */
export const readConditionHeader: Parameter = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The `ETag` of a copy the client holds (`"7"`, or a list; compared weakly), or `*`: when it names the ' +
    'revision this read would answer, 304 Not Modified without a body. A header that is not `*` or a list of entity ' +
    'tags is 400 `INVALID_CONDITION`.',
  schema: { type: 'string' },
  example: '"7"',
};

/** The 304 of a shadow read whose If-None-Match names the revision it would answer. */
export const NOT_MODIFIED: Record<string, Response> = {
  304: { description: 'Not Modified: the revision If-None-Match names is the one this read would answer; no body.', headers: ETAG_HEADER },
};
