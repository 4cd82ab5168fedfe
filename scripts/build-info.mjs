// Writes dist/exporter/build-info.json: the git revision and branch the build came from, or
// `unknown` outside git. The image builds without .git: there the revision comes from the
// REVISION build argument, passed in as BUILD_REVISION (and BUILD_BRANCH likewise).
// Plain Node: the image's build stage runs it.
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
// A label value on build_info: a full or abbreviated commit id, a plain branch name, nothing else.
const given = (name, shape) => {
  const v = (process.env[name] ?? '').trim();
  if (v === '' || v === 'unknown') return undefined;
  if (!shape.test(v)) {
    process.stderr.write(`build-info: ${name} must match ${shape} (got ${JSON.stringify(v.slice(0, 80))})\n`);
    process.exit(2);
  }
  return v;
};
const revision = given('BUILD_REVISION', /^[0-9a-f]{7,64}$/) ?? git('rev-parse', 'HEAD');
const branch = given('BUILD_BRANCH', /^[\w./-]{1,100}$/) ?? git('rev-parse', '--abbrev-ref', 'HEAD');
const out = process.argv[2] ?? 'dist/exporter/build-info.json';
writeFileSync(out, `${JSON.stringify({ revision, branch })}\n`);
