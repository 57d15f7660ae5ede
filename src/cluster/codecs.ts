import * as t from 'io-ts';
import { CHANGE_KINDS, ChangeKind } from './port';

/** A change notice as another node sends it (src/adapters/backbone): decoded like any input from outside. */
export const ChangeNoticeCodec = t.exact(
  t.type({
    kind: t.keyof(Object.fromEntries(CHANGE_KINDS.map((k) => [k, null])) as Record<ChangeKind, null>),
    key: t.string,
  }),
);
