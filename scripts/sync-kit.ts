/**
 * Writes the runbook URLs of the shipped rules and their unit tests (scripts/runbook.ts); with
 * `--runbook-url=URL`, that page instead of the exporter's own. The Helm chart reads the same files
 * through symbolic links (helm/datanode-exporter/files), so nothing is copied.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { RUNBOOK_URL, withRunbookUrl } from './runbook.js';

const arg = process.argv.slice(2).find((a) => a.startsWith('--runbook-url='));
const page = arg ? arg.slice('--runbook-url='.length) : RUNBOOK_URL;
if (!/^https?:\/\/\S+$/.test(page) || page.includes('#')) {
  console.error(`--runbook-url: an http(s) URL without a fragment, got ${JSON.stringify(page)}`);
  process.exit(2);
}
for (const f of ['prometheus/alerts.yml', 'prometheus/alerts.test.yml']) writeFileSync(f, withRunbookUrl(readFileSync(f, 'utf8'), page));
console.log(`runbook URLs written: ${page}#<alert>`);
