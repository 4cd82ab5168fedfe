import { writeFileSync } from 'node:fs';
import { renderMetricDoc } from './metric-doc.js';

writeFileSync(new URL('../docs/metrics.md', import.meta.url), renderMetricDoc());
console.log('wrote docs/metrics.md');
