/** Copy the shipped rules and dashboards into the Helm chart (Helm reads only files inside the chart). */
import { copyFileSync, readdirSync } from 'node:fs';

copyFileSync('prometheus/alerts.yml', 'helm/datanode-exporter/files/alerts.yml');
for (const f of readdirSync('grafana').filter((f) => f.endsWith('.json'))) copyFileSync(`grafana/${f}`, `helm/datanode-exporter/files/dashboards/${f}`);
console.log('helm/datanode-exporter/files synced');
