/**
 * File-based target discovery: YAML or JSON files holding a list of targets (or `{targets: [...]}`),
 * re-read when their content changes. A file that cannot be read or validated, or that lists more
 * targets than allowed (per file, and in all), keeps its previous targets, and says so once.
 */
import { createHash } from 'node:crypto';
import { readRegularFile, yaml } from '../files.js';
import type { TargetConfig } from '../config/schema.js';
import { resolveTargetSecrets } from '../config/secrets.js';
import type { Logger } from '../logger.js';

interface FileState {
  digest: string | undefined;
  targets: TargetConfig[];
  error: string | undefined;
}

export interface DiscoveryLimits {
  /** Targets one file may list. */
  maxTargetsPerFile: number;
  /** Targets all files may list together. */
  maxTargets: number;
}

/**
 * How many entries the sequences of a YAML (or JSON) text have at least, counted on its tokens,
 * stopping past `max`: a file listing 100,000 targets is refused after reading a few thousand
 * tokens, instead of being parsed (seconds of the serving thread and hundreds of MiB) first. An
 * upper bound on the number of targets: each block-sequence `-`, each flow sequence and each comma
 * directly inside one.
 */
export function sequenceEntries(text: string, max: number): number {
  let n = 0;
  const flow: string[] = [];
  let scalar = false;
  for (const token of new (yaml().Lexer)().lex(text)) {
    if (scalar) {
      scalar = false; // a scalar's source, whatever it holds
      continue;
    }
    if (token === '\x1f') scalar = true;
    else if (token === '-' || token === '[') n++;
    else if (token === ',' && flow.at(-1) === '[') n++;
    if (token === '[' || token === '{') flow.push(token);
    else if (token === ']' || token === '}') flow.pop();
    if (n > max) break;
  }
  return n;
}

export class Discovery {
  private readonly files = new Map<string, FileState>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    paths: readonly string[],
    private readonly log: Logger,
    private readonly limits: DiscoveryLimits = { maxTargetsPerFile: Infinity, maxTargets: Infinity },
  ) {
    for (const p of paths) this.files.set(p, { digest: undefined, targets: [], error: undefined });
  }

  get targets(): TargetConfig[] {
    return [...this.files.values()].flatMap((f) => f.targets);
  }

  /** Re-read every file; true when any file's targets changed. */
  async refresh(): Promise<boolean> {
    let changed = false;
    for (const [path, st] of this.files) if (await this.refreshFile(path, st)) changed = true;
    return changed;
  }

  /** Re-read one file; true when its targets changed. A rejected file keeps its previous targets. */
  private async refreshFile(path: string, st: FileState): Promise<boolean> {
    let text: string;
    try {
      // Bounded as the configuration file is: a FIFO or a device never ends a read.
      text = readRegularFile(path).toString('utf8');
    } catch (err) {
      this.fail(path, st, 'DISCOVERY_UNREADABLE', `cannot read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
      // Forget the content, so that the file coming back unchanged is parsed and clears the error.
      st.digest = undefined;
      return false;
    }
    const digest = createHash('sha256').update(text).digest('hex');
    if (digest === st.digest) return false;
    st.digest = digest;
    const r = await this.parse(path, text);
    if ('code' in r) {
      this.fail(path, st, r.code, r.msg);
      if (r.again) st.digest = undefined;
      return false;
    }
    if (st.error !== undefined) this.log.info({ file: path }, 'discovery file readable again');
    st.error = undefined;
    st.targets = r.targets;
    return true;
  }

  /** A file's text as its targets, or why it is rejected (`again`: read it next time even if unchanged). */
  private async parse(path: string, text: string): Promise<{ targets: TargetConfig[] } | { code: string; msg: string; again?: boolean }> {
    const perFile = this.limits.maxTargetsPerFile;
    if (sequenceEntries(text, perFile) > perFile)
      return { code: 'DISCOVERY_TOO_MANY_TARGETS', msg: `lists more than ${perFile} targets (discovery.max_targets_per_file)` };
    let doc: unknown;
    try {
      doc = yaml().parse(text); // YAML is a superset of JSON: one parser for both
    } catch {
      return { code: 'DISCOVERY_INVALID', msg: 'not valid YAML or JSON' };
    }
    const list = Array.isArray(doc) ? doc : doc && typeof doc === 'object' ? (doc as { targets?: unknown }).targets : undefined;
    // Loaded on first use: an exporter without discovery files never needs the schema library here.
    const { targetListSchema } = await import('../config/schema.js');
    const parsed = targetListSchema().safeParse(list ?? []);
    if (!parsed.success) {
      const i = parsed.error.issues[0]!;
      return { code: 'DISCOVERY_INVALID', msg: `${i.path.map(String).join('.') || '(top level)'}: ${i.message}` };
    }
    const others = [...this.files].reduce((sum, [p, f]) => sum + (p === path ? 0 : f.targets.length), 0);
    if (others + parsed.data.length > this.limits.maxTargets)
      return {
        code: 'DISCOVERY_TOO_MANY_TARGETS',
        msg: `its targets would bring the discovered targets over ${this.limits.maxTargets} (discovery.max_targets)`,
        again: true, // another file may have shrunk
      };
    // headers_file and headers_env: read when the discovery file changes, and on every reload.
    const resolved = parsed.data.map((t) => resolveTargetSecrets(t, process.env));
    const bad = resolved.findIndex((r) => r.issues.length > 0);
    if (bad >= 0) {
      const i = resolved[bad]!.issues[0]!;
      // Read again next time: the secret may appear without the discovery file changing.
      return { code: 'DISCOVERY_INVALID', msg: `${[bad, ...i.path].join('.')}: ${i.message}`, again: true };
    }
    return { targets: resolved.map((r) => r.target) };
  }

  private fail(path: string, st: FileState, code: string, msg: string): void {
    if (st.error !== msg) this.log.warn({ code, file: path, err: msg }, 'discovery file rejected; keeping its previous targets');
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
