import { ErrorCode } from '../../core/errors';
import { HISTORY_LIMITS } from '../../shadows/history-codecs';
import { success } from './content';
import { Operation, Parameter } from './types';

const DEVICE_ID = '5d0c6a52-3b1e-4f0a-9d39-2c8f1a7b9e10';

/** `?at=` of the shadow read (docs/device-api.md "Shadow history"). */
export const atParameter: Parameter = {
  name: 'at',
  in: 'query',
  required: false,
  description: 'Read the shadow as it was at this time: epoch ms, or a negative offset from now (`-3600000`: an hour ' +
    'ago), compared with each write\'s server time (`modified`). The reply has that time\'s `rev`. Before the oldest ' +
    'kept revision: 404 `REVISION_NOT_KEPT` (revisions are kept as long as the project\'s points).',
  schema: { type: 'string', pattern: '^-?[0-9]{1,16}$' },
  example: '-3600000',
};

export const AT_ERRORS: ErrorCode[] = ['REVISION_NOT_KEPT'];

const time = (name: string, description: string): Parameter => ({
  name, in: 'query', required: false, description, schema: { type: 'string', pattern: '^-?[0-9]{1,16}$' },
});

const historyParameters: Parameter[] = [
  time('from', 'Oldest server time (`modified`, ms, inclusive); a negative value is an offset from now. Default: the oldest kept.'),
  time('to', 'Newest server time (ms, inclusive); a negative value is an offset from now. Default: the newest.'),
  {
    name: 'limit', in: 'query', required: false, description: `Revisions per page, 1 to ${HISTORY_LIMITS.maxPageSize}.`,
    schema: { type: 'integer', minimum: 1, maximum: HISTORY_LIMITS.maxPageSize, default: HISTORY_LIMITS.defaultPageSize },
  },
  { name: 'cursor', in: 'query', required: false, description: 'The `next` of the previous page.', schema: { type: 'string' } },
];

const revisionsExample = {
  status: 200,
  deviceid: DEVICE_ID,
  revisions: [
    { deviceid: DEVICE_ID, data: { temp: 21.5, mode: 'eco' }, rev: 3, modified: 1700000000123, timestamp: 1700000000100 },
    { deviceid: DEVICE_ID, data: { temp: 21.0, mode: 'eco' }, rev: 2, modified: 1700000000023, timestamp: 1700000000000 },
  ],
  next: '1700000000023-2',
};

/** `GET .../shadow/revisions`, for the Device API and the admin API: the builder, parameters and errors are theirs. */
export function revisionsOperation(
  op: (id: string, fields: Omit<Operation, 'operationId' | 'tags' | 'security'>) => Operation,
  id: string,
  parameters: Parameter[],
  errors: Operation['responses'],
): Operation {
  return op(id, {
    summary: 'The shadow\'s kept revisions, newest first',
    description: 'Every applied write (any transport, batches, admin writes) is a revision: the whole document it ' +
      'left, with its `rev`, server time `modified` and data time `timestamp`. Kept as long as the project\'s points; ' +
      'costs one shadow operation per started KiB of the documents answered. Pages of at most ' +
      `${HISTORY_LIMITS.maxPageSize} (default ${HISTORY_LIMITS.defaultPageSize}); \`next\` is the next page's \`cursor\`.`,
    parameters: [...parameters, ...historyParameters],
    responses: { ...success(200, 'A page of revisions.', 'ShadowRevisions', revisionsExample), ...errors },
  });
}
