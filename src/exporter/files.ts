/** Reading the files an operator names (configuration, web config, TLS, secrets, discovery), bounded. */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

/** The largest configuration, web-config or TLS file read: hand-written files are far smaller. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

const sizeText = (n: number): string => (n % (1 << 20) === 0 ? `${n / (1 << 20)} MiB` : n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`);

/**
 * A file's bytes, only when it is a regular file within maxBytes (default MAX_FILE_BYTES): a FIFO would block start-up
 * (and SIGTERM with it) and a device such as /dev/zero never ends. Opened non-blocking, so that
 * opening a FIFO cannot block either. Errors carry a `code` an operator can read.
 */
export function readRegularFile(path: string, maxBytes = MAX_FILE_BYTES): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'not a regular file' });
    if (st.size > maxBytes) throw Object.assign(new Error('too large'), { code: `larger than ${sizeText(maxBytes)}` });
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

let yamlModule: typeof Yaml | undefined;

/**
 * The YAML parser, loaded when a file is first read: an exporter configured by flags and
 * environment alone never needs it (its 72 modules: about half a MiB of V8 heap).
 */
export function yaml(): typeof Yaml {
  yamlModule ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return yamlModule;
}
