/**
 * Soak: thousands of poll cycles against a changing simulator (markets appear and vanish,
 * rotations accrue, faults toggle), reporting heap, series and handles over time.
 * `npm run soak -- --cycles 3000`. The test suite runs a short version (test/hardening/soak.test.ts).
 */
import { parseArgs } from 'node:util';
import { runSoak } from './soak-lib.js';

const { values } = parseArgs({ options: { cycles: { type: 'string', default: '3000' }, every: { type: 'string', default: '250' } } });
const report = await runSoak(Number(values.cycles), Number(values.every), (row) => console.log(JSON.stringify(row)));
console.log(JSON.stringify({ summary: report.summary }));
process.exit(report.summary.ok ? 0 : 1);
