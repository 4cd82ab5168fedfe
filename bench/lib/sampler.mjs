// One scrape every EVERY_MS for SECONDS, open loop (like Prometheus: the next scrape does not wait
// for the last), gzip; prints every latency in ms as a JSON array. A process of its own with
// nothing else loaded, so that its own pauses (the bench process's collector, its other work) are
// not counted as the server's. Usage: node sampler.mjs URL SECONDS EVERY_MS
import http from 'node:http';

const [url, seconds, everyMs] = [new URL(process.argv[2]), Number(process.argv[3]), Number(process.argv[4])];
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const latencies = [];
const inflight = [];

function scrape() {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    http
      .get({ host: url.hostname, port: url.port, path: url.pathname + url.search, agent, headers: { 'accept-encoding': 'gzip' } }, (res) => {
        res.on('data', () => {});
        res.on('end', () => {
          latencies.push(performance.now() - t0);
          resolve();
        });
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

const end = performance.now() + seconds * 1000;
let next = performance.now();
while (performance.now() < end) {
  inflight.push(scrape());
  next += everyMs;
  await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
}
await Promise.all(inflight);
agent.destroy();
process.stdout.write(JSON.stringify(latencies));
