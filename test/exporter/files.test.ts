/** Reading an operator's file: only a regular file, only within its bound, with a code an operator can read. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRegularFile } from '../../src/exporter/files.js';

describe('readRegularFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'files-'));
  const file = join(dir, 'a.yaml');
  writeFileSync(file, 'targets: []\n');

  it('reads a regular file within its bound', () => {
    expect(readRegularFile(file).toString('utf8')).toBe('targets: []\n');
    expect(readRegularFile(file, 12).length).toBe(12);
  });

  it('refuses a directory and a file over the bound, by code', () => {
    expect(() => readRegularFile(dir)).toThrow(expect.objectContaining({ code: 'not a regular file' }));
    expect(() => readRegularFile(file, 11)).toThrow(expect.objectContaining({ code: 'larger than 11 bytes' }));
    expect(() => readRegularFile(join(dir, 'missing'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});
