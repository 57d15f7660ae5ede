/**
 * NETPIE clients call the Device API and the data store with and without `/v2` (netpie reference §1), so
 * /openapi.json documents both bases. The explorer shows each operation once, at its `/v2` path, and says so.
 */
export const ALIAS_BASES: readonly { alias: string; base: string }[] = [
  { alias: '/device', base: '/v2/device' },
  { alias: '/feed', base: '/v2/feed' },
];

export const ALIAS_NOTE =
  '**Aliases:** every call under `/v2/device` also answers under `/device`, and every call under `/v2/feed` under ' +
  '`/feed`, as NETPIE clients call both; the explorer lists each call once, at its `/v2` path.';

/** The `/v2` path an alias path stands for, or undefined when `path` is not under an alias base. */
function baseOf(path: string): string | undefined {
  const alias = ALIAS_BASES.find((a) => path === a.alias || path.startsWith(`${a.alias}/`));
  return alias && alias.base + path.slice(alias.alias.length);
}

interface OpenApiShape {
  info: { description?: string };
  paths: Record<string, Record<string, { tags?: string[] }>>;
  tags?: { name: string }[];
}

/**
 * The document the explorer shows (/trial/openapi.json): /openapi.json without the alias paths whose `/v2` path is
 * documented, without the tags only they used, and with one line that explains the alias bases.
 */
export function trialDocument(document: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const doc = document as unknown as OpenApiShape;
  const paths = Object.fromEntries(Object.entries(doc.paths).filter(([path]) => {
    const base = baseOf(path);
    return base === undefined || !Object.hasOwn(doc.paths, base);
  }));
  const used = new Set(Object.values(paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? [])));
  return {
    ...document,
    info: { ...doc.info, description: `${ALIAS_NOTE}\n\n${doc.info.description ?? ''}` },
    tags: doc.tags?.filter((tag) => used.has(tag.name)),
    paths,
  };
}
