/** The simulator stands for a real data node: it must not share code with the exporter it tests. */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dir = new URL('../../src/simulator/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));

describe('simulator independence', () => {
  it.each(files)('%s imports nothing from src/exporter', (f) => {
    const text = readFileSync(new URL(f, dir), 'utf8');
    expect(text).not.toMatch(/from '\.\.\/exporter\//);
  });
});
