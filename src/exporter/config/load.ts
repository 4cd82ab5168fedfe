/**
 * Configuration from a YAML file, environment variables and flags (flags win), validated once by
 * the schema. Every problem becomes a ConfigError that names the field and what was expected.
 */
import { parseArgs } from 'node:util';
import type { CST, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { readRegularFile, yaml } from '../files.js';
import { LOG_FORMATS, LOG_LEVELS, configSchema, type Config } from './schema.js';
import { resolveTargetSecrets } from './secrets.js';

export interface CliOptions {
  configFile?: string;
  check: boolean;
  help: boolean;
  version: boolean;
  /** Values given by flag, by the table's `key`. */
  overrides: Overrides;
}

type OverrideKey =
  | 'datanodeUrl'
  | 'datanodeName'
  | 'listenAddress'
  | 'healthListenAddress'
  | 'telemetryPath'
  | 'logLevel'
  | 'logFormat'
  | 'shard'
  | 'webConfigFile'
  | 'enableLifecycle';
type Overrides = Partial<Record<OverrideKey, string>>;

export interface Flag {
  flag: string;
  type: 'string' | 'boolean';
  arg?: string;
  env?: string;
  short?: string;
  help: string;
  /** As the README's table shows it. */
  default: string;
  /** A setting's name in CliOptions.overrides, and where its value lands in the config file's shape. */
  key?: OverrideKey;
  path?: readonly string[];
  /** The flag's or variable's text to the config value (default: the text itself). */
  parse?: (text: string) => unknown;
}

/** true/false in their usual spellings; anything else is left for the schema to refuse by name. */
function parseSwitch(text: string): unknown {
  if (/^(1|true|yes|on)$/i.test(text)) return true;
  if (/^(0|false|no|off)$/i.test(text)) return false;
  return text;
}

/**
 * Every flag, its environment variable and where it lands in the config: the parser, the
 * environment reading, the merge, --help and the README's flag table (scripts/flags-doc.ts) are
 * made from this one table. datanode.url and datanode.name replace the file's targets (loadConfig).
 */
export const FLAGS: readonly Flag[] = [
  {
    flag: 'datanode.url',
    type: 'string',
    arg: '<url>',
    env: 'DATANODE_EXPORTER_DATANODE_URL',
    help: "the data node to watch (one target; it replaces the config file's targets)",
    default: 'none',
    key: 'datanodeUrl',
    path: ['targets'],
  },
  {
    flag: 'datanode.name',
    type: 'string',
    arg: '<name>',
    env: 'DATANODE_EXPORTER_DATANODE_NAME',
    help: 'its `target` label',
    default: 'host:port of the URL',
    key: 'datanodeName',
    path: ['targets', '0', 'name'],
  },
  {
    flag: 'config.file',
    type: 'string',
    arg: '<path>',
    env: 'DATANODE_EXPORTER_CONFIG_FILE',
    help: 'YAML config file (several targets, collectors, HTTP settings)',
    default: 'none',
  },
  {
    flag: 'web.listen-address',
    type: 'string',
    arg: '<addr>',
    env: 'DATANODE_EXPORTER_WEB_LISTEN_ADDRESS',
    help: 'where the HTTP server listens',
    default: '`127.0.0.1:19308`',
    key: 'listenAddress',
    path: ['web', 'listen_address'],
  },
  {
    flag: 'web.health-listen-address',
    type: 'string',
    arg: '<addr>',
    env: 'DATANODE_EXPORTER_WEB_HEALTH_LISTEN_ADDRESS',
    help: 'a listener of its own for /healthz and /readyz (plain HTTP, no auth)',
    default: 'none',
    key: 'healthListenAddress',
    path: ['web', 'health_listen_address'],
  },
  {
    flag: 'web.telemetry-path',
    type: 'string',
    arg: '<path>',
    env: 'DATANODE_EXPORTER_WEB_TELEMETRY_PATH',
    help: 'the path the metrics are served on',
    default: '`/metrics`',
    key: 'telemetryPath',
    path: ['web', 'telemetry_path'],
  },
  {
    flag: 'log.level',
    type: 'string',
    arg: '<level>',
    env: 'DATANODE_EXPORTER_LOG_LEVEL',
    help: LOG_LEVELS.join(', '),
    default: '`info`',
    key: 'logLevel',
    path: ['log', 'level'],
  },
  {
    flag: 'log.format',
    type: 'string',
    arg: '<format>',
    env: 'DATANODE_EXPORTER_LOG_FORMAT',
    help: LOG_FORMATS.join(' or '),
    default: '`logfmt`',
    key: 'logFormat',
    path: ['log', 'format'],
  },
  {
    flag: 'shard',
    type: 'string',
    arg: '<i/n>',
    env: 'DATANODE_EXPORTER_SHARD',
    help: 'keep only targets whose name hashes to shard i of n (0-based)',
    default: 'none',
    key: 'shard',
    path: ['shard'],
  },
  {
    flag: 'web.config.file',
    type: 'string',
    arg: '<path>',
    env: 'DATANODE_EXPORTER_WEB_CONFIG_FILE',
    help: 'TLS and basic auth for the HTTP server (exporter-toolkit web-config format)',
    default: 'none',
    key: 'webConfigFile',
    path: ['web', 'config_file'],
  },
  {
    flag: 'web.enable-lifecycle',
    type: 'boolean',
    env: 'DATANODE_EXPORTER_WEB_ENABLE_LIFECYCLE',
    help: 'answer POST /-/reload (SIGHUP always reloads); the environment variable takes true/false (also 1/0, yes/no, on/off)',
    default: 'off',
    key: 'enableLifecycle',
    path: ['web', 'enable_lifecycle'],
    parse: parseSwitch,
  },
  { flag: 'config.check', type: 'boolean', help: 'validate the configuration, list the targets it keeps, and exit (0 valid, 2 invalid)', default: '' },
  { flag: 'version', type: 'boolean', help: 'print the version and exit', default: '' },
  { flag: 'help', type: 'boolean', short: 'h', help: 'print this help and exit', default: '' },
];

/** The default listen address where the built-in one does not fit (the image sets `:19308`). */
export const LISTEN_DEFAULT_ENV = 'DATANODE_EXPORTER_WEB_LISTEN_ADDRESS_DEFAULT';
/** Likewise the health listener's (the image sets `:19309`). */
export const HEALTH_LISTEN_DEFAULT_ENV = 'DATANODE_EXPORTER_WEB_HEALTH_LISTEN_ADDRESS_DEFAULT';
/** An installation's own defaults: below the config file, so that a mounted config's setting is honoured. */
const INSTALL_DEFAULTS = [
  { env: LISTEN_DEFAULT_ENV, key: 'listenAddress', setting: 'listen_address' },
  { env: HEALTH_LISTEN_DEFAULT_ENV, key: 'healthListenAddress', setting: 'health_listen_address' },
] as const;

export const USAGE = [
  'Usage: datanode-exporter [flags]',
  "       datanode-exporter healthcheck [flags]   GET this exporter's own /healthz (exit 0 healthy, 1 not)",
  ...FLAGS.map((f) => {
    const name = `--${f.flag}${f.arg ? ` ${f.arg}` : ''}`;
    const def = f.default && f.default !== 'none' && f.default !== 'off' ? ` (default ${f.default.replace(/`/g, '')})` : '';
    return `  ${name.padEnd(31)}${f.help.replace(/`/g, '')}${def}${f.env ? `; env ${f.env}` : ''}`;
  }),
  'Flags override the environment, which overrides the config file.',
  `${LISTEN_DEFAULT_ENV} and ${HEALTH_LISTEN_DEFAULT_ENV} replace the defaults only (below the config file).`,
].join('\n');

export function parseCli(argv: string[]): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: Object.fromEntries(FLAGS.map((f) => [f.flag, f.short ? { type: f.type, short: f.short } : { type: f.type }])),
    });
  } catch (err) {
    throw new ConfigError(`flags: ${(err as Error).message} (datanode-exporter --help lists the flags)`);
  }
  const v = parsed.values;
  const overrides: Overrides = {};
  for (const f of FLAGS) {
    const val = v[f.flag];
    if (f.key === undefined || val === undefined || val === false) continue;
    overrides[f.key] = val === true ? 'true' : val;
  }
  return {
    ...(typeof v['config.file'] === 'string' ? { configFile: v['config.file'] } : {}),
    check: v['config.check'] === true,
    help: v.help === true,
    version: v.version === true,
    overrides,
  };
}

/**
 * The YAML parser's errors an operator meets most, in words. Matched on the parser's own wording
 * (its codes are shared by unrelated mistakes); never its message itself, which may quote the file.
 */
const YAML_REASONS: [RegExp, string][] = [
  [/^Tabs are not allowed as indentation/, 'a tab is used for indentation (YAML indents with spaces only)'],
  [/^Missing closing ["']quote/, 'a closing quote is missing'],
  [/^Missing , (or : )?between/, 'a comma is missing between the items of a [ ] or { } list'],
  [/^(All (mapping|sequence) items must start at the same column|Sequence item without - indicator)/, 'the indentation does not line up with the lines above'],
  [
    /^Nested mappings are not allowed in compact mappings/,
    'a line is indented deeper than the key above it, which already has a value (or a value holds ": " and needs quotes)',
  ],
  [/^Map keys must be unique/, 'a key appears twice in the same mapping'],
  [/^Implicit keys need to be on a single line/, 'a key runs over more than one line (is a colon missing?)'],
  [/^A block sequence may not be used as an implicit map key/, 'a nested block is used as a key (is a colon or dash misplaced?)'],
];

/** The first `[` or `{` of the text that is never closed, with where it opens. */
function unclosedBracket(text: string): string | undefined {
  const open = (tok: unknown): CST.FlowCollection | undefined => {
    if (typeof tok !== 'object' || tok === null) return undefined;
    const t = tok as CST.FlowCollection;
    if (t.type === 'flow-collection' && !t.end.some((e) => e.source === (t.start.source === '[' ? ']' : '}'))) return t;
    for (const v of Object.values(tok)) {
      const found = open(v);
      if (found) return found;
    }
    return undefined;
  };
  const { LineCounter, Parser } = yaml();
  const lines = new LineCounter();
  for (const doc of new Parser(lines.addNewLine).parse(text)) {
    const fc = open(doc);
    if (!fc) continue;
    const at = lines.linePos(fc.start.offset);
    return `the "${fc.start.source}" at line ${at.line}, column ${at.col} is never closed (no "${fc.start.source === '[' ? ']' : '}'}")`;
  }
  return undefined;
}

function yamlReason(err: YAMLParseError, text: string): string {
  if (/must (be sufficiently indented and )?end with a [\]}]/.test(err.message)) return unclosedBracket(text) ?? 'a "[" or "{" is never closed';
  return YAML_REASONS.find(([re]) => re.test(err.message))?.[1] ?? err.code.toLowerCase().replace(/_/g, ' ');
}

function readFile(path: string): { data: Record<string, unknown>; text: string } {
  let text: string;
  try {
    text = readRegularFile(path).toString('utf8');
  } catch (err) {
    throw new ConfigError(`config.file: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const { parse, YAMLParseError } = yaml();
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    const where = err instanceof YAMLParseError && err.linePos ? ` at line ${err.linePos[0].line}, column ${err.linePos[0].col}` : '';
    const why = err instanceof YAMLParseError ? `: ${yamlReason(err, text)}` : '';
    throw new ConfigError(`config.file: ${path} is not valid YAML${where}${why}`);
  }
  if (doc === null || doc === undefined) return { data: {}, text };
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError(`config.file: ${path} must hold a YAML mapping`);
  return { data: doc as Record<string, unknown>, text };
}

/** Where a setting (or one key of the mapping there) is written in the file: "line L, column C". */
function locate(text: string, path: readonly PropertyKey[], key?: string): string | undefined {
  const { LineCounter, isMap, isScalar, parseDocument } = yaml();
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const node = path.length > 0 ? doc.getIn(path as (string | number)[], true) : doc.contents;
  let at = (node as { range?: [number, number, number] } | undefined)?.range?.[0];
  if (key !== undefined)
    at = isMap(node) ? (node.items.map((p) => p.key).find((k) => isScalar(k) && k.value === key) as { range?: [number] } | undefined)?.range?.[0] : undefined;
  if (at === undefined) return undefined;
  const pos = lines.linePos(at);
  return `line ${pos.line}, column ${pos.col}`;
}

interface JsonSchema {
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

/** A node and every alternative it allows (unions, optionals). */
const alternatives = (n: JsonSchema): JsonSchema[] => [n, ...[...(n.anyOf ?? []), ...(n.oneOf ?? []), ...(n.allOf ?? [])].flatMap(alternatives)];

/**
 * The keys the config takes at `path`, read from zod's JSON Schema of its input (its public API,
 * made only when an unknown key is met): properties, list items and record values are followed.
 */
function knownKeys(schema: ReturnType<typeof configSchema>, path: readonly PropertyKey[]): string[] {
  let nodes = [z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema];
  for (const step of path) {
    nodes = nodes.flatMap(alternatives).flatMap((n) => {
      const p = n.properties?.[String(step)];
      if (p) return [p];
      if (n.items) return [n.items];
      return typeof n.additionalProperties === 'object' ? [n.additionalProperties] : [];
    });
  }
  return [...new Set(nodes.flatMap(alternatives).flatMap((n) => Object.keys(n.properties ?? {})))];
}

/** Edit distance (optimal string alignment: a swap of two neighbours counts once). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** "unknown key", with the nearest known key when one is close, else the known keys. */
function unknownKeyMessage(key: string, known: readonly string[]): string {
  const near = known.map((k) => ({ k, d: distance(key.toLowerCase(), k) })).sort((x, y) => x.d - y.d)[0];
  if (near && near.d <= Math.max(1, Math.floor(key.length / 3))) return `unknown key "${key}"; did you mean "${near.k}"?`;
  return `unknown key "${key}"; expected one of: ${known.join(', ')}`;
}

/** Set `path` in `raw`, each mapping on the way copied (or made, where the file has none). */
function setIn(raw: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let obj = raw;
  for (const k of path.slice(0, -1)) {
    const cur = obj[k];
    const next = typeof cur === 'object' && cur !== null && !Array.isArray(cur) ? { ...(cur as Record<string, unknown>) } : {};
    obj[k] = next;
    obj = next;
  }
  obj[path[path.length - 1]!] = value;
}

function nameFromUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.host.replace(/[^A-Za-z0-9_.:-]/g, '_').replace(/^[^A-Za-z0-9]+/, '') || 'datanode';
  } catch {
    return 'datanode';
  }
}

/**
 * Build and validate the configuration. Throws ConfigError naming the bad field; `notes` collects
 * what an operator should hear about a valid one (a flag that replaced the file's targets).
 */
export function loadConfig(cli: CliOptions, env: NodeJS.ProcessEnv = process.env, notes: string[] = []): Config {
  const file = cli.configFile ?? env.DATANODE_EXPORTER_CONFIG_FILE;
  const read = file ? readFile(file) : undefined;
  const raw: Record<string, unknown> = read?.data ?? {};
  // Where each setting given by flag or environment came from, for the error that names it.
  const from: Record<string, string> = {};
  const eff = overridesOf(cli, env, from);
  if (eff.datanodeUrl !== undefined) {
    const replaced = Array.isArray(raw.targets) ? raw.targets.length : 0;
    if (replaced > 0) notes.push(`${from.targets} replaces the ${replaced} target(s) of ${file}: only ${eff.datanodeUrl} is watched`);
    raw.targets = [{ name: eff.datanodeName ?? nameFromUrl(eff.datanodeUrl), url: eff.datanodeUrl }];
    from['targets.0.url'] = from.targets ?? '';
    if (from['targets.0.name'] === undefined) from['targets.0.name'] = from.targets ?? '';
  } else if (eff.datanodeName !== undefined) {
    throw new ConfigError(`targets.0.name (${from['targets.0.name']}): --datanode.name needs --datanode.url`);
  }
  for (const f of FLAGS) {
    const text = f.key === undefined ? undefined : eff[f.key];
    if (text === undefined || f.path === undefined || f.path[0] === 'targets') continue;
    setIn(raw, f.path, f.parse ? f.parse(text) : text);
  }
  applyInstallDefaults(raw, eff, env, from);
  return validated(raw, env, from, file, read);
}

/** Each flag's value, else its environment variable's (flag over environment); `from` records which. */
function overridesOf(cli: CliOptions, env: NodeJS.ProcessEnv, from: Record<string, string>): Overrides {
  const eff: Overrides = {};
  for (const f of FLAGS) {
    if (f.key === undefined || f.path === undefined) continue;
    const flagVal = cli.overrides[f.key];
    const envVal = f.env === undefined ? undefined : env[f.env];
    if (flagVal !== undefined) {
      eff[f.key] = flagVal;
      from[f.path.join('.')] = `--${f.flag}`;
    } else if (envVal !== undefined && envVal !== '') {
      eff[f.key] = envVal;
      from[f.path.join('.')] = f.env!;
    }
  }
  return eff;
}

/**
 * An installation's own default listen addresses (the image's `:19308` and `:19309`): below the
 * file, so that a mounted config's web.* is honoured; flags and their variables still win over both.
 */
function applyInstallDefaults(raw: Record<string, unknown>, eff: Overrides, env: NodeJS.ProcessEnv, from: Record<string, string>): void {
  const web = raw.web;
  for (const d of INSTALL_DEFAULTS) {
    const inFile = typeof web === 'object' && web !== null && d.setting in web;
    const value = env[d.env];
    if (eff[d.key] === undefined && !inFile && value) {
      setIn(raw, ['web', d.setting], value);
      from[`web.${d.setting}`] = d.env;
    }
  }
}

/** The schema's verdict on the merged settings, and the targets' header secrets resolved; errors name the field and where it was set. */
function validated(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  from: Record<string, string>,
  file: string | undefined,
  read: ReturnType<typeof readFile> | undefined,
): Config {
  const schema = configSchema();
  const result = schema.safeParse(raw);
  const where = (path: readonly PropertyKey[], key?: string): string => {
    const name = path.map(String).join('.') || '(top level)';
    if (from[name]) return ` (${from[name]})`;
    const at = read && locate(read.text, path, key);
    return file ? ` (in ${file}${at ? ` at ${at}` : ''})` : '';
  };
  if (!result.success) {
    const lines = result.error.issues.flatMap((i) => {
      const path = i.path.map(String).join('.') || '(top level)';
      if (i.code === 'unrecognized_keys') return i.keys.map((k) => `${path}${where(i.path, k)}: ${unknownKeyMessage(k, knownKeys(schema, i.path))}`);
      return [`${path}${where(i.path)}: ${i.message}`];
    });
    throw new ConfigError(lines.join('; '));
  }
  // Header values from files and the environment, read on every load (start and reload).
  const lines: string[] = [];
  const targets = result.data.targets.map((t, i) => {
    const { target, issues } = resolveTargetSecrets(t, env);
    for (const issue of issues) {
      const path = ['targets', i, ...issue.path];
      lines.push(`${path.join('.')}${where(path)}: ${issue.message}`);
    }
    return target;
  });
  if (lines.length > 0) throw new ConfigError(lines.join('; '));
  return { ...result.data, targets };
}
