/**
 * The usual way: a prom-client registry holding the same series, rendered on every request, gzip
 * per request when asked (what compression middleware does).
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';

const [file, port] = [process.argv[2]!, Number(process.argv[3])];
const registry = new Registry();
collectDefaultMetrics({ register: registry });
const gauges = new Map<string, Gauge>();
const help = new Map<string, string>();
for (const line of readFileSync(file, 'utf8').split('\n')) {
  const h = /^# HELP (\S+) (.*)$/.exec(line);
  if (h) help.set(h[1]!, h[2]!);
  if (line === '' || line.startsWith('#')) continue;
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
  if (!m || m[1]!.startsWith('process_') || m[1]!.startsWith('nodejs_')) continue;
  const labels: Record<string, string> = {};
  for (const lm of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[lm[1]!] = lm[2]!.replace(/\\(.)/g, '$1');
  let g = gauges.get(m[1]!);
  if (!g) {
    g = new Gauge({ name: m[1]!, help: help.get(m[1]!) ?? m[1]!, labelNames: Object.keys(labels), registers: [registry] });
    gauges.set(m[1]!, g);
  }
  g.set(labels, Number(m[3]));
}
const type = 'text/plain; version=0.0.4; charset=utf-8';
http
  .createServer(async (req, res) => {
    const text = Buffer.from(await registry.metrics());
    const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    const body = gzip ? gzipSync(text) : text;
    res.writeHead(200, gzip ? { 'content-type': type, 'content-encoding': 'gzip', 'content-length': body.length } : { 'content-type': type, 'content-length': body.length });
    res.end(body);
  })
  .listen(port, '127.0.0.1', () => console.log('ready'));
