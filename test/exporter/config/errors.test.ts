/** Config errors that say what is wrong and where: each with the exact message an operator reads. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { USAGE, loadConfig, parseCli } from '../../../src/exporter/config/load.js';
import { thrown } from '../../helpers/thrown.js';

const dir = mkdtempSync(join(tmpdir(), 'dne-errors-'));
let n = 0;
/** The message loading this file gives, with the file's path written as FILE. */
function errorOf(text: string, argv: string[] = [], env: NodeJS.ProcessEnv = {}): string {
  const p = join(dir, `e${n++}.yaml`);
  writeFileSync(p, text);
  return thrown(() => loadConfig(parseCli(['--config.file', p, ...argv]), env)).message.replaceAll(p, 'FILE');
}
const T = 'targets: [{name: a, url: "http://127.0.0.1:3008"}]\n';

describe('YAML mistakes, with line and column', () => {
  it('a key indented less than its siblings: the indentation, not a missing quote or bracket', () => {
    expect(errorOf('targets:\n  - name: a\n    url: "http://127.0.0.1:3008"\n   network: main\n')).toBe(
      'config.file: FILE is not valid YAML at line 4, column 1: the indentation does not line up with the lines above',
    );
    expect(errorOf('web:\n  listen_address: ":19308"\n max_connections: 3\n')).toBe(
      'config.file: FILE is not valid YAML at line 3, column 1: the indentation does not line up with the lines above',
    );
  });

  it('an unclosed [: the bracket and where it opens, not the indentation', () => {
    expect(errorOf('targets: [{name: a, url: "http://127.0.0.1:3008"}\nlog: {level: info}\n')).toBe(
      'config.file: FILE is not valid YAML at line 2, column 1: the "[" at line 1, column 10 is never closed (no "]")',
    );
    expect(errorOf('targets:\n  - {name: a, url: "http://127.0.0.1:3008"\nlog: {level: info}\n')).toBe(
      'config.file: FILE is not valid YAML at line 3, column 1: the "{" at line 2, column 5 is never closed (no "}")',
    );
  });

  it('an unclosed quote: the quote; the line itself (it may hold a header value) is not quoted', () => {
    const msg = errorOf('targets:\n  - name: a\n    url: "http://127.0.0.1:3008"\n    headers: {x-api-key: "s3cret-key}\n');
    expect(msg).toBe('config.file: FILE is not valid YAML at line 5, column 1: a closing quote is missing');
  });
});

describe('values the schema refuses, with where they are written', () => {
  it('interval: whole seconds from 1s to 24h', () => {
    for (const bad of ['1500ms', '500ms', '25h'])
      expect(errorOf(`${T}collectors:\n  statistics:\n    interval: ${bad}\n`)).toBe(
        'collectors.statistics.interval (in FILE at line 4, column 15): expected an interval of whole seconds, from 1s to 24h',
      );
    for (const [ok, ms] of [
      ['7s', 7_000],
      ['45s', 45_000],
      ['90s', 90_000],
      ['7m', 420_000],
      ['5h', 18_000_000],
      ['20s', 20_000],
      ['12m', 720_000],
      ['8h', 28_800_000],
      ['24h', 86_400_000],
      ['60s', 60_000],
    ] as const) {
      const p = join(dir, `ok${n++}.yaml`);
      writeFileSync(p, `${T}collectors: {statistics: {interval: ${ok}}}\n`);
      expect(loadConfig(parseCli(['--config.file', p]), {}).collectors.statistics.interval, ok).toBe(ms);
    }
  });

  it('log.level lists the levels --help lists', () => {
    const LEVELS = 'trace, debug, info, warn, error, fatal, silent';
    expect(errorOf(`${T}log: {level: verbose}\n`)).toBe(`log.level (in FILE at line 2, column 14): expected one of: ${LEVELS}`);
    expect(errorOf(T, ['--log.level', 'verbose'])).toBe(`log.level (--log.level): expected one of: ${LEVELS}`);
    expect(USAGE).toMatch(new RegExp(`^  --log\\.level <level> +${LEVELS}( |;)`, 'm'));
  });

  it('log.format and web.telemetry_path: the flag, its environment variable and the file', () => {
    expect(errorOf(T, ['--log.format', 'text'])).toBe('log.format (--log.format): expected one of: logfmt, json');
    expect(errorOf(T, [], { DATANODE_EXPORTER_LOG_FORMAT: 'text' })).toBe('log.format (DATANODE_EXPORTER_LOG_FORMAT): expected one of: logfmt, json');
    expect(errorOf(T, ['--web.telemetry-path', 'metrics'])).toBe('web.telemetry_path (--web.telemetry-path): expected a path such as /metrics');
    expect(errorOf(`${T}web: {telemetry_path: /healthz}\n`)).toBe(
      'web.telemetry_path (in FILE at line 2, column 23): expected a path other than /, /healthz, /readyz, /probe, /-/reload, /runbook',
    );
  });
});

describe('unknown keys', () => {
  it('suggest the nearest known key, wherever they are', () => {
    expect(errorOf(`${T}colectors: {}\n`)).toBe('(top level) (in FILE at line 2, column 1): unknown key "colectors"; did you mean "collectors"?');
    expect(errorOf(`${T}web:\n  listen_adress: ":19308"\n`)).toBe(
      'web (in FILE at line 3, column 3): unknown key "listen_adress"; did you mean "listen_address"?',
    );
    expect(errorOf('targets:\n  - name: a\n    url: "http://127.0.0.1:3008"\n    header: {}\n')).toBe(
      'targets.0 (in FILE at line 4, column 5): unknown key "header"; did you mean "headers"?',
    );
    expect(errorOf(`${T}collectors:\n  statistics: {intreval: 15s}\n`)).toBe(
      'collectors.statistics (in FILE at line 3, column 16): unknown key "intreval"; did you mean "interval"?',
    );
  });

  it('list the known keys when none is near', () => {
    expect(errorOf(`${T}zzzzzz: 1\n`)).toBe(
      '(top level) (in FILE at line 2, column 1): unknown key "zzzzzz"; expected one of: targets, web, log, http, discovery, shard, probe, limits, collectors',
    );
  });
});
