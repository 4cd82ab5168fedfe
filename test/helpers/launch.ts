/** The launch settings, read from where they are written once: the bin's shebang line. */
import { readFileSync } from 'node:fs';

export interface LaunchSettings {
  env: Record<string, string>;
  flags: string[];
}

export function launchSettings(file = 'src/exporter/cli.ts'): LaunchSettings {
  const line = readFileSync(file, 'utf8').split('\n')[0]!;
  const m = /^#!\/usr\/bin\/env -S (.*)$/.exec(line);
  if (!m) throw new Error(`${file}: the first line is not a '#!/usr/bin/env -S' shebang`);
  const words = m[1]!.split(' ');
  const node = words.indexOf('node');
  return { env: Object.fromEntries(words.slice(0, node).map((w) => w.split('=') as [string, string])), flags: words.slice(node + 1) };
}
