/**
 * Compares the descriptor with the published field list (datanode-schema-v0.79.md): prints every field the
 * reference lists that the descriptor lacks (MISSING), types that disagree (TYPE) and descriptor fields the
 * reference does not list (EXTRA). Expected output: only the ListMarkets data-source subtree (which GetMarket
 * expands and the descriptor shares) and parties metadata (an array per datanode-api.md). Run:
 *   npx tsx test/contract/tools/check-against-reference.ts [path/to/datanode-schema-v0.79.md]
 */
import { readFileSync } from 'node:fs';
import { DESCRIPTORS, type Desc } from '../descriptor.js';
const ref = readFileSync(process.argv[2] ?? '/work/shared/reference/datanode-schema-v0.79.md', 'utf8');
const sections = ref.split('\n## ').slice(1);
function flat(d: Desc, p: string, out: Map<string, string>): void {
  switch (d.t) {
    case 'nullable':
      return flat(d.of, p, out);
    case 'arr':
      return flat(d.of, p + '[]', out);
    case 'obj':
      for (const [k, f] of Object.entries(d.fields)) flat(f.d, p ? `${p}.${k}` : k, out);
      return;
    case 'opaque':
      out.set(p, 'object');
      for (const [k, f] of Object.entries(d.known ?? {})) flat(f.d, `${p}.${k}`, out);
      return;
    case 'scalar':
      out.set(p, d.s);
      return;
    case 'enum':
      out.set(p, 'enum ' + d.e);
      return;
  }
}
for (const sec of sections) {
  const title = sec.split('\n')[0]!;
  const m = /^GET (\S+)/.exec(title);
  if (!m) continue;
  const path = m[1]!;
  const key = Object.keys(DESCRIPTORS).find((k) => k === 'GET ' + path) as keyof typeof DESCRIPTORS | undefined;
  if (!key) {
    console.log('NO DESCRIPTOR', path);
    continue;
  }
  const ours = new Map<string, string>();
  flat(DESCRIPTORS[key], '', ours);
  const refs = sec
    .split('```')[1]!
    .trim()
    .split('\n')
    .map((l) => {
      const i = l.lastIndexOf(': ');
      return [l.slice(0, i), l.slice(i + 2)] as const;
    });
  const refPaths = new Set(refs.map(([p]) => p));
  for (const [p, t] of refs) {
    if (!ours.has(p)) {
      // a path inside an opaque object of ours?
      const parent = [...ours.keys()].find((o) => (ours.get(o) === 'object' && p.startsWith(o + '.')) || (ours.get(o) === 'object' && p.startsWith(o + '[]')));
      if (!parent) console.log(path, 'MISSING', p, t);
    } else {
      const o = ours.get(p)!;
      const compat: Record<string, string[]> = {
        'string/uint64': ['uint64'],
        'string/int64': ['int64'],
        'integer/int64': ['int32'],
        'integer/int32': ['int32'],
        'number/double': ['double'],
        'number/float': ['double'],
        boolean: ['bool'],
        'string/byte': ['bytes'],
        string: ['string', 'amount', 'signedAmount', 'decimal', 'signedDecimal', 'rfc3339', 'rfc3339OrEmpty'],
      };
      const okT = t.startsWith('enum') ? o.startsWith('enum') : t.startsWith('object') ? o === 'object' : (compat[t] ?? []).includes(o);
      if (!okT) console.log(path, 'TYPE', p, 'ref', t, 'ours', o);
    }
  }
  for (const p of ours.keys())
    if (!refPaths.has(p) && !p.includes('.metadata.tags') && ![...refPaths].some((r) => r.startsWith(p + '.') || r.startsWith(p + '[]')))
      console.log(path, 'EXTRA', p);
}
