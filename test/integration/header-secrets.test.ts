/**
 * Header values from files (headers_file) and the environment (headers_env): they reach the node,
 * a reload re-reads them, a missing or bad one is a config error naming the field, and the value
 * itself is in no log line, no /metrics body and no error text.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/exporter/errors.js';
import { loadConfig, parseCli } from '../../src/exporter/config/load.js';
import { Exporter } from '../../src/exporter/exporter.js';
import { createLogger } from '../../src/exporter/logger.js';
import { LogCapture } from '../helpers/exporter.js';
import { hostileNode, json, statisticsBody, STATISTICS_HEADERS, type HostileNode } from '../helpers/hostile.js';

const SECRET = 'CANARY-file-key-4e2a';
const ROTATED = 'CANARY-rotated-key-91bc';
const ENV_SECRET = 'CANARY-env-key-77d0';
const OFF = { markets: { enabled: false }, key_rotations: { enabled: false }, consistency: { enabled: false }, network_history: { enabled: false } };

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** A node that records the X-Api-Key of every request and echoes it in a refusal when it is not one it accepts. */
async function keyedNode(accept: () => string[]): Promise<HostileNode & { seen: string[] }> {
  const seen: string[] = [];
  const node = await hostileNode({
    '/statistics': (req, res) => {
      const key = String(req.headers['x-api-key']);
      seen.push(key);
      if (accept().includes(key)) json(res, statisticsBody(), 200, STATISTICS_HEADERS);
      else json(res, JSON.stringify({ code: 16, message: `key ${key} refused`, details: [] }), 401);
    },
  });
  cleanup.push(node.close);
  return Object.assign(node, { seen });
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dne-secrets-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const configYaml = (targets: object[], extra: object = {}): string =>
  JSON.stringify({ targets, log: { level: 'trace' }, http: { retries: 0 }, collectors: OFF, ...extra });

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('header values from files and the environment', () => {
  it('reach the node; a reload (POST /-/reload) re-reads a rotated file; nothing logs or serves the value', async () => {
    let accepted = [SECRET, ENV_SECRET];
    const node = await keyedNode(() => accepted);
    const dir = tempDir();
    const keyFile = join(dir, 'api-key');
    writeFileSync(keyFile, `${SECRET}\n`); // as `echo` or a Secret written by hand leaves it: trimmed
    const cfgFile = join(dir, 'c.yaml');
    writeFileSync(
      cfgFile,
      configYaml(
        [
          { name: 'f', url: node.url, headers_file: { 'X-Api-Key': keyFile } },
          { name: 'e', url: node.url, headers_env: { 'X-Api-Key': 'DNE_TEST_KEY' } },
        ],
        { web: { enable_lifecycle: true } },
      ),
    );
    const env = { DNE_TEST_KEY: ` ${ENV_SECRET}\n` };
    const load = () => loadConfig(parseCli(['--config.file', cfgFile]), env);
    const logs = new LogCapture();
    const ex = new Exporter(load(), createLogger('trace', logs), load);
    const url = await ex.start('127.0.0.1:0');
    cleanup.push(() => ex.stop());
    const poll = () => Promise.all(ex.runners.filter((r) => r.collector.name === 'statistics').map((r) => r.runOnce()));

    await poll();
    expect(new Set(node.seen)).toEqual(new Set([SECRET, ENV_SECRET]));

    // Rotated: the node now wants the new key; the running exporter still sends the old one until a reload.
    accepted = [ROTATED];
    writeFileSync(keyFile, ROTATED);
    env.DNE_TEST_KEY = ROTATED;
    node.seen.length = 0;
    await poll();
    expect(new Set(node.seen)).toEqual(new Set([SECRET, ENV_SECRET]));
    const reload = await fetch(`${url}/-/reload`, { method: 'POST' });
    expect([reload.status, await reload.text()]).toEqual([200, 'reloaded\n']);
    node.seen.length = 0;
    await poll();
    expect(new Set(node.seen)).toEqual(new Set([ROTATED]));

    // The file gone: the reload fails naming the field and file, and the running configuration stays.
    rmSync(keyFile);
    const failed = await fetch(`${url}/-/reload`, { method: 'POST' });
    const failedText = await failed.text();
    expect(failed.status).toBe(400);
    expect(failedText).toContain(`targets.0.headers_file.X-Api-Key (in ${cfgFile} at line 1, column`);
    expect(failedText).toContain(`cannot read ${keyFile}: ENOENT`);
    node.seen.length = 0;
    await poll();
    expect(new Set(node.seen)).toEqual(new Set([ROTATED]));

    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain('datanode_exporter_config_last_reload_successful 0');
    for (const secret of [SECRET, ENV_SECRET, ROTATED]) {
      expect(metrics).not.toContain(secret);
      expect(logs.text).not.toContain(secret);
      expect(failedText).not.toContain(secret);
    }
    // The old key was refused by the node between rotation and reload, and that was logged (without the echo).
    expect(logs.parsed().some((l) => l.msg === 'collector failing')).toBe(true);
  });

  it('a missing, empty, oversized, non-regular or control-character file, or an unset variable: an error naming the field, never the value', () => {
    const dir = tempDir();
    const file = (name: string, text: string): string => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const KEY_FILE = 'targets.0.headers_file.X-Api-Key';
    const KEY_ENV = 'targets.0.headers_env.X-Api-Key';
    // [fields, the field the error names, what it says]
    const cases: [object, string, string][] = [
      [{ headers_file: { 'X-Api-Key': join(dir, 'none') } }, KEY_FILE, `cannot read ${join(dir, 'none')}: ENOENT`],
      [{ headers_file: { 'X-Api-Key': file('empty', ' \n') } }, KEY_FILE, `${join(dir, 'empty')} is empty`],
      [{ headers_file: { 'X-Api-Key': file('big', `${SECRET}${'x'.repeat(16 * 1024)}`) } }, KEY_FILE, `cannot read ${join(dir, 'big')}: larger than 16 KiB`],
      [{ headers_file: { 'X-Api-Key': fifo } }, KEY_FILE, `cannot read ${fifo}: not a regular file`],
      [
        { headers_file: { 'X-Api-Key': file('ctl', `${SECRET}\r\nX-Injected: 1`) } },
        KEY_FILE,
        `${join(dir, 'ctl')}: expected a header value without CR, LF, NUL or other control characters`,
      ],
      [{ headers_env: { 'X-Api-Key': 'DNE_UNSET_VAR' } }, KEY_ENV, 'environment variable DNE_UNSET_VAR is not set'],
      [{ headers_env: { 'X-Api-Key': 'DNE_CTL_VAR' } }, KEY_ENV, 'environment variable DNE_CTL_VAR: expected a header value without CR'],
      [
        { headers: { 'x-api-key': SECRET }, headers_file: { 'X-Api-Key': file('dup', SECRET) } },
        KEY_FILE,
        'header "X-Api-Key" is also set in headers; expected one source',
      ],
      [{ headers_env: { 'X-Api-Key': 'not a name' } }, KEY_ENV, 'expected an environment variable name'],
      [{ headers: { 'X-Api-Key': `${SECRET}${'x'.repeat(16 * 1024)}` } }, 'targets.0.headers.X-Api-Key', 'expected a header value of at most 16 KiB'],
    ];
    for (const [fields, field, expected] of cases) {
      const cfg = file('c.yaml', configYaml([{ name: 'a', url: 'http://127.0.0.1:9', ...fields }]));
      const err = errorOf(() => loadConfig(parseCli(['--config.file', cfg]), { DNE_CTL_VAR: `${SECRET}\u0000` }));
      expect(err.message, JSON.stringify(fields)).toMatch(new RegExp(`^${field.replace(/\./g, '\\.')} \\(in ${cfg} at line 1, column \\d+\\): `));
      expect(err.message, JSON.stringify(fields)).toContain(expected);
      expect(err.message).not.toContain(SECRET);
      expect(err.code).toBe('CONFIG_INVALID');
    }
  });

  it('discovery files take headers_file too; a missing one keeps the file rejected (logged without the value) until it appears', async () => {
    const node = await keyedNode(() => [SECRET]);
    const dir = tempDir();
    const keyFile = join(dir, 'key');
    const disc = join(dir, 'targets.yaml');
    writeFileSync(disc, JSON.stringify([{ name: 'd', url: node.url, headers_file: { 'X-Api-Key': keyFile } }]));
    const cfgFile = join(dir, 'c.yaml');
    writeFileSync(cfgFile, configYaml([], { discovery: { files: [disc] } }));
    const load = () => loadConfig(parseCli(['--config.file', cfgFile]), {});
    const logs = new LogCapture();
    const ex = new Exporter(load(), createLogger('trace', logs), load);
    cleanup.push(() => ex.stop());
    await ex.startCore();
    expect(ex.targets.size).toBe(0);
    const rejected = logs.parsed().find((l) => l.msg === 'discovery file rejected; keeping its previous targets');
    expect(rejected?.err).toBe(`0.headers_file.X-Api-Key: cannot read ${keyFile}: ENOENT`);

    writeFileSync(keyFile, SECRET);
    await ex.reload();
    expect([...ex.targets.keys()]).toEqual(['d']);
    await Promise.all(ex.runners.filter((r) => r.collector.name === 'statistics').map((r) => r.runOnce()));
    expect(new Set(node.seen)).toEqual(new Set([SECRET]));
    expect(logs.text).not.toContain(SECRET);
  });
});
