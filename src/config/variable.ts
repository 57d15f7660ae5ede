import * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import { describeErrors } from '../core/decode-errors';

/** One environment variable: its name, the codec that reads it, its default (unset: none) and one line of doc. */
export interface Variable<A> {
  readonly name: string;
  /** An io-ts Type at run time; typed as a Decoder so that a tree of them is a tree of Variable<unknown>. */
  readonly codec: t.Decoder<unknown, A>;
  /** The value used when the variable is unset or empty, as it would be written in the environment. */
  readonly default: string | undefined;
  readonly doc: string;
  /** A secret (secret-files.ts): it may come from the file `NAME_FILE` names, and refuses placeholders. */
  readonly secret?: boolean;
}

export function variable<A>(name: string, codec: t.Type<A, unknown, unknown>, fallback: string | number | undefined, doc: string): Variable<A> {
  return { name, codec, default: fallback === undefined ? undefined : String(fallback), doc };
}

/** Variables arranged as the settings they fill: a variable's path in the tree is where its value goes. */
export interface VariableTree {
  readonly [key: string]: Variable<unknown> | VariableTree;
}

/** The tree with each variable replaced by its decoded value. */
export type Decoded<T> = T extends Variable<infer A> ? A : { readonly [K in keyof T]: Decoded<T[K]> };

const isVariable = (node: Variable<unknown> | VariableTree): node is Variable<unknown> => node.codec instanceof t.Type;

/** Every variable of the tree with its path, in the tree's order. */
export function variablesOf(tree: VariableTree, at: readonly string[] = []): { path: readonly string[]; variable: Variable<unknown> }[] {
  return Object.entries(tree).flatMap(([key, node]) =>
    isVariable(node) ? [{ path: [...at, key], variable: node }] : variablesOf(node, [...at, key]));
}

/**
 * Reads every variable of the tree from `env` (empty counts as unset, then the default), all at once: the result is
 * the decoded tree, or one line per bad variable (`NAME: what is expected (got "value")`).
 */
export function decodeVariables<T extends VariableTree>(tree: T, env: NodeJS.ProcessEnv): { value: Decoded<T> } | { problems: string[] } {
  const entries = variablesOf(tree);
  const codec = t.type(Object.fromEntries(entries.map(({ variable: v }) => [v.name, v.codec])) as t.Props);
  const valueOf = (v: Variable<unknown>) => (env[v.name] === undefined || env[v.name] === '' ? v.default : env[v.name]);
  const raw = Object.fromEntries(entries.map(({ variable: v }) => [v.name, valueOf(v)]));
  const decoded = codec.decode(raw);
  if (isLeft(decoded)) return { problems: describeErrors(decoded.left) };
  const value: Record<string, unknown> = {};
  for (const { path, variable: v } of entries) {
    let section = value;
    for (const key of path.slice(0, -1)) section = (section[key] ??= {}) as Record<string, unknown>;
    section[path[path.length - 1]] = decoded.right[v.name];
  }
  return { value: value as Decoded<T> };
}

/**
 * The rows that fill a feature's settings type `S` field by field (`{...} satisfies Rows<QueryLimits>`): the
 * compiler holds the table to the type the feature declares.
 */
export type Rows<S> = {
  readonly [K in keyof S]-?: S[K] extends readonly unknown[] ? Variable<S[K]> : S[K] extends object ? Rows<S[K]> : Variable<S[K]>;
};
