/** One network: network-scoped runners that ask the freshest healthy member first. */
import type { CollectorRunner } from '../engine/runner.js';
import { runnersFor, type RuntimeContext } from './runtime-context.js';
import { candidateOrder } from './signals.js';
import type { TargetRuntime } from './target-runtime.js';

export class NetworkRuntime {
  readonly runners: CollectorRunner[];

  constructor(
    readonly network: string,
    ctx: RuntimeContext,
    members: () => TargetRuntime[],
  ) {
    // Requests made for the network are counted on the targets that served them.
    const applied = () => members().forEach((t) => t.applyRequestCounts());
    const candidates = () => {
      const rts = members();
      const byName = new Map(rts.map((t) => [t.cfg.name, t]));
      return candidateOrder(rts.map((t) => t.view())).map((name) => ({ target: name, client: byName.get(name)!.client }));
    };
    this.runners = runnersFor('network', network, ctx, candidates, applied);
  }

  start(): void {
    for (const r of this.runners) r.start();
  }

  async stop(drop: boolean): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop(drop)));
  }
}
