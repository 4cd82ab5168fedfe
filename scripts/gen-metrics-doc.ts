import { writeFileSync } from 'node:fs';
import { renderMetricDoc } from '../src/exporter/metric-doc.js';

writeFileSync(new URL('../docs/metrics.md', import.meta.url), renderMetricDoc());
console.log('wrote docs/metrics.md');
