import { writeFileSync } from 'node:fs';
import { DASHBOARDS, dashboardFile, renderDashboard } from './dashboards.js';

for (const d of DASHBOARDS) {
  writeFileSync(dashboardFile(d), `${JSON.stringify(renderDashboard(d), null, 2)}\n`);
  console.log(`wrote ${dashboardFile(d)}`);
}
