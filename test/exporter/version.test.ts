/** --version, as Prometheus prints it: version, branch and revision from git at build time, Node. */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/exporter/cli.js';
import { buildDist, removeDist } from '../helpers/process.js';

const exec = promisify(execFile);
const PACKAGE_VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const expected = (branch: string, revision: string): string =>
  `datanode-exporter, version ${PACKAGE_VERSION} (branch: ${branch}, revision: ${revision})\n  node version:     ${process.version}\n  platform:         ${process.platform}/${process.arch}\n`;

afterEach(() => vi.restoreAllMocks());
afterAll(() => removeDist());

describe('--version', () => {
  it('from source (tsx): the package version, revision and branch unknown', async () => {
    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => ((out += String(c)), true));
    expect(await main(['--version'])).toBe(0);
    expect(out).toBe(expected('unknown', 'unknown'));
  });

  it('from a build: the branch and revision git gives for this checkout', async () => {
    const dist = await buildDist();
    await exec(process.execPath, ['scripts/build-info.mjs', `${dist}/exporter/build-info.json`]);
    const git = async (...args: string[]): Promise<string> => (await exec('git', args)).stdout.trim();
    const { stdout } = await exec(process.execPath, [`${dist}/exporter/cli.js`, '--version']);
    expect(stdout).toBe(expected(await git('rev-parse', '--abbrev-ref', 'HEAD'), await git('rev-parse', 'HEAD')));
  }, 120_000);
});
