/** Configuration: precedence, validation messages that name the field, and exit code 2. */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/exporter/cli.js';
import { loadConfig, parseCli } from '../../../src/exporter/config/load.js';
import { configSchema } from '../../../src/exporter/config/schema.js';

const dir = mkdtempSync(join(tmpdir(), 'dne-config-'));
let n = 0;
function yamlFile(text: string): string {
  const p = join(dir, `c${n++}.yaml`);
  writeFileSync(p, text);
  return p;
}

async function run(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  let stderr = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    return { code: await main(argv), stderr };
  } finally {
    spy.mockRestore();
    out.mockRestore();
    process.env = saved;
  }
}

afterEach(() => vi.restoreAllMocks());

describe('config errors exit 2 and name the field', () => {
  const table: [string, string[], Record<string, string>, RegExp][] = [
    ['no target at all', [], {}, /targets: expected at least one target/],
    ['a URL that is not one', ['--datanode.url', 'not a url'], {}, /targets\.0\.url \(--datanode\.url\): expected an http\(s\) URL/],
    ['a URL with credentials', ['--datanode.url', 'http://u:p@h:1'], {}, /targets\.0\.url/],
    [
      'a bad listen address',
      ['--datanode.url', 'http://h:1', '--web.listen-address', 'nope'],
      {},
      /web\.listen_address \(--web\.listen-address\): expected host:port/,
    ],
    ['a port out of range', ['--datanode.url', 'http://h:1', '--web.listen-address', ':70000'], {}, /web\.listen_address .*65535/],
    ['an unknown log level', ['--datanode.url', 'http://h:1', '--log.level', 'loud'], {}, /log\.level \(--log\.level\)/],
    [
      'a bad level from the environment',
      ['--datanode.url', 'http://h:1'],
      { DATANODE_EXPORTER_LOG_LEVEL: 'loud' },
      /log\.level \(DATANODE_EXPORTER_LOG_LEVEL\)/,
    ],
    ['an unknown flag', ['--datanode.uri', 'http://h:1'], {}, /flags: .*datanode\.uri/],
    ['a name without a URL', ['--datanode.name', 'x'], {}, /targets\.0\.name/],
    ['a missing file', ['--config.file', '/nonexistent/x.yaml'], {}, /config\.file: cannot read \/nonexistent\/x\.yaml: ENOENT/],
  ];
  it.each(table)('%s', async (_name, argv, env, message) => {
    const r = await run(argv, env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  const files: [string, string, RegExp][] = [
    ['not YAML', 'targets: [\n  - {name: a', /config\.file: .* is not valid YAML at line/],
    ['a list at the top', '- a\n- b\n', /must hold a YAML mapping/],
    ['a misspelt section', 'targets: [{name: a, url: "http://h:1"}]\ncolectors: {}\n', /colectors/],
    [
      'a bad interval',
      'targets: [{name: a, url: "http://h:1"}]\ncollectors: {statistics: {interval: soon}}\n',
      /collectors\.statistics\.interval .*expected a duration/,
    ],
    [
      'an interval of part of a second',
      'targets: [{name: a, url: "http://h:1"}]\ncollectors: {statistics: {interval: 1500ms}}\n',
      /collectors\.statistics\.interval .*whole seconds/,
    ],
    [
      'a timeout longer than the interval',
      'targets: [{name: a, url: "http://h:1"}]\ncollectors: {key_rotations: {interval: 30s, timeout: 1m}}\n',
      /collectors\.key_rotations\.timeout/,
    ],
    ['duplicate target names', 'targets: [{name: a, url: "http://h:1"}, {name: a, url: "http://h:2"}]\n', /targets\.1\.name .*duplicate target name "a"/],
    ['a bad target name', 'targets: [{name: "a b", url: "http://h:1"}]\n', /targets\.0\.name/],
    ['a page size over the node maximum', 'targets: [{name: a, url: "http://h:1"}]\nhttp: {page_size: 6000}\n', /http\.page_size/],
    [
      'positions switched on with nothing listed',
      'targets: [{name: a, url: "http://h:1"}]\ncollectors: {positions: {enabled: true}}\n',
      /collectors\.positions\.party_ids .*at least one id/,
    ],
    [
      'a malformed order reference',
      'targets: [{name: a, url: "http://h:1"}]\ncollectors: {orders: {ids: ["abc@0"]}}\n',
      /collectors\.orders\.ids\.0 .*version of 1 or more/,
    ],
    [
      'a party id that can never be an id',
      'targets: [{name: a, url: "http://h:1"}]\ncollectors: {positions: {party_ids: [""]}}\n',
      /collectors\.positions\.party_ids\.0 .*expected an id/,
    ],
    ['a negative market limit', 'targets: [{name: a, url: "http://h:1"}]\ncollectors: {markets: {max_markets: -1}}\n', /collectors\.markets\.max_markets/],
    ['a boolean that is a string', 'targets: [{name: a, url: "http://h:1"}]\ncollectors: {statistics: {enabled: "yes"}}\n', /collectors\.statistics\.enabled/],
  ];
  it('a config file that is a FIFO, a device or too large: a clear error at once, no hang, no crash', async () => {
    const fifo = join(dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    const big = yamlFile(`# ${'x'.repeat(5 * 1024 * 1024)}\n`);
    for (const [path, why] of [
      [fifo, 'not a regular file'],
      ['/dev/zero', 'not a regular file'],
      [big, 'larger than 4 MiB'],
    ] as const) {
      const r = await run(['--config.file', path]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`config.file: cannot read ${path}: ${why}`);
    }
  });

  it('a header value with CR, LF or NUL: the field named, the value not echoed', async () => {
    for (const bad of ['secret-key\\r\\nX-Injected: 1', 'secret-key\\n', 'secret-key\\0']) {
      const r = await run(['--config.file', yamlFile(`targets: [{name: a, url: "http://h:1", headers: {X-Api-Key: "${bad}"}}]\n`)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/targets\.0\.headers\.X-Api-Key .*expected a header value without CR, LF, NUL/);
      expect(r.stderr).not.toContain('secret-key');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it.each(files)('config file: %s', async (_name, text, message) => {
    const r = await run(['--config.file', yamlFile(text)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

describe('config sources', () => {
  it('flags beat the environment, which beats the file', () => {
    const file = yamlFile('targets: [{name: filenode, url: "http://file:1"}]\nweb: {listen_address: "127.0.0.1:1111"}\nlog: {level: warn}\n');
    const env = { DATANODE_EXPORTER_WEB_LISTEN_ADDRESS: '127.0.0.1:2222', DATANODE_EXPORTER_LOG_LEVEL: 'debug' };
    const fromFileEnv = loadConfig(parseCli(['--config.file', file]), env);
    expect(fromFileEnv.targets[0]!.name).toBe('filenode');
    expect(fromFileEnv.web.listen_address).toBe('127.0.0.1:2222');
    expect(fromFileEnv.log.level).toBe('debug');
    const withFlags = loadConfig(parseCli(['--config.file', file, '--web.listen-address', ':3333', '--datanode.url', 'http://flag:9/']), env);
    expect(withFlags.web.listen_address).toBe(':3333');
    expect(withFlags.targets).toEqual([{ name: 'flag:9', url: 'http://flag:9/', headers: {} }]);
  });

  it("an installation's default listen address (the image's) sits below the file: a file's web.listen_address wins", () => {
    const env = { DATANODE_EXPORTER_WEB_LISTEN_ADDRESS_DEFAULT: ':19308' };
    const file = yamlFile('targets: [{name: a, url: "http://a:1"}]\nweb: {listen_address: "127.0.0.1:1111"}\n');
    expect(loadConfig(parseCli(['--config.file', file]), env).web.listen_address).toBe('127.0.0.1:1111');
    expect(loadConfig(parseCli(['--datanode.url', 'http://a:1']), env).web.listen_address).toBe(':19308');
    expect(loadConfig(parseCli(['--datanode.url', 'http://a:1']), { ...env, DATANODE_EXPORTER_WEB_LISTEN_ADDRESS: ':2222' }).web.listen_address).toBe(':2222');
    expect(loadConfig(parseCli(['--config.file', file, '--web.listen-address', ':3333']), env).web.listen_address).toBe(':3333');
    expect(() => loadConfig(parseCli(['--datanode.url', 'http://a:1']), { DATANODE_EXPORTER_WEB_LISTEN_ADDRESS_DEFAULT: 'foo' })).toThrow(
      'web.listen_address (DATANODE_EXPORTER_WEB_LISTEN_ADDRESS_DEFAULT): expected host:port, [ipv6]:port or :port',
    );
  });

  it("an installation's default health listener (the image's) sits below the file likewise", () => {
    const env = { DATANODE_EXPORTER_WEB_HEALTH_LISTEN_ADDRESS_DEFAULT: ':19309' };
    const file = yamlFile('targets: [{name: a, url: "http://a:1"}]\nweb: {health_listen_address: "127.0.0.1:1112"}\n');
    expect(loadConfig(parseCli(['--config.file', file]), env).web.health_listen_address).toBe('127.0.0.1:1112');
    expect(loadConfig(parseCli(['--datanode.url', 'http://a:1']), env).web.health_listen_address).toBe(':19309');
    expect(loadConfig(parseCli(['--datanode.url', 'http://a:1']), {}).web.health_listen_address).toBeUndefined();
    expect(loadConfig(parseCli(['--config.file', file, '--web.health-listen-address', ':3334']), env).web.health_listen_address).toBe(':3334');
  });

  it('a malformed listen address gets one message, a port out of range its own', () => {
    const err = (addr: string): string => {
      try {
        loadConfig(parseCli(['--datanode.url', 'http://a:1', '--web.listen-address', addr]), {});
        return '';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(err('foo')).toBe('web.listen_address (--web.listen-address): expected host:port, [ipv6]:port or :port');
    expect(err(':70000')).toBe('web.listen_address (--web.listen-address): port must be at most 65535');
  });

  it('defaults: localhost listener on 19308, the documented intervals', () => {
    const c = loadConfig(parseCli(['--datanode.url', 'http://127.0.0.1:3008']), {});
    expect(c.web.listen_address).toBe('127.0.0.1:19308');
    expect(c.web.telemetry_path).toBe('/metrics');
    expect(c.log.format).toBe('logfmt');
    expect(c.collectors.statistics.interval).toBe(15_000);
    expect(c.collectors.network_history.interval).toBe(15_000);
    expect(c.collectors.key_rotations.interval).toBe(60_000);
  });

  it('the real process exits 2 on a bad config and 0 for --config.check on a good one', async () => {
    const exec = promisify(execFile);
    const cli = ['--import', 'tsx', 'src/exporter/cli.ts'];
    const bad = await exec(process.execPath, [...cli, '--datanode.url', 'ftp://x'], { cwd: process.cwd() }).catch((e: { code: number; stderr: string }) => e);
    expect((bad as { code: number }).code).toBe(2);
    expect((bad as { stderr: string }).stderr).toMatch(/targets\.0\.url/);
    const good = await exec(process.execPath, [...cli, '--datanode.url', 'http://127.0.0.1:3008', '--config.check']);
    expect(good.stdout).toMatch(/configuration is valid/);
  });
});

describe('limits, auth, lifecycle and the probe allow-list', () => {
  const base = { targets: [{ name: 'a', url: 'http://h:1' }] };
  const issues = (extra: object): string[] => {
    const r = configSchema().safeParse({ ...base, ...extra });
    return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
  };
  it('defaults', () => {
    const c = configSchema().parse(base);
    expect(c.limits).toEqual({ label_value_bytes: 128, series_per_target: 20_000, series_per_network: 50_000, metrics_body_bytes: 48 * 1024 * 1024 });
    expect(c.web.auth).toEqual({ max_concurrent_checks: 2, max_queued_checks: 32, max_failures_per_client: 10, failure_window: 60_000 });
    expect(c.web.enable_lifecycle).toBe(false);
    expect(c.web.health_listen_address).toBeUndefined();
    expect(c.web).toMatchObject({
      max_connections: 1024,
      max_requests: 40,
      read_header_timeout: 10_000,
      request_timeout: 30_000,
      write_timeout: 30_000,
      idle_timeout: 15_000,
      max_unsent_bytes_per_connection: 64 * 1024 * 1024,
      max_unsent_bytes: 128 * 1024 * 1024,
    });
    expect(c.http.max_backoff).toBe(600_000);
  });
  it('bad values name their field', () => {
    expect(issues({ limits: { label_value_bytes: 8 } })).toEqual(['limits.label_value_bytes']);
    expect(issues({ limits: { series_per_network: 'many' } })).toEqual(['limits.series_per_network']);
    expect(issues({ web: { max_requests: -1 } })).toEqual(['web.max_requests']);
    expect(new Set(issues({ web: { health_listen_address: 'nowhere' } }))).toEqual(new Set(['web.health_listen_address']));
    expect(issues({ web: { auth: { max_concurrent_checks: 0 } } })).toEqual(['web.auth.max_concurrent_checks']);
    expect(issues({ http: { max_backoff: 'forever' } })).toEqual(['http.max_backoff']);
    expect(issues({ probe: { allowed_urls: ['http://user@127.0.0.1:3008/'] } })).toEqual(['probe.allowed_urls.0']);
    expect(issues({ probe: { allowed_urls: ['http://127.0.0.1:*', 'https://n.example/gw/'] } })).toEqual([]);
  });
  it('--web.enable-lifecycle, its environment variable, and the file agree', () => {
    expect(loadConfig(parseCli(['--datanode.url', 'http://h:1', '--web.enable-lifecycle']), {}).web.enable_lifecycle).toBe(true);
    expect(loadConfig(parseCli(['--datanode.url', 'http://h:1']), { DATANODE_EXPORTER_WEB_ENABLE_LIFECYCLE: 'true' }).web.enable_lifecycle).toBe(true);
    expect(loadConfig(parseCli(['--datanode.url', 'http://h:1']), { DATANODE_EXPORTER_WEB_ENABLE_LIFECYCLE: 'false' }).web.enable_lifecycle).toBe(false);
    expect(() => loadConfig(parseCli(['--datanode.url', 'http://h:1']), { DATANODE_EXPORTER_WEB_ENABLE_LIFECYCLE: 'maybe' })).toThrow(
      /web\.enable_lifecycle \(DATANODE_EXPORTER_WEB_ENABLE_LIFECYCLE\)/,
    );
    expect(
      loadConfig(parseCli(['--config.file', yamlFile('targets: [{name: a, url: "http://h:1"}]\nweb: {enable_lifecycle: true}\n')]), {}).web.enable_lifecycle,
    ).toBe(true);
  });
});
