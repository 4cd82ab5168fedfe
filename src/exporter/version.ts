/**
 * The exporter's version and build: revision and branch come from build-info.json, which
 * `npm run build` writes next to the compiled code from git (scripts/build-info.mjs); run from
 * source, or built outside git, they are `unknown`.
 */
import { readFileSync } from 'node:fs';

export const VERSION = '0.1.0';

export interface BuildInfo {
  version: string;
  revision: string;
  branch: string;
  nodejs_version: string;
}

function fromBuild(): { revision: string; branch: string } {
  try {
    const j = JSON.parse(readFileSync(new URL('./build-info.json', import.meta.url), 'utf8')) as { revision?: unknown; branch?: unknown };
    const str = (v: unknown): string => (typeof v === 'string' && v !== '' ? v : 'unknown');
    return { revision: str(j.revision), branch: str(j.branch) };
  } catch {
    return { revision: 'unknown', branch: 'unknown' };
  }
}

export const BUILD: BuildInfo = { version: VERSION, ...fromBuild(), nodejs_version: process.version };

/** What --version prints, in the shape of Prometheus's own `--version`. */
export function versionText(b: BuildInfo = BUILD): string {
  return [
    `datanode-exporter, version ${b.version} (branch: ${b.branch}, revision: ${b.revision})`,
    `  node version:     ${b.nodejs_version}`,
    `  platform:         ${process.platform}/${process.arch}`,
    '',
  ].join('\n');
}
