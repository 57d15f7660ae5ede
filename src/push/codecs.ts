import * as t from 'io-ts';
import { closed, stringMatching, wellFormed } from '../core/codecs';

/** Limits of a push request (docs/limits-and-errors.md "Limits"). */
export const PUSH_LIMITS = {
  /** Bytes of the JSON body (REST, CoAP) or payload (MQTT `@push`). */
  maxBodyBytes: 8 * 1024,
  /** Characters of `title` and of `subtitle`. */
  maxTitleChars: 256,
  /** Characters of `body`. */
  maxTextChars: 4096,
} as const;

const text = (name: string, min: number, max: number) =>
  wellFormed(stringMatching(name, new RegExp(`^[^]{${min},${max}}$`, 'u'), `expected ${min} to ${max} characters`));

/**
 * A device's notification for its owner (netpie reference §3.1 `@push`, §5.8 `PUT /push`): `title` and `body`, and
 * an optional `subtitle`. Nothing else: an unknown member is a mistake the device should hear of.
 */
export const PushRequest = closed(
  { title: text('title', 1, PUSH_LIMITS.maxTitleChars), body: text('body', 0, PUSH_LIMITS.maxTextChars) },
  { subtitle: text('subtitle', 0, PUSH_LIMITS.maxTitleChars) },
);
export type PushRequest = t.TypeOf<typeof PushRequest>;
