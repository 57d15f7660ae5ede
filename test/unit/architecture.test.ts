import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The layout's rules (docs/development.md "Layout"), checked over every import of src/, type-only ones included:
 * no import cycles, and no adapter reaching up into a transport or into the composition root.
 */
const SRC = resolve(__dirname, '../../src');
const IMPORT = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'web' ? [] : sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const targets: string[] = [];
  for (const [, spec] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const base = resolve(dirname(file), spec);
    const target = [`${base}.ts`, join(base, 'index.ts')].find(existsSync);
    if (target) targets.push(target);
  }
  return targets;
}

/** Tarjan's strongly connected components with more than one file: each one is an import cycle. */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(relative(SRC, member));
    } while (member !== file);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

describe('the source layout', () => {
  const graph = new Map(sourceFiles(SRC).map((file) => [file, importsOf(file)]));
  /** Imports from files whose path matches `from` to files whose path matches `to`, as "a -> b" lines. */
  const importsBetween = (from: RegExp, to: (file: string, target: string) => boolean) =>
    [...graph].flatMap(([file, targets]) => {
      const name = relative(SRC, file);
      if (!from.test(name)) return [];
      return targets.map((t) => relative(SRC, t)).filter((t) => to(name, t)).map((t) => `${name} -> ${t}`);
    });

  it('has no import cycles', () => {
    expect(cyclesOf(graph)).to.deep.equal([]);
  });

  it('keeps adapters below the transports and the composition root', () => {
    expect(importsBetween(/^adapters\//, (_, t) => /^(http|mqtt|coap|compose)\/|^(server|main)\.ts$/.test(t))).to.deep.equal([]);
  });

  it('keeps features free of transports: no feature imports http/, mqtt/ or coap/', () => {
    const features = /^(devices|shadows|messaging|sessions|timeseries|schema|expressions|triggers|quotas|ratelimit|tokens|health|metrics|cluster|push)\//;
    expect(importsBetween(features, (_, t) => /^(http|mqtt|coap|compose)\//.test(t))).to.deep.equal([]);
  });

  it('keeps each transport to itself: http/, mqtt/ and coap/ never import one another', () => {
    const transportOf = (name: string) => /^(http|mqtt|coap)\//.exec(name)?.[1];
    expect(importsBetween(/^(http|mqtt|coap)\//, (name, t) => transportOf(t) !== undefined && transportOf(t) !== transportOf(name))).to.deep.equal([]);
  });

  it('keeps every rule of admission out of the device-facing transports: no rate limit, quota or point outbox of their own (issue 19)', () => {
    const deviceDoors = /^(coap|mqtt)\/|^http\/(device|feed|kairos|data-store)/;
    expect(importsBetween(deviceDoors, (_, t) => /^(ratelimit|quotas)\/|^timeseries\/outbox/.test(t))).to.deep.equal([]);
  });

  it('keeps features free of config/: each feature owns its settings, config/ only decodes the environment (issue 19)', () => {
    const features = /^(devices|shadows|messaging|sessions|timeseries|schema|expressions|triggers|quotas|ratelimit|tokens|health|metrics|cluster|push)\//;
    expect(importsBetween(features, (_, t) => /^config\//.test(t))).to.deep.equal([]);
  });
});
