/**
 * The stylesheet of the front door and the docs (page-layout.ts): the console's palette (src/console/web/console.css),
 * readable Markdown tables and code, and nothing wider than a phone's screen (375 px) but a table or code block,
 * which scrolls inside its own box.
 */
export const PAGES_CSS = `:root {
  color-scheme: light dark;
  --fg: #1b1f24; --muted: #57606a; --bg: #ffffff; --card: #f6f8fa; --line: #d0d7de; --accent: #0a58ca;
  --ok: #116329; --ok-bg: #dafbe1; --fail: #b00020; --fail-bg: #ffebe9;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  line-height: 1.5;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e6edf3; --muted: #9da7b3; --bg: #0d1117; --card: #161b22; --line: #30363d; --accent: #6cb6ff;
    --ok: #7ee787; --ok-bg: #12361d; --fail: #ff7b72; --fail-bg: #3d1214;
  }
}
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.top { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: .5rem 1rem;
  padding: .75rem 1rem; border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; text-decoration: none; color: var(--fg); }
.top nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
main { max-width: 56rem; margin: 0 auto; padding: 1rem; overflow-wrap: break-word; }
h1 { font-size: 1.7rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.3rem; margin: 2rem 0 .75rem; padding-bottom: .25rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
.anchor { margin-left: .4rem; color: var(--muted); text-decoration: none; visibility: hidden; }
h1:hover .anchor, h2:hover .anchor, h3:hover .anchor, h4:hover .anchor, .anchor:focus { visibility: visible; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; }
:not(pre) > code { background: var(--card); border: 1px solid var(--line); border-radius: 4px; padding: 0 .25rem; }
pre { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; overflow-x: auto; line-height: 1.4; }
.table-wrap { overflow-x: auto; margin: 1rem 0; }
table { border-collapse: collapse; min-width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .4rem .6rem; border: 1px solid var(--line); }
thead th { background: var(--card); }
td:first-child code { white-space: nowrap; }
tbody tr:nth-child(even) { background: var(--card); }
blockquote { margin: 1rem 0; padding: 0 1rem; color: var(--muted); border-left: 4px solid var(--line); }
.repo-path { border-bottom: 1px dotted var(--muted); }
.lead { font-size: 1.1rem; color: var(--muted); }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); gap: 1rem; margin: 1rem 0; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; }
.card h2 { margin-top: 0; font-size: 1.1rem; border: 0; }
.facts { display: grid; grid-template-columns: fit-content(60%) 1fr; gap: .25rem 1rem; margin: 0; }
.facts dt { font-weight: 600; }
.facts dd { margin: 0; }
.status { display: inline-block; padding: 0 .5rem; border-radius: 1rem; font-weight: 600; font-size: .9rem; }
.status.ok { color: var(--ok); background: var(--ok-bg); }
.status.fail { color: var(--fail); background: var(--fail-bg); }
.links li { margin: .25rem 0; }
.hint { color: var(--muted); font-size: .9rem; }
`;
