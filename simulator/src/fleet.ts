/**
 * A fleet of simulated data nodes in one process: one network (markets, rotations, orders, chain)
 * shared by N nodes, each with its own height, peers and faults (fleet-node.ts) and its own port on
 * 127.0.0.1, so an exporter targets each by its base URL as it would a real node. A control server
 * lists the nodes and each node's busiest second (GET /__sim/fleet; DELETE /__sim/fleet/rates
 * starts a new count): every node sees the same client address here, so the per-IP rate limit
 * cannot tell whether one node was asked too often.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { SimNetwork } from './network.js';
import { NodeMeter, nodeView, traitsOf } from './fleet-node.js';
import { Simulator, type SimulatorOptions } from './server.js';

export interface FleetOptions extends Omit<SimulatorOptions, 'net'> {
  nodes: number;
  /** Fault patches by node index, as PUT /__sim/faults takes them (on top of `faults`, which all nodes get). */
  nodeFaults?: Record<number, unknown>;
}

export interface FleetNode {
  name: string;
  sim: Simulator;
  meter: NodeMeter;
}

export class SimFleet {
  readonly net: SimNetwork;
  readonly nodes: FleetNode[] = [];
  private readonly control: http.Server;

  constructor(opts: FleetOptions) {
    if (!Number.isInteger(opts.nodes) || opts.nodes < 1) throw new Error('nodes: expected a positive integer');
    const { nodes, nodeFaults, faults, host: _host, port: _port, ...netOpts } = opts;
    this.net = new SimNetwork(netOpts);
    const width = String(nodes).length;
    for (let i = 0; i < nodes; i++) {
      const meter = new NodeMeter();
      const view = nodeView(this.net, i, traitsOf(i, this.net.nhPeerPool.length), meter);
      const sim = new Simulator({ ...netOpts, net: view, faults });
      if (nodeFaults?.[i] !== undefined) sim.patchFaults(nodeFaults[i]);
      this.nodes.push({ name: `node-${String(i).padStart(width, '0')}`, sim, meter });
    }
    this.control = http.createServer((req, res) => this.admin(req, res));
  }

  /** Control on `port`, nodes on the ports after it (port 0: every one ephemeral). */
  async listen(port = 0, host = '127.0.0.1'): Promise<void> {
    await listenOn(this.control, port, host);
    for (const [i, n] of this.nodes.entries()) await n.sim.listen(port === 0 ? 0 : port + 1 + i, host);
  }

  get url(): string {
    const a = this.control.address() as AddressInfo;
    return `http://${a.address}:${a.port}`;
  }

  /** An exporter `targets:` list (also a valid discovery file) naming every node. */
  targetsYaml(): string {
    return `targets:\n${this.nodes.map((n) => `  - { name: ${n.name}, url: "${n.sim.url}" }`).join('\n')}\n`;
  }

  writeTargets(path: string): void {
    writeFileSync(path, this.targetsYaml());
  }

  /** Each node's state and busiest second since the last reset. */
  report(): {
    height: number;
    markets: number;
    maxPerSecond: number;
    requests: number;
    nodes: { name: string; url: string; height: number; requests: number; maxPerSecond: number }[];
  } {
    this.net.sync();
    const nodes = this.nodes.map((n) => ({
      name: n.name,
      url: n.sim.url,
      height: n.sim.net.height,
      requests: n.meter.total,
      maxPerSecond: n.meter.maxPerSecond,
    }));
    return {
      height: this.net.height,
      markets: this.net.markets.length,
      maxPerSecond: Math.max(0, ...nodes.map((n) => n.maxPerSecond)),
      requests: nodes.reduce((a, n) => a + n.requests, 0),
      nodes,
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.sim.close()));
    await new Promise<void>((resolve) => this.control.close(() => resolve()));
  }

  private admin(req: http.IncomingMessage, res: http.ServerResponse): void {
    const send = (status: number, body: string, type = 'application/json'): void => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    const path = new URL(req.url ?? '/', 'http://sim').pathname;
    if (path === '/__sim/fleet' && req.method === 'GET') return send(200, JSON.stringify(this.report()));
    if (path === '/__sim/fleet/targets.yaml' && req.method === 'GET') return send(200, this.targetsYaml(), 'application/yaml');
    if (path === '/__sim/fleet/rates' && req.method === 'DELETE') {
      for (const n of this.nodes) n.meter.reset();
      return send(200, '{}');
    }
    send(404, JSON.stringify({ error: `no fleet route ${req.method} ${path}` }));
  }
}

function listenOn(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
}

export async function startFleet(opts: FleetOptions): Promise<SimFleet> {
  const fleet = new SimFleet(opts);
  await fleet.listen(opts.port ?? 0, opts.host ?? '127.0.0.1');
  return fleet;
}
