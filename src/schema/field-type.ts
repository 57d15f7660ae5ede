import * as t from 'io-ts';

/** The types a schema field can declare (netpie reference §7.1). */
export const FieldType = t.keyof({ number: null, string: null, boolean: null, array: null, object: null });
export type FieldType = t.TypeOf<typeof FieldType>;
