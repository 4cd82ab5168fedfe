/**
 * A tiny declarative checker for the JSON shapes real data nodes send, so contract tests state
 * each field's encoding once (u64 as a decimal string, u32 as a number, enums by name, ...).
 */
export type Kind =
  | 'u64'
  | 'i64'
  | 'u32'
  | 'double'
  | 'decimal'
  | 'string'
  | 'bool'
  | 'hex64'
  | 'base64'
  | 'rfc3339'
  | 'unixns'
  | { enum: readonly string[] }
  | { nullable: Shape }
  | { array: Kind }
  | Shape;
export interface Shape {
  [field: string]: Kind;
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z)?$/;

export function checkShape(value: unknown, shape: Kind, path = '$'): string[] {
  const errs: string[] = [];
  const fail = (msg: string): string[] => [`${path}: ${msg} (got ${JSON.stringify(value)?.slice(0, 80)})`];
  if (typeof shape === 'string') {
    switch (shape) {
      case 'u64':
        return typeof value === 'string' && /^\d+$/.test(value) ? [] : fail('expected uint64 string');
      case 'i64':
        return typeof value === 'string' && /^-?\d+$/.test(value) ? [] : fail('expected int64 string');
      case 'u32':
        return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? [] : fail('expected uint32 number');
      case 'double':
        return typeof value === 'number' ? [] : fail('expected number');
      case 'decimal':
        return typeof value === 'string' && /^-?\d+(\.\d+)?$|^$/.test(value) ? [] : fail('expected decimal string');
      case 'string':
        return typeof value === 'string' ? [] : fail('expected string');
      case 'bool':
        return typeof value === 'boolean' ? [] : fail('expected boolean');
      case 'hex64':
        return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value) ? [] : fail('expected 64 hex chars');
      case 'base64':
        return typeof value === 'string' && /^[A-Za-z0-9+/]+=*$/.test(value) && value.length % 4 === 0 ? [] : fail('expected padded base64');
      case 'rfc3339':
        return typeof value === 'string' && RFC3339.test(value) ? [] : fail('expected RFC3339 time');
      case 'unixns':
        return typeof value === 'string' && /^\d+$/.test(value) ? [] : fail('expected unix-ns string');
    }
  }
  if ('enum' in shape && Array.isArray(shape.enum)) {
    return typeof value === 'string' && (shape.enum as string[]).includes(value)
      ? []
      : fail(`expected one of ${(shape.enum as string[]).slice(0, 3).join(',')}…`);
  }
  if ('nullable' in shape && typeof shape.nullable === 'object' && !Array.isArray(shape.nullable)) {
    return value === null ? [] : checkShape(value, shape.nullable, path);
  }
  if ('array' in shape && Object.keys(shape).length === 1) {
    if (!Array.isArray(value)) return fail('expected array');
    value.forEach((v, i) => errs.push(...checkShape(v, shape.array, `${path}[${i}]`)));
    return errs;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('expected object');
  const obj = value as Record<string, unknown>;
  for (const [k, kind] of Object.entries(shape as Shape)) {
    const optional = k.endsWith('?');
    const key = optional ? k.slice(0, -1) : k;
    if (!(key in obj)) {
      if (!optional) errs.push(`${path}.${key}: missing`);
      continue;
    }
    errs.push(...checkShape(obj[key], kind, `${path}.${key}`));
  }
  return errs;
}
