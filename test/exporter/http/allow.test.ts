import { describe, expect, it } from 'vitest';
import { checkProbeUrl, parseAllowRule, type AllowRule } from '../../../src/exporter/http/allow.js';

const rules = (...e: string[]): AllowRule[] => e.map((x) => parseAllowRule(x)!);
const ok = (t: string, r: AllowRule[]): boolean => 'url' in checkProbeUrl(t, r);

describe('probe allow-list', () => {
  it('parses entries: any port with :* or a bare colon, default ports, path prefixes; refuses user-info', () => {
    expect(parseAllowRule('http://127.0.0.1:')).toEqual({ protocol: 'http:', hostname: '127.0.0.1', port: '*', path: '/' });
    expect(parseAllowRule('https://node.example:*/gw/')).toEqual({ protocol: 'https:', hostname: 'node.example', port: '*', path: '/gw/' });
    expect(parseAllowRule('https://node.example:443')).toMatchObject({ port: '' });
    expect(parseAllowRule('http://[::1]:3008')).toMatchObject({ hostname: '[::1]', port: '3008' });
    for (const bad of ['http://u@h/', 'ftp://h/', 'http://h/?q', 'h:3008', 'http://']) expect(parseAllowRule(bad), bad).toBeUndefined();
  });

  it('compares scheme, host, port and path prefix after parsing', () => {
    const r = rules('http://127.0.0.1:3008/gw', 'https://n.example');
    expect(ok('http://127.0.0.1:3008/gw', r)).toBe(true);
    expect(ok('http://127.0.0.1:3008/gw/a', r)).toBe(true);
    expect(ok('http://127.0.0.1:3008/gwx', r)).toBe(false);
    expect(ok('http://127.0.0.1:3009/gw', r)).toBe(false);
    expect(ok('https://127.0.0.1:3008/gw', r)).toBe(false);
    expect(ok('https://n.example:443/x', r)).toBe(true);
    expect(ok('https://n.example:8443/x', r)).toBe(false);
    expect(ok('https://n.example.evil/x', r)).toBe(false);
    expect(ok('http://127.0.0.1:3008@evil:3008/gw', r)).toBe(false);
    expect(checkProbeUrl('http://127.0.0.1:@localhost:3008/', rules('http://127.0.0.1:'))).toMatchObject({
      status: 400,
      reason: expect.stringMatching(/user-info/),
    });
    expect(checkProbeUrl('not a url', r)).toMatchObject({ status: 400 });
  });

  it('compares the decoded path segments: an encoded separator or dot segment cannot leave an allowed prefix', () => {
    const r = rules('http://127.0.0.1:3008/only/');
    for (const t of [
      'http://127.0.0.1:3008/only/..%2Fsecret/',
      'http://127.0.0.1:3008/only/..%2fsecret',
      'http://127.0.0.1:3008/only/..%5Csecret',
      'http://127.0.0.1:3008/only/%2E%2E%2F..%2Fx',
      'http://127.0.0.1:3008/only/a%2Fb',
      'http://127.0.0.1:3008/only/%E0%A4%A',
    ]) {
      expect(checkProbeUrl(t, r), t).toMatchObject({ status: 400 });
    }
    expect(ok('http://127.0.0.1:3008/only/%2e%2e/secret', r)).toBe(false); // URL parsing resolves this one itself
    expect(ok('http://127.0.0.1:3008/only/a%20b/', r)).toBe(true);
    expect(ok('http://127.0.0.1:3008/%6Fnly/x', r)).toBe(true); // the same path, encoded
    expect(ok('http://127.0.0.1:3008/other/x', r)).toBe(false);
  });

  it('decodes until the path is stable: a doubly or triply encoded dot segment or separator is refused (n12)', () => {
    const r = rules('http://127.0.0.1:3008/api/');
    for (const t of [
      'http://127.0.0.1:3008/api/%252e%252e/admin', // `..` once a proxy and the node each decode
      'http://127.0.0.1:3008/api/%25252e%25252e/admin',
      'http://127.0.0.1:3008/api/..%252Fadmin',
      'http://127.0.0.1:3008/api/a%255Cb',
      'http://127.0.0.1:3008/api/%252e',
    ]) {
      expect(checkProbeUrl(t, r), t).toMatchObject({ status: 400, reason: expect.stringMatching(/must not encode/) });
    }
    expect(ok('http://127.0.0.1:3008/api/a%2520b', r)).toBe(true); // a space, encoded twice, stays under /api/
    expect(ok('http://127.0.0.1:3008/%2561pi/x', r)).toBe(true); // `/api/` itself, encoded twice
  });
});
