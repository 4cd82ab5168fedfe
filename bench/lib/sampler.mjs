// One scrape in every EVERY_MS for SECONDS, each at a random moment of its slot (send-times.mjs says
// why), open loop (like Prometheus: the next scrape does not wait for the last), gzip; prints every
// latency in ms as a JSON array. A process of its own with nothing else loaded, so that its own
// pauses (the bench process's collector, its other work) are not counted as the server's.
// Usage: node sampler.mjs URL SECONDS EVERY_MS
//
// Each scrape on a connection of its own (Prometheus keeps one open, but scrapes it every 15 s,
// not every 20 ms): where the kernel's congestion control is BBR (this machine's default) and the
// loopback has no fq qdisc, a connection reused every 20 ms is now and then paced, and the kernel
// holds a response for 20-45 ms while both processes sleep (docs/performance.md, "Scrapes while
// polls are applied": how latency is sampled).
//
// Plain sockets reading into one reused buffer, not node:http: with node:http, at 50 scrapes a
// second of a 170 KiB body, this process was itself busy for 3-7 ms during several of the slowest
// scrapes (perf sched), and a scrape that ended meanwhile was counted that much slower.
import net from 'node:net';
import { stratified } from './send-times.mjs';

const [url, seconds, everyMs] = [new URL(process.argv[2]), Number(process.argv[3]), Number(process.argv[4])];
const request = Buffer.from(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n`);
const latencies = [];
const inflight = [];
const END_OF_HEAD = Buffer.from('\r\n\r\n');
const MAX_HEAD = 64 * 1024;

/** One scrape: the time from connecting to the last byte of the body (Content-Length). */
function scrape() {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let head = Buffer.alloc(0);
    let remaining = -1;
    let finished = false;
    const done = () => {
      latencies.push(performance.now() - t0);
      finished = true;
      sock.destroy();
      resolve();
    };
    const fail = (err) => {
      finished = true;
      sock.destroy();
      reject(err);
    };
    const sock = net.connect({
      host: url.hostname,
      port: Number(url.port),
      onread: {
        buffer: Buffer.allocUnsafe(256 * 1024),
        callback: (n, buf) => {
          if (remaining >= 0) {
            remaining -= n;
          } else {
            // Until the head is complete (it is a few hundred bytes, almost always in the first read).
            head = Buffer.concat([head, buf.subarray(0, n)]);
            const end = head.indexOf(END_OF_HEAD);
            if (end < 0 && head.length > MAX_HEAD) return void fail(new Error(`no end of the response head in ${head.length} bytes`));
            if (end < 0) return true;
            const text = head.subarray(0, end).toString('latin1');
            if (!/^HTTP\/1\.1 200 /.test(text)) return void fail(new Error(`status: ${text.split('\r\n')[0]}`));
            const length = /\r\ncontent-length: *(\d+)/i.exec(text);
            if (!length) return void fail(new Error('no content-length'));
            remaining = Number(length[1]) - (head.length - end - 4);
          }
          if (remaining <= 0) done();
          return true;
        },
      },
    });
    sock.on('connect', () => sock.write(request));
    sock.on('error', fail);
    sock.on('close', () => finished || fail(new Error('connection closed before the body ended')));
  });
}

const start = performance.now();
const sendAt = stratified(start, everyMs);
const count = Math.round((seconds * 1000) / everyMs);
for (let k = 0; k < count; k++) {
  await new Promise((r) => setTimeout(r, Math.max(0, sendAt(k) - performance.now())));
  inflight.push(scrape());
}
await Promise.all(inflight);
process.stdout.write(JSON.stringify(latencies));
