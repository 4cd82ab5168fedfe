import { startSimulator, type Simulator, type SimulatorOptions } from '@datanode-exporter/simulator/server';

/** A clock tests move by hand. */
export class ManualClock {
  constructor(public ms = Date.UTC(2026, 10, 1, 12, 0, 0)) {}
  now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

export async function withSim(
  opts: SimulatorOptions = {},
): Promise<
  Simulator & { get: (path: string, init?: RequestInit) => Promise<Response>; json: (path: string) => Promise<{ status: number; body: any; headers: Headers }> }
> {
  const sim = await startSimulator(opts);
  const ext = sim as Simulator & {
    get: (path: string, init?: RequestInit) => Promise<Response>;
    json: (path: string) => Promise<{ status: number; body: any; headers: Headers }>;
  };
  ext.get = (path, init) => fetch(`${sim.url}${path}`, init);
  ext.json = async (path) => {
    const res = await fetch(`${sim.url}${path}`);
    return { status: res.status, body: await res.json(), headers: res.headers };
  };
  return ext;
}
