// Resident memory of a process that loads the libraries the exporter uses, either from their own
// files (the lean loaders) or from the packages' entry points, and node:http by require() or by
// import: `node <flags> import-probe.mjs none|lean|entry|http-require|http-import`.
import { createRequire } from 'node:module';

const require = createRequire(new URL('../../package.json', import.meta.url));
const which = process.argv[2];
if (which === 'lean') {
  require('undici/lib/dispatcher/pool.js');
  require('undici/lib/core/errors.js');
  require('undici/lib/api/api-request.js');
  const Registry = require('prom-client/lib/registry.js');
  require('prom-client/lib/gauge.js');
  const r = new Registry();
  require('prom-client/lib/defaultMetrics.js')({ register: r });
  await r.metrics();
} else if (which === 'entry') {
  void require('undici').Pool;
  const p = require('prom-client');
  const r = new p.Registry();
  p.collectDefaultMetrics({ register: r });
  await r.metrics();
}
if (which === 'http-require') require('node:http').createServer();
if (which === 'http-import') (await import('node:http')).createServer();
await new Promise((r) => setTimeout(r, 300));
globalThis.gc?.();
await new Promise((r) => setTimeout(r, 300));
const m = process.memoryUsage();
process.stdout.write(JSON.stringify({ rssMiB: m.rss / 2 ** 20, heapMiB: m.heapUsed / 2 ** 20 }));
