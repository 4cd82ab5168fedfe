/**
 * `npm run simulator -- --port 3008 --seed 7 --rotations 100000` serves a simulated data node on
 * 127.0.0.1 until interrupted; with `--nodes N`, a fleet of N nodes sharing one network (fleet.ts).
 */
import { parseArgs } from 'node:util';
import { startSimulator, type SimulatorOptions } from './server.js';
import { runFleet } from './fleet-cli.js';
import { PROFILES, type SimProfile } from './faults.js';

const INT_FLAGS = {
  port: 'port',
  seed: 'seed',
  'block-interval-ms': 'blockIntervalMs',
  'start-height': 'startHeight',
  validators: 'validators',
  rotations: 'rotations',
  markets: 'markets',
  parties: 'parties',
  positions: 'positions',
  orders: 'orders',
  'signature-resources': 'signatureResources',
  'epoch-blocks': 'epochBlocks',
  'rotation-every': 'rotationEveryBlocks',
  'network-history-peers': 'networkHistoryPeers',
  'segment-blocks': 'segmentBlocks',
} as const;

const USAGE = `Usage: npm run simulator -- [options]
  --host <addr>                 listen address (default 127.0.0.1)
  --port <n>                    port (default 3008; 0 picks one)
  --seed <n>                    deterministic seed (default 1)
  --block-interval-ms <n>       block interval (default 1000)
  --start-height <n>            first block height (default 18591101)
  --validators <n>  --rotations <n>  --markets <n>  --parties <n>  --positions <n>
  --orders <n>  --signature-resources <n>  --epoch-blocks <n>  --rotation-every <n>
  --network-history-peers <n>  --segment-blocks <n>   (a history segment every n blocks, default 300)
  --nodes <n>                   a fleet: n nodes sharing one network, on the ports after --port
                                (control: GET /__sim/fleet on --port lists them)
  --nodes-file <path>           with --nodes: write the exporter targets (YAML) for the fleet
  --node-faults <json>          with --nodes: {"<index>": <fault patch>, ...}
  --large-counters              start order/trade totals above 2^53
  --faults <json>               fault state patch, as PUT /__sim/faults takes it
  --halt  --datanode-lag <n>  --peers-zero  --network-history-disabled
  --profile <spec|datanode>     spec (default): every operation of the specification, GET /markets
                                included, ids of any shape; datanode: as on a real data node,
                                GET /markets answers 404 and an id that is not 64 hex 400
  --markets-404                 the same as --profile datanode; --markets-core: the default
  --non-finite-doubles          "NaN"/"Infinity" risk parameters on some markets
  --strip-freshness-headers  --replaying  --rate-limit`;

export type CliOptions = SimulatorOptions & { nodes?: number; nodesFile?: string; nodeFaults?: Record<number, unknown> };

export function parseSimulatorArgs(argv: string[]): CliOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      ...Object.fromEntries(Object.keys(INT_FLAGS).map((k) => [k, { type: 'string' as const }])),
      host: { type: 'string' },
      profile: { type: 'string' },
      'large-counters': { type: 'boolean' },
      faults: { type: 'string' },
      halt: { type: 'boolean' },
      'datanode-lag': { type: 'string' },
      'peers-zero': { type: 'boolean' },
      'network-history-disabled': { type: 'boolean' },
      'markets-404': { type: 'boolean' },
      'markets-core': { type: 'boolean' },
      'non-finite-doubles': { type: 'boolean' },
      'strip-freshness-headers': { type: 'boolean' },
      replaying: { type: 'boolean' },
      'rate-limit': { type: 'boolean' },
      nodes: { type: 'string' },
      'nodes-file': { type: 'string' },
      'node-faults': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const int = (flag: string, v: unknown): number => {
    const n = Number(v);
    if (typeof v !== 'string' || !/^\d+$/.test(v) || !Number.isSafeInteger(n)) throw new Error(`--${flag}: expected a non-negative integer, got ${String(v)}`);
    return n;
  };
  const opts: CliOptions & Record<string, unknown> = { port: 3008 };
  if (values.nodes !== undefined) opts.nodes = int('nodes', values.nodes);
  if (values['nodes-file']) opts.nodesFile = values['nodes-file'];
  if (values['node-faults']) opts.nodeFaults = JSON.parse(values['node-faults']) as Record<number, unknown>;
  for (const [flag, key] of Object.entries(INT_FLAGS)) {
    const v = (values as Record<string, unknown>)[flag];
    if (v !== undefined) opts[key] = int(flag, v);
  }
  if (values.host) opts.host = values.host;
  if (values.profile !== undefined && !PROFILES.includes(values.profile as SimProfile)) {
    throw new Error(`--profile: expected ${PROFILES.join(' or ')}, got ${values.profile}`);
  }
  if (values['markets-404']) opts.profile = 'datanode';
  if (values.profile !== undefined) opts.profile = values.profile as SimProfile;
  if (values['large-counters']) opts.largeCounters = true;
  const faults: Record<string, unknown> = values.faults ? (JSON.parse(values.faults) as Record<string, unknown>) : {};
  if (values.halt) faults.halted = true;
  if (values['datanode-lag'] !== undefined) faults.datanodeLagBlocks = int('datanode-lag', values['datanode-lag']);
  if (values['peers-zero']) faults.peersZero = true;
  if (values['network-history-disabled']) faults.networkHistoryDisabled = true;
  if (values['non-finite-doubles']) faults.nonFiniteDoubles = true;
  if (values['strip-freshness-headers']) faults.stripFreshnessHeaders = true;
  if (values.replaying) faults.replaying = true;
  if (values['rate-limit']) faults.rateLimit = true;
  if (Object.keys(faults).length > 0) opts.faults = faults;
  return opts;
}

/** The `datanode-simulator` bin (bin/datanode-simulator.js) runs this. */
export async function main(): Promise<void> {
  let opts: CliOptions;
  try {
    opts = parseSimulatorArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`simulator: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (opts.nodes !== undefined) {
    const { nodes, nodesFile, ...rest } = opts;
    return runFleet({ ...rest, nodes }, nodesFile);
  }
  const started = Date.now();
  const sim = await startSimulator(opts);
  console.log(
    `simulated data node on ${sim.url} (seed ${sim.net.opts.seed}, height ${sim.net.height}, ${sim.net.rotations.length} key rotations, ` +
      `${sim.net.markets.length} markets; ready in ${Date.now() - started} ms)`,
  );
  console.log(`try: curl ${sim.url}/statistics   faults: curl ${sim.url}/__sim/faults`);
  const stop = (): void => {
    void sim.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
