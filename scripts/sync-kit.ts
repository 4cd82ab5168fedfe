/**
 * Writes the runbook URLs of the shipped rules and their unit tests (scripts/runbook.ts), and the
 * generated rule tests (scripts/fleet-tests.ts, resolve-tests.ts), and the SLO rules and their tests
 * from prometheus/slos.yml (scripts/slo.ts). The Helm
 * chart reads the same files through symbolic links (helm/datanode-exporter/files), so nothing is copied.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderFleetTests } from './fleet-tests.js';
import { renderResolveTests } from './resolve-tests.js';
import { renderSloTests, withSloRules } from './slo.js';
import { withRunbookBase } from './runbook.js';

for (const f of ['prometheus/alerts.yml', 'prometheus/alerts.test.yml']) writeFileSync(f, withRunbookBase(readFileSync(f, 'utf8')));
console.log('runbook URLs written');
writeFileSync('prometheus/alerts.yml', withSloRules(readFileSync('prometheus/alerts.yml', 'utf8')));
writeFileSync('prometheus/slo.test.yml', renderSloTests());
console.log('wrote the SLO rules at the end of prometheus/alerts.yml, and prometheus/slo.test.yml');
writeFileSync('prometheus/fleet.test.yml', renderFleetTests());
writeFileSync('prometheus/resolve.test.yml', renderResolveTests());
console.log('wrote prometheus/fleet.test.yml and resolve.test.yml');
