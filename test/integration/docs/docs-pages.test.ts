import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readDocs, renderDocs } from '../../../src/http/pages/markdown-docs';
import { HttpResponse } from '../../helpers/http';
import { Stack, startStack } from '../../helpers/stack';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const ROOT = join(__dirname, '..', '..', '..');
/** README.md, docs/*.md and the pages of docs/ folders (works-with/), as they are named under /docs/. */
const DOC_NAMES = ['README.md', ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((n) => n.endsWith('.md')).sort()];


const hrefsOf = (html: string) => [...html.matchAll(/<a\b[^>]*\bhref="([^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
const idsOf = (html: string) => new Set([...html.matchAll(/\bid="([^"]*)"/g)].map((m) => m[1]));

describe('GET /docs/: the docs as pages (issue 24 §4)', function () {
  this.timeout(60_000);
  let stack: Stack;
  const pages = new Map<string, HttpResponse>();
  /** A page as a browser asks for it, fetched once per test run. */
  const page = async (path: string) => {
    if (!pages.has(path)) pages.set(path, await stack.http('GET', path, { headers: { accept: BROWSER_ACCEPT } }));
    return pages.get(path)!;
  };
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('lists every document at /docs/, linking its page', async () => {
    const index = await page('/docs/');

    expect(index.status).to.equal(200);
    expect(index.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    for (const name of DOC_NAMES) expect(index.text).to.contain(`href="/docs/${name}"`);
  });

  for (const name of DOC_NAMES) {
    it(`renders ${name} as HTML under the pages' CSP, with its headings as anchors`, async () => {
      const res = await page(`/docs/${name}`);

      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).to.contain("default-src 'none'").and.contain("frame-ancestors 'none'");
      expect(res.text).to.match(/<h1 id="[^"]+">/);
      expect(res.text).to.not.match(/<script/i);
    });
  }

  it('renders tables inside a scrolling box and code blocks as <pre><code>', async () => {
    const res = await page('/docs/device-api.md');

    expect(res.text).to.contain('<div class="table-wrap"><table>');
    expect(res.text).to.match(/<pre><code class="language-\w+">/);
    expect(res.text).to.contain('<link rel="stylesheet" href="/docs/pages.css">');
  });

  it('serves the pages\' stylesheet', async () => {
    const res = await stack.http('GET', '/docs/pages.css');

    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/css; charset=utf-8');
    expect(res.text).to.contain('.table-wrap');
  });

  it('leads every link of every page to a page that answers 200, and every #anchor to an id on it', async () => {
    const broken: string[] = [];
    for (const name of ['', ...DOC_NAMES]) {
      const from = `/docs/${name}`;
      for (const href of hrefsOf((await page(from)).text)) {
        if (/^(https?|mailto):/.test(href)) continue;
        expect(href, `${from} links ${href}: a relative link left as it was`).to.match(/^[/#]/);
        const [path, fragment] = href.split('#');
        const target = path === '' ? await page(from) : await page(path);
        if (target.status !== 200) broken.push(`${from} -> ${href}: ${target.status}`);
        else if (fragment !== undefined && fragment !== '' && !idsOf(target.text).has(decodeURIComponent(fragment))) {
          broken.push(`${from} -> ${href}: no id "${fragment}"`);
        }
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it('rewrites links between docs to the rendered pages: device-api.md#x, ../README.md, docs/mqtt.md', async () => {
    const mqtt = await page('/docs/mqtt.md');
    const readme = await page('/docs/README.md');

    expect(mqtt.text).to.match(/href="\/docs\/README\.md"|href="\/docs\/device-api\.md#[^"]+"/);
    expect(readme.text).to.contain('href="/docs/mqtt.md"');
  });

  it('answers clients that do not ask for HTML (curl) with the Markdown source', async () => {
    const res = await stack.http('GET', '/docs/data-store.md', { headers: { accept: '*/*' } });

    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    expect(res.headers.get('vary')).to.match(/accept/i);
    expect(res.text).to.match(/^# Data-store API/);
  });

  it('answers 404 for a file that is not a document', async () => {
    for (const path of ['/docs/..%2Fpackage.json', '/docs/nothing.md']) {
      const res = await stack.http('GET', path, { headers: { accept: BROWSER_ACCEPT } });
      expect(res.status, path).to.equal(404);
    }
  });
});

describe('the docs renderer', () => {
  const render = (markdown: string) => renderDocs(new Map([['README.md', markdown], ['mqtt.md', '# MQTT\n']])).get('README.md')!.html;

  it('shows raw HTML and script in a document as text, never as markup', () => {
    const html = render('# T\n\n<script>alert(1)</script>\n\nText <img src=x onerror="alert(2)"> and <b onclick="x()">b</b>\n');

    expect(html).to.not.match(/<script|<img|<b\b|<[^>]*\s(onerror|onclick)=/i);
    expect(html).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('drops javascript: and data: links', () => {
    const html = render('# T\n\n[a](javascript:alert(1)) [b](data:text/html;base64,PHNjcmlwdD4=) [c](JaVaScRiPt:alert(1))\n');

    expect(html).to.not.match(/<a\b[^>]*href="(javascript|data):/i);
  });

  it('gives headings GitHub\'s anchors, numbering repeats', () => {
    const html = render('# T\n\n## MQTT 5: `Response Topic` & more\n\n## Again\n\n## Again\n');

    expect(html).to.contain('id="mqtt-5-response-topic--more"').and.contain('id="again"').and.contain('id="again-1"');
  });

  it('leaves a link to a file the service does not serve as text that names it', () => {
    const html = render('# T\n\nSee [infra](infra/README.md) and [MQTT](docs/mqtt.md#x).\n');

    expect(html).to.contain('<span class="repo-path" title="infra/README.md in the repository">infra</span>');
    expect(html).to.contain('<a href="/docs/mqtt.md#x">MQTT</a>');
  });

  it('reads README.md and every docs/*.md of the repository', () => {
    expect([...readDocs().keys()]).to.deep.equal(DOC_NAMES);
  });
});
