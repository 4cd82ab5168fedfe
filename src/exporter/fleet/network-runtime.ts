/** One network: network-scoped runners that ask the freshest healthy member first. */
import { isEnabled, settingsOf } from '../collectors/define.js';
import { CollectorRunner } from '../schedule/runner.js';
import { runnerSettings } from '../schedule/settings.js';
import { Directory } from '../upstream/directory.js';
import type { RuntimeContext } from './runtime-context.js';
import { candidateOrder } from './signals.js';
import type { TargetRuntime } from './target-runtime.js';

export class NetworkRuntime {
  readonly runners: CollectorRunner[] = [];

  constructor(readonly network: string, ctx: RuntimeContext, members: () => TargetRuntime[]) {
    // Requests made for the network are counted on the targets that served them.
    const applied = () => members().forEach((t) => t.applyRequestCounts());
    const deps = { directory: new Directory(), seriesLimit: ctx.config.limits.series_per_network };
    const candidates = () => {
      const rts = members();
      const byName = new Map(rts.map((t) => [t.cfg.name, t]));
      return candidateOrder(rts.map((t) => t.view())).map((name) => ({ target: name, client: byName.get(name)!.client }));
    };
    for (const module of ctx.collectors) {
      if (module.scope !== 'network' || !isEnabled(ctx.config, module)) continue;
      this.runners.push(
        new CollectorRunner({
          scopeValue: network,
          collector: module,
          instance: module.create(settingsOf(ctx.config, module), deps),
          candidates,
          store: ctx.store,
          settings: runnerSettings(ctx.config, module),
          log: ctx.log,
          onApplied: applied,
        }),
      );
    }
  }

  start(): void {
    for (const r of this.runners) r.start();
  }

  async stop(drop: boolean): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop(drop)));
  }
}
