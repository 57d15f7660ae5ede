import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, sep } from 'node:path';
import MarkdownIt from 'markdown-it';
import { escapeHtml, renderPage } from './page-layout';

type Token = MarkdownIt.Token;

/** One document of the reference, as its Markdown source and as the HTML page served at /docs/{name}. */
export interface RenderedDoc {
  name: string;
  title: string;
  markdown: string;
  html: string;
}

/** A document's name under docs/: `mqtt.md`, or one folder deep, `works-with/node-red.md`. */
const DOC_NAME = /^(?:[a-z0-9-]+\/)?[A-Za-z0-9._-]+\.md$/;

/**
 * The reference in Markdown: README.md, the pages of docs/ and of its folders, found by walking up from here (src when
 * run with tsx, dist when built; the Dockerfile copies both beside dist). Read once at start; no other file is ever
 * served.
 */
export function readDocs(from = __dirname): Map<string, string> {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'docs', 'data-store.md')) && existsSync(join(dir, 'README.md'))) {
      const files = new Map([['README.md', readFileSync(join(dir, 'README.md'), 'utf8')]]);
      // docs/*.md and the pages of its folders (docs/works-with/*.md), named by their path under docs/.
      const names = readdirSync(join(dir, 'docs'), { recursive: true, encoding: 'utf8' }).map((n) => n.split(sep).join('/'));
      for (const name of names.filter((n) => DOC_NAME.test(n)).sort()) files.set(name, readFileSync(join(dir, 'docs', name), 'utf8'));
      return files;
    }
    if (dirname(dir) === dir) return new Map();
  }
}

/** Where a document is served: `/docs/mqtt.md`, `/docs/works-with/node-red.md`. */
export const docPath = (name: string) => `/docs/${name.split('/').map(encodeURIComponent).join('/')}`;

/** Where a document lives in the repository, which its relative links start from. */
const repoPathOf = (name: string) => (name === 'README.md' ? name : `docs/${name}`);

/**
 * A heading's anchor as GitHub makes it (github-slugger), since the docs link to each other's sections that way:
 * lower case, punctuation dropped, each space a hyphen; a repeated heading gets -1, -2...
 */
function slugger(): (text: string) => string {
  const seen = new Map<string, number>();
  return (text) => {
    const base = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return count === 0 ? base : `${base}-${count}`;
  };
}

const safeDecode = (path: string) => {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
};

const headingText = (inline: Token | undefined) =>
  (inline?.children ?? []).filter((t) => t.type === 'text' || t.type === 'code_inline').map((t) => t.content).join('');

/**
 * The renderer: markdown-it with `html: false`, so raw HTML in a document is shown as text, never parsed (no
 * script or handler can come from a doc), and its default link check, which drops `javascript:`, `vbscript:`,
 * `file:` and `data:` URLs. Relative links are rewritten to the rendered pages (`device-api.md#x` from docs/,
 * `docs/mqtt.md` from the README, `../README.md`); one to a file the service does not serve (`infra/README.md`)
 * stays as text that names the file in the repository.
 */
function createRenderer(served: ReadonlySet<string>): (name: string, markdown: string) => string {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

  /** The served page a relative link goes to, or undefined when it names a file that is not served. */
  const resolve = (from: string, href: string): string | undefined => {
    const hash = href.indexOf('#');
    const path = hash === -1 ? href : href.slice(0, hash);
    const fragment = hash === -1 ? '' : href.slice(hash);
    const target = posix.normalize(posix.join(posix.dirname(repoPathOf(from)), safeDecode(path)));
    const name = target === 'README.md' ? target : /^docs\/(.+\.md)$/.exec(target)?.[1];
    return name !== undefined && served.has(name) ? `${docPath(name)}${fragment}` : undefined;
  };
  const isRelative = (href: string) => href !== '' && !href.startsWith('#') && !href.startsWith('/') && !/^[a-z][a-z0-9+.-]*:/i.test(href);

  md.core.ruler.push('openpie_links_and_anchors', (state) => {
    const from = (state.env as { name: string }).name;
    const slug = slugger();
    state.tokens.forEach((token, i) => {
      if (token.type === 'heading_open') token.attrSet('id', slug(headingText(state.tokens[i + 1])));
      if (token.type !== 'inline') return;
      const open: Token[] = [];
      for (const child of token.children ?? []) {
        if (child.type === 'link_open') {
          open.push(child);
          const href = child.attrGet('href') ?? '';
          if (!isRelative(href)) continue;
          const page = resolve(from, href);
          if (page !== undefined) {
            child.attrSet('href', page);
            continue;
          }
          // A file of the repository that the service does not serve: text that says where it is.
          child.tag = 'span';
          child.attrs = [['class', 'repo-path'], ['title', `${posix.normalize(posix.join(posix.dirname(repoPathOf(from)), href))} in the repository`]];
        } else if (child.type === 'link_close') {
          child.tag = open.pop()?.tag ?? child.tag;
        }
      }
    });
  });

  // A wide table scrolls inside its own box rather than widening the page.
  md.renderer.rules.table_open = (tokens, idx, options, _env, self) => `<div class="table-wrap">${self.renderToken(tokens, idx, options)}`;
  md.renderer.rules.table_close = (tokens, idx, options, _env, self) => `${self.renderToken(tokens, idx, options)}</div>`;
  // Every heading links to itself, so a section can be shared.
  md.renderer.rules.heading_close = (tokens, idx, options, _env, self) => {
    // heading_open, inline, heading_close: markdown-it's block rule for headings.
    const id = tokens[idx - 2]?.attrGet('id');
    const anchor = id ? `<a class="anchor" href="#${escapeHtml(id)}" aria-label="Link to this section">#</a>` : '';
    return `${anchor}${self.renderToken(tokens, idx, options)}`;
  };

  return (name, markdown) => md.render(markdown, { name });
}

const firstHeading = (markdown: string) => /^#\s+(.+)$/m.exec(markdown)?.[1]?.replace(/`/g, '') ?? '';

/** Every document rendered once, at start: the docs do not change while the service runs. */
export function renderDocs(docs: ReadonlyMap<string, string>): Map<string, RenderedDoc> {
  const render = createRenderer(new Set(docs.keys()));
  const rendered = new Map<string, RenderedDoc>();
  for (const [name, markdown] of docs) {
    const title = firstHeading(markdown) || name;
    const source = `<p class="hint"><a href="/docs/">Docs</a> / ${escapeHtml(name)}</p>`;
    rendered.set(name, { name, title, markdown, html: renderPage(`${title} · openpie docs`, `${source}\n${render(name, markdown)}`) });
  }
  return rendered;
}

/** The list at /docs/: every document with its first heading. */
export function renderDocsIndex(docs: ReadonlyMap<string, RenderedDoc>): string {
  const items = [...docs.values()].map((d) => `<li><a href="${docPath(d.name)}">${escapeHtml(d.title)}</a> <span class="hint">${escapeHtml(d.name)}</span></li>`);
  return renderPage('openpie documentation', [
    '<h1>Documentation</h1>',
    '<p class="lead">The README and the reference, rendered from the Markdown files of the repository.</p>',
    '<ul class="links">',
    ...items,
    '</ul>',
    '<p class="hint">Each document is also served as its Markdown source to clients that do not ask for HTML: <code>curl /docs/README.md</code>.</p>',
  ].join('\n'));
}
