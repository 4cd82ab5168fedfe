/**
 * GET /runbook: docs/runbook.md as one HTML page, so that every alert's runbook_url can point at the
 * exporter itself (a fresh install has no other address that serves the docs of this version). Each
 * heading gets the anchor GitHub gives it (lower case, punctuation dropped, spaces as dashes), so the
 * same `#<alert>` fragment works on a published copy of the Markdown too.
 *
 * The renderer covers the Markdown that file uses (headings, paragraphs, fenced code, tables, bold,
 * inline code, links); anything else shows as text. Every piece of text is escaped.
 */
import { readFileSync } from 'node:fs';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** GitHub's heading anchor: lower case, characters other than letters, digits, `-`, `_` and spaces dropped, spaces as `-`. */
export const anchorOf = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');

/** Inline Markdown: `code`, **bold**, [text](url). Links only to http(s) or an in-page fragment. */
function inline(text: string): string {
  const out: string[] = [];
  const re = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push(esc(text.slice(last, m.index)));
    if (m[1] !== undefined) out.push(`<code>${esc(m[1])}</code>`);
    else if (m[2] !== undefined) out.push(`<strong>${inline(m[2])}</strong>`);
    else if (/^(https?:\/\/|#)/.test(m[4]!)) out.push(`<a href="${esc(m[4]!)}">${inline(m[3]!)}</a>`);
    else out.push(inline(m[3]!));
    last = re.lastIndex;
  }
  out.push(esc(text.slice(last)));
  return out.join('');
}

const cells = (row: string): string[] =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());

/** The body of the page: one HTML element per Markdown block. */
export function markdownToHtml(md: string): string {
  const lines = md.replace(/\r\n/g, '\n').split('\n');
  const html: string[] = [];
  let para: string[] = [];
  const flush = (): void => {
    if (para.length > 0) html.push(`<p>${inline(para.join('\n'))}</p>`);
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heading = /^(#{1,6}) +(.*?) *$/.exec(line);
    if (line.startsWith('```')) {
      flush();
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) code.push(lines[i]!);
      html.push(`<pre><code>${esc(code.join('\n'))}</code></pre>`);
    } else if (heading) {
      flush();
      const n = heading[1]!.length;
      html.push(`<h${n} id="${esc(anchorOf(heading[2]!))}">${inline(heading[2]!)}</h${n}>`);
    } else if (line.startsWith('|') && /^\|[\s|:-]+\|$/.test(lines[i + 1]?.trim() ?? '')) {
      flush();
      const head = cells(line);
      const rows: string[][] = [];
      for (i += 2; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(cells(lines[i]!));
      i--;
      html.push(
        `<table><tr>${head.map((c) => `<th>${inline(c)}</th>`).join('')}</tr>\n${rows.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('\n')}</table>`,
      );
    } else if (line.trim() === '') flush();
    else para.push(line);
  }
  flush();
  return html.join('\n');
}

export function runbookPage(md: string, version: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>datanode-exporter ${esc(version)} runbook</title>
<style>body{font-family:sans-serif;max-width:60em;margin:auto;padding:0 1em}pre,code{background:#f4f4f4}pre{padding:.5em;overflow-x:auto}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px;vertical-align:top}</style>
</head><body>
<p><a href="/">datanode-exporter</a> version ${esc(version)}: docs/runbook.md of this version.</p>
${markdownToHtml(md)}
</body></html>
`;
}

/** docs/runbook.md of this package: two directories up from src/exporter/web or dist/exporter/web. */
export const RUNBOOK_FILE = new URL('../../../docs/runbook.md', import.meta.url);

let cached: string | undefined;

/** The page, rendered once from the packaged file; a missing file gives a page that says so (and logs nothing secret). */
export function runbookHtml(version: string, file: URL = RUNBOOK_FILE): string {
  if (cached !== undefined) return cached;
  let md: string;
  try {
    md = readFileSync(file, 'utf8');
  } catch (err) {
    // Not cached: a package installed without docs/ serves the note until restarted with them.
    return runbookPage(`# Runbook\n\nThis installation has no docs/runbook.md (${(err as NodeJS.ErrnoException).code ?? 'unreadable'}).`, version);
  }
  cached = runbookPage(md, version);
  return cached;
}
