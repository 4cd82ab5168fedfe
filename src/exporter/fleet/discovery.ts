/**
 * File-based target discovery: YAML or JSON files holding a list of targets (or `{targets: [...]}`),
 * re-read when their content changes. A file that cannot be read or validated keeps its previous
 * targets, and says so once.
 */
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { readRegularFile } from '../config/load.js';
import type { TargetConfig } from '../config/schema.js';
import type { Logger } from '../logger.js';

interface FileState {
  digest: string | undefined;
  targets: TargetConfig[];
  error: string | undefined;
}

export class Discovery {
  private readonly files = new Map<string, FileState>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    paths: readonly string[],
    private readonly log: Logger,
  ) {
    for (const p of paths) this.files.set(p, { digest: undefined, targets: [], error: undefined });
  }

  get targets(): TargetConfig[] {
    return [...this.files.values()].flatMap((f) => f.targets);
  }

  /** Re-read every file; true when any file's targets changed. */
  async refresh(): Promise<boolean> {
    let changed = false;
    for (const [path, st] of this.files) {
      let text: string;
      try {
        // Bounded as the configuration file is: a FIFO or a device never ends a read.
        text = readRegularFile(path).toString('utf8');
      } catch (err) {
        this.fail(path, st, `cannot read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
        // Forget the content, so that the file coming back unchanged is parsed and clears the error.
        st.digest = undefined;
        continue;
      }
      const digest = createHash('sha256').update(text).digest('hex');
      if (digest === st.digest) continue;
      st.digest = digest;
      let doc: unknown;
      try {
        doc = parseYaml(text); // YAML is a superset of JSON: one parser for both
      } catch {
        this.fail(path, st, 'not valid YAML or JSON');
        continue;
      }
      const list = Array.isArray(doc) ? doc : doc && typeof doc === 'object' ? (doc as { targets?: unknown }).targets : undefined;
      // Loaded on first use: an exporter without discovery files never needs the schema library here.
      const { targetListSchema } = await import('../config/schema.js');
      const parsed = targetListSchema.safeParse(list ?? []);
      if (!parsed.success) {
        const i = parsed.error.issues[0]!;
        this.fail(path, st, `${i.path.map(String).join('.') || '(top level)'}: ${i.message}`);
        continue;
      }
      // headers_file and headers_env: read when the discovery file changes, and on every reload.
      const { resolveTargetSecrets } = await import('../config/secrets.js');
      const resolved = parsed.data.map((t) => resolveTargetSecrets(t, process.env));
      const bad = resolved.findIndex((r) => r.issues.length > 0);
      if (bad >= 0) {
        const i = resolved[bad]!.issues[0]!;
        this.fail(path, st, `${[bad, ...i.path].join('.')}: ${i.message}`);
        // Read again next time: the secret may appear without the discovery file changing.
        st.digest = undefined;
        continue;
      }
      if (st.error !== undefined) this.log.info({ file: path }, 'discovery file readable again');
      st.error = undefined;
      st.targets = resolved.map((r) => r.target);
      changed = true;
    }
    return changed;
  }

  private fail(path: string, st: FileState, msg: string): void {
    if (st.error !== msg) this.log.warn({ file: path, err: msg }, 'discovery file rejected; keeping its previous targets');
    st.error = msg;
  }

  watch(intervalMs: number, onChange: () => void): void {
    this.timer = setInterval(() => {
      void this.refresh().then((changed) => changed && onChange());
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
