/**
 * The npm package as a user gets it, as the README's Install says: `npm pack` (dist/ built by
 * prepack), then `npm install --prefix <empty folder> ./<tarball>`, production dependencies only
 * from the npm registry, no build on install. It must hold the license, the changelog, the alert
 * rules, dashboards, docs and everything the README links to, and its bin must answer --version and
 * --help and serve a simulated data node. The Helm chart is not in it: its files/ are symbolic links
 * to grafana/ and prometheus/alerts.yml, which npm pack leaves out, so it installs from a checkout.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@datanode-exporter/simulator/server';
import { run } from './docker.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const freePort = (): Promise<number> =>
  new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => res(p));
    });
  });

const PKG = JSON.parse(readFileSync('package.json', 'utf8')) as { name: string; version: string; devDependencies: Record<string, string> };
const HEAD = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();

let dir: string;
let sim: Simulator;
let packed: string[];
let installed: string;
let bin: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dne-pack-'));
  sim = await startSimulator({ host: '127.0.0.1', port: 0, seed: 12 });
  let t0 = Date.now();
  // prepack builds dist/ from the current source.
  const pack = await run('npm', ['pack', '--json', '--pack-destination', dir]);
  expect(pack.code, pack.err).toBe(0);
  const info = JSON.parse(pack.out) as { filename: string; size: number; files: { path: string }[] }[];
  packed = info[0]!.files.map((f) => f.path);
  expect(info[0]!.filename).toBe(`${PKG.name}-${PKG.version}.tgz`);
  console.log(`npm pack: ${((Date.now() - t0) / 1000).toFixed(1)} s, ${packed.length} files, ${(info[0]!.size / 1000).toFixed(0)} kB`);
  // An empty folder, as /opt/datanode-exporter is for the systemd recipe.
  const prefix = join(dir, 'opt', 'datanode-exporter');
  t0 = Date.now();
  const install = await run('npm', ['install', '--prefix', prefix, `./${info[0]!.filename}`], process.env, 300_000, dir);
  expect(install.code, install.err).toBe(0);
  console.log(`npm install --prefix of the tarball: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  installed = join(prefix, 'node_modules', PKG.name);
  bin = join(prefix, 'node_modules', '.bin', 'datanode-exporter');
}, 300_000);

afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm package', () => {
  it('publishable: its license and changelog inside, not private, nothing to build or run on install', () => {
    for (const f of ['LICENSE', 'CHANGELOG.md', 'package.json']) expect(packed, f).toContain(f);
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { private?: boolean; scripts: Record<string, string> };
    expect(pkg.private).toBeUndefined();
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg.scripts[hook], hook).toBeUndefined();
    // The exporter only, compiled: no simulator, demo or source maps.
    expect(packed.filter((f) => f.startsWith('dist/') && !/^dist\/(exporter|shared)\/.*\.js(on)?$/.test(f))).toEqual([]);
    // Production dependencies only.
    for (const d of Object.keys(PKG.devDependencies)) expect(existsSync(join(installed, '..', d)), d).toBe(false);
  });

  it('the installed bin answers --version (the revision packed) and --help', async () => {
    const version = await run(bin, ['--version']);
    expect(version.code, version.err).toBe(0);
    expect(version.out).toMatch(new RegExp(`^datanode-exporter, version ${PKG.version.replaceAll('.', '\\.')} \\(branch: \\S+, revision: ${HEAD}\\)\n`));
    const help = await run(bin, ['--help']);
    expect(help.code, help.err).toBe(0);
    expect(help.out).toMatch(/^Usage: datanode-exporter /);
    expect(help.out).toContain('--datanode.url <url>');
  });

  it('holds the rules, their tests, the dashboards, the docs and what the README links to; no sources, tests or chart', () => {
    const must = ['dist/exporter/cli.js', 'dist/exporter/web/healthcheck.js', 'prometheus/alerts.yml', 'prometheus/alerts.test.yml', 'README.md'];
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
    expect(packed.filter((f) => /^(src|simulator|test|bench|scripts|helm)\//.test(f))).toEqual([]);
    // The installed rules are the repository's.
    expect(readFileSync(join(installed, 'prometheus/alerts.yml'), 'utf8')).toBe(readFileSync('prometheus/alerts.yml', 'utf8'));
  });

  it('the installed bin serves the simulator: vega_up 1; its healthcheck passes; SIGTERM stops it with 0', async () => {
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
      // The installed package's runbook, where every alert's runbook_url points.
      const runbook = await fetch(`http://127.0.0.1:${port}/runbook`).then((r) => r.text());
      expect(runbook).toContain('<h2 id="datanodeexporterdown">DatanodeExporterDown</h2>');
      // The health check of the process itself, as the image runs it.
      const byPid = await run(bin, ['healthcheck', `--pid=${child.pid}`]);
      expect(byPid.code, byPid.err).toBe(0);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
