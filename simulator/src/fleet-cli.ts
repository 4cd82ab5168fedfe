/** `npm run simulator -- --nodes 1000 [--nodes-file targets.yaml]`: a fleet until interrupted. */
import { startFleet, type FleetOptions } from './fleet.js';

export async function runFleet(opts: FleetOptions, nodesFile: string | undefined): Promise<void> {
  const started = Date.now();
  const fleet = await startFleet(opts);
  const first = fleet.nodes[0]!.sim.url;
  const last = fleet.nodes[fleet.nodes.length - 1]!.sim.url;
  if (nodesFile) fleet.writeTargets(nodesFile);
  const rss = process.memoryUsage().rss / 2 ** 20;
  console.log(
    `simulated fleet of ${fleet.nodes.length} data nodes sharing one network (seed ${fleet.net.opts.seed}, height ${fleet.net.height}, ` +
      `${fleet.net.markets.length} markets): ${first} … ${last}; ready in ${Date.now() - started} ms, ${rss.toFixed(0)} MiB resident`,
  );
  console.log(`node list: curl ${fleet.url}/__sim/fleet   exporter targets: ${nodesFile ?? `curl ${fleet.url}/__sim/fleet/targets.yaml`}`);
  const stop = (): void => {
    void fleet.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
