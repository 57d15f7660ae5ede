import * as t from 'io-ts';
import { closed } from '../core/codecs';
import { Rev, ShadowData } from '../shadows/codecs';

/**
 * Body of PUT/POST .../shadow/desired (docs/device-api.md "Desired state"): `data` as a shadow write's, with its
 * limits; `merged` chooses merge or overwrite against the method's default; `rev` writes only if the desired document
 * is at that revision. No `timestamp`, `store` or `trigger`: a desired document is no reading, it records no points
 * and fires no trigger.
 */
export const DesiredWriteRequest = closed({ data: ShadowData }, { merged: t.boolean, rev: Rev });
export type DesiredWriteRequest = t.TypeOf<typeof DesiredWriteRequest>;
