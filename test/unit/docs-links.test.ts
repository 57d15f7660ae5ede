import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { ENV_NAMES } from '../../src/config/config';

/**
 * The README is the front door and docs/ the reference (issue 9 item 5). These tests keep the two honest: links and
 * anchors resolve, the README stays short and starts with the two set-up commands, and every variable the config
 * loader reads is documented somewhere in docs/.
 */

const root = resolve(__dirname, '..', '..');
const docsDir = join(root, 'docs');
const configLoader = join(root, 'src', 'config', 'config.ts');

interface Page {
  /** Path from the repository root, e.g. `docs/mqtt.md`. */
  readonly name: string;
  readonly file: string;
  readonly text: string;
  /** The lines outside fenced code blocks (a `# comment` in a shell block is not a heading). */
  readonly prose: readonly string[];
}

function readPage(file: string): Page {
  const text = readFileSync(file, 'utf8');
  return { name: relative(root, file), file, text, prose: proseLines(text) };
}

function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) fence = marker;
    else if (fence !== undefined && marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    else if (fence === undefined) lines.push(line);
  }
  return lines;
}

function fencedBlocks(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    if (/^\s{0,3}(```|~~~)/.test(line)) {
      if (current === undefined) current = [];
      else {
        blocks.push(current.join('\n'));
        current = undefined;
      }
    } else current?.push(line);
  }
  return blocks;
}

/** GitHub's heading ids: the rendered text, lowercased, without punctuation but `-` and `_`, spaces as hyphens. */
function slug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/(^|\s)[*_]+|[*_]+(?=\s|$)|\*+/g, '$1')
    .trim();
  return rendered.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

function anchors(page: Page): Set<string> {
  const seen = new Map<string, number>();
  const ids = new Set<string>();
  for (const line of page.prose) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    ids.add(count === 0 ? base : `${base}-${count}`);
  }
  return ids;
}

/** Inline links `[text](target)` of the prose; code spans are dropped first, so `a[0](x)` in code is no link. */
function links(page: Page): string[] {
  const targets: string[] = [];
  for (const line of page.prose) {
    const withoutCode = line.replace(/(`+)[^`]*?\1/g, '');
    for (const match of withoutCode.matchAll(/\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      targets.push(match[1]);
    }
  }
  return targets;
}

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);

const readme = readPage(join(root, 'README.md'));
/** docs/*.md and the pages of its folders (docs/works-with/). */
const docs = readdirSync(docsDir, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.md'))
  .sort()
  .map((f) => readPage(join(docsDir, f)));
const pages = [readme, ...docs];

describe('the docs', () => {
  it('has reference pages in docs/', () => {
    expect(docs.map((p) => p.name)).to.include.members(['docs/limits-and-errors.md', 'docs/development.md']);
  });

  it('links only to files that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of links(page)) {
        if (isExternal(target) || target.startsWith('#')) continue;
        const path = decodeURIComponent(target.split('#')[0]);
        if (!existsSync(resolve(dirname(page.file), path))) broken.push(`${page.name}: ${target}`);
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it('links to headings that exist in the page linked', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of links(page)) {
        if (isExternal(target) || !target.includes('#')) continue;
        const [path, anchor] = target.split('#', 2);
        if (path !== '' && !path.endsWith('.md')) continue;
        const file = path === '' ? page.file : resolve(dirname(page.file), decodeURIComponent(path));
        if (!existsSync(file)) continue; // reported by the test above
        if (!anchors(readPage(file)).has(decodeURIComponent(anchor))) broken.push(`${page.name}: ${target}`);
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it('names every variable the config loader reads', () => {
    expect(existsSync(configLoader), `${relative(root, configLoader)} should exist`).to.equal(true);
    const source = readFileSync(configLoader, 'utf8');
    const names = new Set<string>();
    for (const m of source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)) names.add(m[1]);
    for (const m of source.matchAll(/\benv\[\s*['"`]([A-Z][A-Z0-9_]*)['"`]\s*\]/g)) names.add(m[1]);
    // The loader decodes the variables of one table (src/config/variables.ts), whose names it exports.
    for (const name of ENV_NAMES) names.add(name);
    expect(names.size, 'variable names found in the config loader').to.be.greaterThan(0);

    const reference = docs.map((p) => p.text).join('\n');
    const undocumented = [...names].filter((name) => !new RegExp(`(^|[^A-Z0-9_])${name}([^A-Z0-9_]|$)`).test(reference));
    expect(undocumented).to.deep.equal([]);
  });
});

describe('the README', () => {
  it('stays a short front door, under 250 lines', () => {
    const lines = readme.text.split('\n').length - (readme.text.endsWith('\n') ? 1 : 0);
    expect(lines).to.be.below(250);
  });

  it('starts with the two set-up commands in its first code block', () => {
    const first = fencedBlocks(readme.text)[0] ?? '';
    expect(first).to.contain('npm ci && npm start');
    expect(first).to.contain('npm ci && npm test');
  });

  it('links every page of docs/', () => {
    const linked = new Set(
      links(readme)
        .filter((t) => !isExternal(t))
        .map((t) => relative(root, resolve(root, decodeURIComponent(t.split('#')[0])))),
    );
    // A folder of docs/ (works-with/) is linked by its README.md, which links the folder's pages (next test).
    const top = docs.map((p) => p.name).filter((name) => dirname(name) === 'docs' || basename(name) === 'README.md');
    expect(top.filter((name) => !linked.has(name))).to.deep.equal([]);
  });

  it('links every page of a folder of docs/ from that folder\'s README.md', () => {
    for (const index of docs.filter((p) => dirname(p.name) !== 'docs' && basename(p.name) === 'README.md')) {
      const folder = dirname(index.name);
      const linked = new Set(links(index).filter((t) => !isExternal(t)).map((t) => join(folder, decodeURIComponent(t.split('#')[0]))));
      const pages = docs.map((p) => p.name).filter((name) => dirname(name) === folder && name !== index.name);
      expect(pages.filter((name) => !linked.has(name)), folder).to.deep.equal([]);
    }
  });
});
