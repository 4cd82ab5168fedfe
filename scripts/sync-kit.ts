/**
 * Writes the generated rule tests (scripts/fleet-tests.ts, resolve-tests.ts), the SLO rules and their
 * tests from prometheus/slos.yml (scripts/slo.ts), then the runbook URLs of every rule and test
 * (scripts/runbook.ts); with `--runbook-url=URL`, that page instead of the exporter's own. The Helm
 * chart reads the same files through symbolic links (helm/datanode-exporter/files), so nothing is copied.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderFleetTests } from './fleet-tests.js';
import { renderResolveTests } from './resolve-tests.js';
import { RUNBOOK_URL, withRunbookUrl } from './runbook.js';
import { renderSloTests, withSloRules } from './slo.js';

const arg = process.argv.slice(2).find((a) => a.startsWith('--runbook-url='));
const page = arg ? arg.slice('--runbook-url='.length) : RUNBOOK_URL;
if (!/^https?:\/\/\S+$/.test(page) || page.includes('#')) {
  console.error(`--runbook-url: an http(s) URL without a fragment, got ${JSON.stringify(page)}`);
  process.exit(2);
}
writeFileSync('prometheus/alerts.yml', withSloRules(readFileSync('prometheus/alerts.yml', 'utf8')));
writeFileSync('prometheus/slo.test.yml', renderSloTests());
writeFileSync('prometheus/fleet.test.yml', renderFleetTests());
writeFileSync('prometheus/resolve.test.yml', renderResolveTests());
console.log('wrote the SLO rules at the end of prometheus/alerts.yml, and slo.test.yml, fleet.test.yml, resolve.test.yml');
const files = ['alerts.yml', 'alerts.test.yml', 'slo.test.yml', 'fleet.test.yml', 'resolve.test.yml'].map((f) => `prometheus/${f}`);
for (const f of files) writeFileSync(f, withRunbookUrl(readFileSync(f, 'utf8'), page));
console.log(`runbook URLs written: ${page}#<alert>`);
