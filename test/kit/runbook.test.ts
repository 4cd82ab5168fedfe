/**
 * Every alert's runbook link, followed: the rules as `npm run kit:sync --runbook-url=` writes them for
 * a running exporter, each runbook_url fetched from that exporter, and the section found by the
 * anchor in the URL's fragment. The HTML is read by Python's html.parser, not by our code.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { RUNBOOK_URL, withRunbookUrl } from '../../scripts/runbook.js';
import { startExporter, type RunningExporter } from '../helpers/exporter.js';

type Rule = { alert?: string; annotations?: { runbook_url?: string } };

/** id -> [tag, text] of every element with an id, as Python's HTML parser reads the page. */
function ids(html: string): Record<string, [string, string]> {
  const py = `
import sys, json
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.ids = {}; self.open = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if 'id' in a: self.open = (a['id'], tag); self.ids[a['id']] = [tag, '']
    def handle_endtag(self, tag):
        if self.open and tag == self.open[1]: self.open = None
    def handle_data(self, data):
        if self.open: self.ids[self.open[0]][1] += data
p = P(); p.feed(sys.stdin.read()); print(json.dumps(p.ids))
`;
  const r = spawnSync('python3', ['-c', py], { input: html, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`python3 html.parser: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, [string, string]>;
}

let exp: RunningExporter;
beforeAll(async () => {
  exp = await startExporter('http://127.0.0.1:9/'); // no node needed: the runbook does not depend on one
}, 60_000);
afterAll(() => exp?.stop());

describe('runbook links', () => {
  it('every alert links the section of its name on the running exporter', async () => {
    const page = `${exp.url}/runbook`;
    const rules = (parseYaml(withRunbookUrl(readFileSync('prometheus/alerts.yml', 'utf8'), page)) as { groups: { rules: Rule[] }[] }).groups
      .flatMap((g) => g.rules)
      .filter((r) => r.alert);
    expect(rules.length).toBeGreaterThan(10);
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    for (const r of rules) {
      const url = new URL(r.annotations!.runbook_url!);
      const res = await fetch(url);
      expect(res.status, url.href).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const body = await res.text();
      expect(body, 'the runbook of the running version').toContain(`version ${version}`);
      const section = ids(body)[decodeURIComponent(url.hash.slice(1))];
      expect(section, `${r.alert}: no element with id ${url.hash}`).toEqual(['h2', r.alert]);
    }
  });

  it('the shipped links are the exporter on its default listen port', () => {
    const rules = (parseYaml(readFileSync('prometheus/alerts.yml', 'utf8')) as { groups: { rules: Rule[] }[] }).groups
      .flatMap((g) => g.rules)
      .filter((r) => r.alert);
    for (const r of rules) expect(r.annotations?.runbook_url, r.alert).toBe(`${RUNBOOK_URL}#${r.alert!.toLowerCase()}`);
    expect(new URL(RUNBOOK_URL).port).toBe('19308');
  });

  it('the page escapes what it shows and links only http(s) and in-page anchors', async () => {
    const { markdownToHtml } = await import('../../src/exporter/web/runbook.js');
    const html = markdownToHtml('## A <b> & `x<y`\n[js](javascript:alert(1)) [ok](#a-b--xy)\n\n| a | b |\n|---|---|\n| `1` | **2** |\n');
    expect(ids(html)).toEqual({ 'a-b--xy': ['h2', 'A <b> & x<y'] });
    expect(html).not.toContain('javascript:');
    expect(html).toContain('<a href="#a-b--xy">ok</a>');
  });
});
