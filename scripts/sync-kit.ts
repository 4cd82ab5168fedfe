/**
 * Writes the runbook URLs of the shipped rules and their unit tests (scripts/runbook.ts), and copies
 * the rules and dashboards into the Helm chart (Helm reads only files inside the chart).
 */
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { withRunbookBase } from './runbook.js';

for (const f of ['prometheus/alerts.yml', 'prometheus/alerts.test.yml']) writeFileSync(f, withRunbookBase(readFileSync(f, 'utf8')));
copyFileSync('prometheus/alerts.yml', 'helm/datanode-exporter/files/alerts.yml');
for (const f of readdirSync('grafana').filter((f) => f.endsWith('.json'))) copyFileSync(`grafana/${f}`, `helm/datanode-exporter/files/dashboards/${f}`);
console.log('runbook URLs written; helm/datanode-exporter/files synced');
