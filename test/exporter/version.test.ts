/** --version, as Prometheus prints it: version, branch and revision from git at build time, Node. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/exporter/cli.js';

const exec = promisify(execFile);
const PACKAGE_VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const expected = (branch: string, revision: string): string =>
  `datanode-exporter, version ${PACKAGE_VERSION} (branch: ${branch}, revision: ${revision})\n  node version:     ${process.version}\n  platform:         ${process.platform}/${process.arch}\n`;

afterEach(() => vi.restoreAllMocks());

describe('--version', () => {
  it('from source (tsx): the package version, revision and branch unknown', async () => {
    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => ((out += String(c)), true));
    expect(await main(['--version'])).toBe(0);
    expect(out).toBe(expected('unknown', 'unknown'));
  });

  it('from a build: the branch and revision git gives for this checkout, read from build-info.json beside the code', async () => {
    // version.ts compiled on its own, as `npm run build` compiles it, with the file the build writes next to it.
    const out = mkdtempSync(join(tmpdir(), 'dne-version-'));
    try {
      await exec(process.execPath, [
        'node_modules/typescript/bin/tsc',
        'src/exporter/version.ts',
        '--outDir',
        out,
        '--module',
        'nodenext',
        '--target',
        'es2022',
        '--skipLibCheck',
      ]);
      writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
      await exec(process.execPath, ['scripts/build-info.mjs', join(out, 'build-info.json')]);
      const built = (await import(pathToFileURL(join(out, 'version.js')).href)) as typeof import('../../src/exporter/version.js');
      // Without git (a bare machine) the build writes `unknown`, as git's absence means.
      const git = async (...args: string[]): Promise<string> => {
        try {
          return (await exec('git', args)).stdout.trim();
        } catch {
          return 'unknown';
        }
      };
      expect(built.versionText()).toBe(expected(await git('rev-parse', '--abbrev-ref', 'HEAD'), await git('rev-parse', 'HEAD')));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
