/**
 * Global setup of the attack tests (vitest.attacks.config.ts): the exporter compiled once, as
 * `npm run build` compiles it, for every attack file (each file would otherwise compile its own),
 * or the build named by DNE_BUILT_DIST.
 * The path reaches the tests by vitest's provide/inject (helpers/process.ts buildDist).
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The exporter built once for this run, when the run's global setup built it. */
    builtDist: string;
  }
}

export default function setup(project: TestProject): () => void {
  // CI has just built the exporter from this checkout (npm run build): DNE_BUILT_DIST names it.
  const given = process.env.DNE_BUILT_DIST;
  if (given) {
    project.provide('builtDist', given);
    return () => {};
  }
  const out = `.tmp/dist-attacks-${process.pid}`;
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', out, '--sourceMap', 'false'], {
    stdio: 'inherit',
  });
  project.provide('builtDist', out);
  return () => rmSync(out, { recursive: true, force: true });
}
