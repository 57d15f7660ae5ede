import * as t from 'io-ts';

/** Codecs shared by several features. Feature-specific codecs live in each feature's codecs.ts. */

const refine = <A>(base: t.Type<A>, name: string, ok: (a: A) => boolean, why: string) =>
  new t.Type<A, A, unknown>(
    name,
    (u): u is A => base.is(u) && ok(u),
    (u, c) => {
      if (!base.is(u)) return t.failure(u, c, `expected ${base.name}`);
      return ok(u) ? t.success(u) : t.failure(u, c, why);
    },
    t.identity,
  );

export const intBetween = (min: number, max: number) =>
  refine(t.number, `integer ${min}..${max}`, (n) => Number.isInteger(n) && n >= min && n <= max,
    `expected an integer from ${min} to ${max}`);

/** A query-string integer: digits only, within [min, max] (`?limit=50`). */
export const intStringBetween = (min: number, max: number) =>
  new t.Type<number, string, unknown>(
    `integer ${min}..${max}`,
    (u): u is number => typeof u === 'number',
    (u, c) => {
      const n = typeof u === 'string' && /^\d{1,9}$/.test(u) ? Number(u) : NaN;
      return n >= min && n <= max ? t.success(n) : t.failure(u, c, `expected an integer from ${min} to ${max}`);
    },
    String,
  );

export const stringMatching = (name: string, re: RegExp, why: string) => refine(t.string, name, (s) => re.test(s), why);

/** Refuses strings with lone surrogates: SQLite would store them garbled (U+FFFD) and answer something else. */
export const wellFormed = (base: t.Type<string, string, unknown>) =>
  refine(base, base.name, (s) => s.isWellFormed(), 'expected valid Unicode (no lone surrogates)');

/** Project and group ids: safe inside MQTT topics and URLs (no `/`, `+`, `#`, `$`, spaces). */
export const ScopeId = stringMatching('id', /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
  'expected 1-64 characters of A-Z a-z 0-9 _ . - starting with a letter or digit');

/**
 * An object codec that rejects unknown members instead of dropping them: a misspelt option is an error, never
 * silently ignored (netpie reference §11.1).
 */
export function closed<R extends t.Props, O extends t.Props = {}>(required: R, optional?: O) {
  type A = { [K in keyof R]: t.TypeOf<R[K]> } & { [K in keyof O]?: t.TypeOf<O[K]> };
  const all: t.Props = { ...optional, ...required };
  return new t.Type<A, A, unknown>(
    'object',
    (u): u is A => typeof u === 'object' && u !== null,
    (u, c) => {
      if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c, 'expected a JSON object');
      const errors: t.Errors = [];
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(u)) {
        const codec = Object.hasOwn(all, key) ? all[key] : undefined;
        if (codec === undefined) {
          errors.push({ value, context: t.appendContext(c, key, t.unknown, value), message: `unknown member "${key}"` });
          continue;
        }
        // Validated first without the member's context, which costs an array per member of every item of a batch;
        // only a failure is validated again with it, for an error that names the member.
        const r = codec.validate(value, c);
        if (r._tag === 'Right') out[key] = r.right;
        else {
          const named = codec.validate(value, t.appendContext(c, key, codec, value));
          errors.push(...(named._tag === 'Left' ? named.left : r.left));
        }
      }
      for (const key of Object.keys(required)) {
        if (!Object.prototype.hasOwnProperty.call(u, key)) {
          errors.push({ value: undefined, context: t.appendContext(c, key, required[key], undefined), message: 'required' });
        }
      }
      return errors.length > 0 ? t.failures(errors) : t.success(out as A);
    },
    t.identity,
  );
}
