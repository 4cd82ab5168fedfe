/**
 * The field list of the query service's specification (test/reference/query-service-spec.md),
 * read out of the document itself: every leaf field of every resource in "Resources and their
 * fields", as a path inside its resource ("fees.factors.makerFee", "priceMonitoringSettings.
 * parameters.triggers[].horizon"). Nested objects are expanded from the type column ("object: a
 * string, b {c number}"), the notes column ("`offset` string; `reference` enum") and, for the
 * markets' data-source specs, from the paragraph and list that follow the market table. Anything
 * the reader cannot place is an error, so a change of the document's form fails loudly rather
 * than dropping fields.
 */
import { readFileSync } from 'node:fs';

export const SPEC_FILE = new URL('../reference/query-service-spec.md', import.meta.url);

export interface SpecResource {
  /** The heading's name, before its parenthesis: "Market", "Key rotation", "Common: page envelope". */
  name: string;
  /** Leaf field paths inside the resource, in document order. */
  fields: string[];
}

export function readSpec(): string {
  return readFileSync(SPEC_FILE, 'utf8');
}

/** Every resource of the specification with a field table, and its leaf fields. */
export function specResources(text = readSpec()): SpecResource[] {
  const section = between(text, '## Resources and their fields', '\n## ');
  const dataSourceSpec = dataSourceSpecFields(section);
  const out: SpecResource[] = [];
  for (const block of section.split(/\n(?=### )/).slice(1)) {
    const heading = block.slice(4, block.indexOf('\n')).trim();
    // The pagination parameters are query parameters of requests, not fields of a resource.
    if (/query parameters/i.test(heading)) continue;
    const rows = tableRows(block);
    if (rows.length === 0) continue; // "Formats": prose only
    const fields: string[] = [];
    for (const row of rows) fields.push(...rowFields(row, dataSourceSpec, heading));
    out.push({ name: heading.replace(/\s*\(.*$/, ''), fields });
  }
  return out;
}

/** The text from `start` to the next `end` after it. */
function between(text: string, start: string, end: string): string {
  const a = text.indexOf(start);
  if (a < 0) throw new Error(`specification: no "${start}"`);
  const b = text.indexOf(end, a + start.length);
  return text.slice(a, b < 0 ? undefined : b);
}

interface Row {
  field: string;
  type: string;
  notes: string;
}

/** The first markdown table of a block: its rows as field, type, notes (by header name). */
function tableRows(block: string): Row[] {
  const lines = block.split('\n').filter((l) => l.startsWith('|'));
  if (lines.length < 2) return [];
  const cells = (l: string): string[] =>
    l
      .slice(1, l.endsWith('|') ? -1 : undefined)
      .split('|')
      .map((c) => c.trim());
  const header = cells(lines[0]!).map((h) => h.toLowerCase());
  const col = (name: RegExp): number => header.findIndex((h) => name.test(h));
  const [f, t, n] = [col(/^field/), col(/^type/), col(/^notes/)];
  if (f < 0 || t < 0) throw new Error(`specification: a table without Field and Type columns: ${lines[0]}`);
  return lines.slice(2).map((l) => {
    const c = cells(l);
    return { field: c[f]!, type: c[t]!, notes: n >= 0 ? c[n]! : '' };
  });
}

const unquote = (s: string): string => s.replace(/`/g, '').trim();

/** "a.b.c, d, e" → a.b.c, a.b.d, a.b.e; "x.y, x.z" → x.y, x.z; "p, q" → p, q. */
function fieldList(cell: string): string[] {
  const items = cell
    .split(',')
    .map(unquote)
    .filter((s) => s !== '');
  const first = items[0]!;
  const prefix = first.includes('.') ? first.slice(0, first.lastIndexOf('.') + 1) : '';
  return items.map((it) => (it.includes('.') ? it : prefix + it));
}

function rowFields(row: Row, dataSourceSpec: string[], heading: string): string[] {
  const out: string[] = [];
  for (const path of fieldList(row.field)) {
    const type = row.type.replace(/`/g, '');
    if (/^data-source spec/.test(type)) {
      out.push(...dataSourceSpec.map((f) => `${path}.${f}`));
    } else if (/^(array of )?object\b/.test(type)) {
      const base = type.startsWith('array') && !path.endsWith('[]') ? `${path}[]` : path;
      const colon = type.indexOf(':');
      // The members are in the type ("object: a string, b number") or, backquoted, in the notes.
      const members = colon >= 0 ? memberList(type.slice(colon + 1)) : backquoted(row.notes);
      if (members.length === 0) throw new Error(`specification (${heading}): object ${path} without members`);
      out.push(...members.map((m) => `${base}.${m}`));
    } else {
      out.push(path);
    }
  }
  return out;
}

/** The backquoted names in a notes cell: "Each item: `cursor` (string) and `node` (the record)". */
function backquoted(notes: string): string[] {
  return [...notes.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

/**
 * A member list: "a string, b {c number, d string}, e, f (all number)" → a, b.c, b.d, e, f. Items
 * are separated by ",", ";" or " and " outside braces; parenthesised remarks are dropped.
 */
function memberList(text: string): string[] {
  const clean = text.replace(/\([^()]*\)/g, '').replace(/`/g, '');
  const out: string[] = [];
  for (const item of splitTop(clean)) {
    const brace = item.indexOf('{');
    const name = (brace >= 0 ? item.slice(0, brace) : item).trim().split(/\s+/)[0]!;
    if (!/^[A-Za-z@][\w.[\]@]*$/.test(name)) throw new Error(`specification: cannot read member "${item.trim()}"`);
    if (brace >= 0) out.push(...memberList(item.slice(brace + 1, item.lastIndexOf('}'))).map((m) => `${name}.${m}`));
    else out.push(name);
  }
  return out;
}

/** Split on ",", ";" and " and " at brace depth 0; empty items dropped. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '{') depth++;
    if (c === '}') depth--;
    if (depth === 0 && (c === ',' || c === ';')) {
      out.push(cur);
      cur = '';
    } else if (depth === 0 && text.startsWith(' and ', i)) {
      out.push(cur);
      cur = '';
      i += 4;
    } else cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * The data-source spec's fields, from the paragraph after the market table ("Data-source spec:
 * `id` string, ..., and `data` with two optional branches:") and its list of branches
 * ("- `data.external.oracle.filters[]`: each has `key` {...} and `conditions[]` {...}.").
 */
function dataSourceSpecFields(section: string): string[] {
  const start = section.indexOf('Data-source spec:');
  if (start < 0) throw new Error('specification: no data-source spec paragraph');
  const para = section.slice(start, section.indexOf('\n', start));
  const head = para.slice('Data-source spec:'.length, para.indexOf('and `data`'));
  const out = memberList(head);
  const list = section.slice(start).split('\n').slice(1);
  for (const line of list) {
    if (line.trim() === '') continue;
    if (!line.startsWith('- ')) break;
    const m = /^- `([^`]+)`:\s*each(?: has)?\s*(.*?)\.?$/.exec(line);
    if (!m) throw new Error(`specification: cannot read data-source branch "${line}"`);
    const body = m[2]!.trim();
    const inner = body.startsWith('{') ? body.slice(1, body.lastIndexOf('}')) : body;
    out.push(...memberList(inner).map((f) => `${m[1]}.${f}`));
  }
  return out;
}
