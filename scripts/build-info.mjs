// Writes dist/exporter/build-info.json: the git revision and branch the build came from, or
// `unknown` outside git (the image builds without .git). Plain Node: the image's build stage runs it.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import process from 'node:process';

const git = (...args) => {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || 'unknown';
  } catch {
    return 'unknown';
  }
};
const out = process.argv[2] ?? 'dist/exporter/build-info.json';
writeFileSync(out, `${JSON.stringify({ revision: git('rev-parse', 'HEAD'), branch: git('rev-parse', '--abbrev-ref', 'HEAD') })}\n`);
