/**
 * `npm run demo`: a simulated data node and the exporter watching it, both on 127.0.0.1.
 * Flags: --port <exporter port, default 19308; 0 picks a free one> --seed <n> --sim-port <n, default ephemeral>.
 */
import { parseArgs } from 'node:util';
import { Exporter } from './exporter/exporter.js';
import { configSchema } from './exporter/config/schema.js';
import { createLogger } from './exporter/logger.js';
import { startSimulator } from '@datanode-exporter/simulator/server';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '19308' },
    'sim-port': { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
    'log.level': { type: 'string', default: 'info' },
  },
});

const sim = await startSimulator({ port: Number(values['sim-port']), seed: Number(values.seed), rotationEveryBlocks: 30 });
const config = configSchema().parse({
  targets: [{ name: 'sim', url: sim.url }],
  web: { listen_address: `127.0.0.1:${values.port}` },
  log: { level: values['log.level'] },
  collectors: { statistics: { interval: '5s' }, network_history: { interval: '5s' }, key_rotations: { interval: '15s' } },
});
const exporter = new Exporter(config, createLogger(config.log.level, undefined, config.log.format));
const url = await exporter.start();
console.log(`
  simulated data node   ${sim.url}/statistics   (faults: ${sim.url}/__sim/faults)
  exporter              ${url}/metrics
  landing page          ${url}/

  Try a fault: curl -X PUT ${sim.url}/__sim/faults -d '{"halted":true}'
  Ctrl-C stops both.
`);
const stop = async (): Promise<void> => {
  await exporter.stop();
  await sim.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
