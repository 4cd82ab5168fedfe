/**
 * The npm package as a user gets it: `npm pack`, installed into an empty project with production
 * dependencies only (from the npm cache when it has them), must hold the alert rules, dashboards,
 * docs and everything the README links to, and its bin must serve a simulated data node.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/server.js';
import { run } from './docker.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const freePort = (): Promise<number> =>
  new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => res(p));
    });
  });

let dir: string;
let sim: Simulator;
let packed: string[];
let installed: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dne-pack-'));
  sim = await startSimulator({ host: '127.0.0.1', port: 0, seed: 12 });
  let t0 = Date.now();
  // npm pack runs the prepare script (tsc), so dist/ is the current source.
  const pack = await run('npm', ['pack', '--json', '--pack-destination', dir]);
  expect(pack.code, pack.err).toBe(0);
  const info = JSON.parse(pack.out) as { filename: string; files: { path: string }[] }[];
  packed = info[0]!.files.map((f) => f.path);
  console.log(`npm pack: ${((Date.now() - t0) / 1000).toFixed(1)} s, ${packed.length} files`);
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  t0 = Date.now();
  const install = await run('npm', ['install', join(dir, info[0]!.filename), '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', '--prefix', project]);
  expect(install.code, install.err).toBe(0);
  console.log(`npm install of the tarball: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  installed = join(project, 'node_modules', 'datanode-exporter');
}, 180_000);

afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm package', () => {
  it('holds the rules, their tests, the dashboards, the docs, the chart and what the README links to; no sources or tests', () => {
    const must = [
      'dist/exporter/cli.js',
      'dist/exporter/web/healthcheck.js',
      'prometheus/alerts.yml',
      'prometheus/alerts.test.yml',
      'README.md',
      'helm/datanode-exporter/Chart.yaml',
    ];
    must.push(
      ...readdirSync('grafana')
        .filter((f) => f.endsWith('.json'))
        .map((f) => `grafana/${f}`),
    );
    must.push(...readdirSync('docs').map((f) => `docs/${f}`));
    const readme = readFileSync('README.md', 'utf8');
    const links = [...readme.matchAll(/\]\(([^)#:]+)(#[^)]*)?\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    must.push(...links);
    for (const f of must) {
      expect(packed, f).toContain(f);
      expect(existsSync(join(installed, f)), `installed ${f}`).toBe(true);
    }
    expect(packed.filter((f) => /^(src|test|bench|scripts)\//.test(f))).toEqual([]);
    // The installed rules are the repository's.
    expect(readFileSync(join(installed, 'prometheus/alerts.yml'), 'utf8')).toBe(readFileSync('prometheus/alerts.yml', 'utf8'));
  });

  it('the installed bin serves the simulator: vega_up 1; its healthcheck passes; SIGTERM stops it with 0', async () => {
    const bin = resolve(installed, '..', '.bin', 'datanode-exporter');
    const port = await freePort();
    const child = spawn(bin, ['--datanode.url', sim.url, '--web.listen-address', `127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      let metrics = '';
      for (let i = 0; i < 80 && !/^vega_up\{[^}]*\} 1$/m.test(metrics); i++) {
        await sleep(250);
        metrics = await fetch(`http://127.0.0.1:${port}/metrics`).then(
          (r) => r.text(),
          () => '',
        );
      }
      expect(metrics, out).toMatch(/^vega_up\{[^}]*\} 1$/m);
      // Started as shipped: no warning about missing memory settings.
      expect(out).not.toMatch(/started without the memory settings/);
      const hc = await run(bin, ['healthcheck', '--web.listen-address', `127.0.0.1:${port}`]);
      expect(hc.code, hc.err).toBe(0);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
