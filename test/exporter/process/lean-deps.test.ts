import { describe, expect, it } from 'vitest';
import * as promClient from 'prom-client';
import * as undici from 'undici';
import * as leanProm from '../../../src/exporter/process/lean/prom-client.js';
import * as leanUndici from '../../../src/exporter/process/lean/undici.js';

// The lean loaders reach into the packages' files; an upgrade that moves one must fail here.
describe('lean dependency loaders', () => {
  it('load the same undici objects the entry point exports', () => {
    expect(leanUndici.Pool).toBe(undici.Pool);
    expect(leanUndici.undiciErrors).toBe(undici.errors);
    expect(leanUndici.undiciRequest).toBe(undici.Dispatcher.prototype.request);
  });

  it('load the same prom-client objects the entry point exports', () => {
    expect(leanProm.Registry).toBe(promClient.Registry);
    expect(leanProm.Gauge).toBe(promClient.Gauge);
    expect(leanProm.collectDefaultMetrics).toBe(promClient.collectDefaultMetrics);
  });

  it("load each of prom-client's default metrics by the name its entry point lists it under", () => {
    expect(promClient.collectDefaultMetrics.metricsList).toContain('gc');
    for (const name of promClient.collectDefaultMetrics.metricsList) expect(typeof leanProm.defaultMetric(name)).toBe('function');
  });
});
