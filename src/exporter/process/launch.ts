/**
 * How the daemon's Node process is started. The V8 flags and the glibc setting below keep resident
 * memory small and steady (docs/performance.md has the measurements):
 * - a 1 MiB young-generation semi-space (V8 would otherwise let it grow many times that under a
 *   poll's allocation), and V8 told to favour memory over speed, which costs rendering time that
 *   the polling thread keeps off the scrape path at large sizes ("Choices": launch flags);
 * - `--expose-gc`, so that a poll that replaced megabytes of text is collected at once (gc-hint.ts),
 *   and so that the polling thread can bound its heap, without which V8's heap growth is not raised
 *   for it (gc-hint.ts, raiseHeapGrowth);
 * - a fixed 32 KiB mmap threshold: glibc otherwise raises it to the size of the last large block
 *   freed, so every later megabyte-sized body lands in the main heap, which fragments and never
 *   shrinks; and at 32 KiB rather than glibc's initial 128 KiB, the blocks V8's background threads
 *   allocate and free go back to the system whole instead of pinning pages of those threads'
 *   arenas (docs/performance.md, "Node 24").
 * The bin's shebang, `npm start`, the image's ENTRYPOINT and ENV, and the benchmarks use exactly
 * these; test/kit/kit.test.ts checks that they agree.
 */
export const NODE_FLAGS = ['--max-semi-space-size=1', '--optimize-for-size', '--expose-gc'] as const;
export const LAUNCH_ENV = { MALLOC_MMAP_THRESHOLD_: '32768' } as const;

/** The settings this process was started without (empty when started as shipped). */
export function missingLaunchSettings(execArgv: readonly string[] = process.execArgv, env: NodeJS.ProcessEnv = process.env): string[] {
  const missing: string[] = NODE_FLAGS.filter((f) => !execArgv.includes(f));
  for (const [k, v] of Object.entries(LAUNCH_ENV)) if (env[k] !== v) missing.push(`${k}=${v}`);
  return missing;
}
