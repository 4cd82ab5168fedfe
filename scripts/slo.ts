/**
 * One definition (prometheus/slos.yml), everything else generated from it, as Sloth and Pyrra do:
 * per SLO the error ratio over each window the burn-rate alerts need, the error budget left over
 * the period, the multi-window, multi-burn-rate alerts of the SRE workbook (page: 1 h and 5 m at
 * 14.4×, 6 h and 30 m at 6×; ticket: 1 d and 2 h at 3×, 3 d and 6 h at 1×), their promtool tests
 * and the dashboard panel. `npm run kit:sync` writes the rules and tests; test/kit fails on drift.
 */
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { z } from 'zod';
import { API_SLI_BUCKETS } from '../src/exporter/fleet/api-sli.js';
import { runbookUrl } from './runbook.js';

const selector = z.string().regex(/^[a-z_:]+(\{[^}]*\})?$/, 'a metric name with optional label matchers');
const sloSchema = z
  .strictObject({
    name: z.string().regex(/^[a-z_]+$/),
    alert: z.string().regex(/^Vega[A-Za-z]+$/),
    objective: z.number().gt(0).lt(1),
    meaning: z.string().min(1),
    bad: selector.optional(),
    good: selector.optional(),
    total: selector,
  })
  .refine((s) => (s.bad === undefined) !== (s.good === undefined), 'exactly one of bad and good')
  .refine((s) => [s.bad, s.good].every((x) => !x?.includes('le="') || API_SLI_BUCKETS.some((b) => x.includes(`le="${b}"`))), {
    message: `a latency threshold must be a bucket: ${API_SLI_BUCKETS.join(', ')}`,
  });
const definitionSchema = z.strictObject({ period: z.string().regex(/^\d+d$/), slos: z.array(sloSchema).min(1) });
export type Slo = z.infer<typeof sloSchema>;

export const SLO_FILE = 'prometheus/slos.yml';
export const SLO_DEFINITION = definitionSchema.parse(parse(readFileSync(SLO_FILE, 'utf8')));

/** The labels an SLO is kept by: each data node's endpoint class. */
const BY = 'target, class';
const LEVEL = 'target_class';
/** The workbook's pairs: long and short window, burn-rate factor, severity. */
export const BURN_RATES = [
  { long: '1h', short: '5m', factor: 14.4, severity: 'critical' },
  { long: '6h', short: '30m', factor: 6, severity: 'critical' },
  { long: '1d', short: '2h', factor: 3, severity: 'warning' },
  { long: '3d', short: '6h', factor: 1, severity: 'warning' },
] as const;
export const WINDOWS = ['5m', '30m', '1h', '2h', '6h', '1d', '3d'] as const;
/** How long each severity's condition must hold: a page rides out one scrape of errors, a ticket a quarter hour. */
const FOR = { critical: '2m', warning: '15m' } as const;

export const ratioName = (w: string): string => `${LEVEL}:slo_errors:ratio_rate${w}`;
export const BUDGET_REMAINING = `${LEVEL}:slo_error_budget_remaining:ratio`;
const round = (x: number): number => Number(x.toPrecision(12));
const budget = (s: Slo): number => round(1 - s.objective);
const pct = (x: number): string => `${round(x * 100)}%`;

/** The error ratio of `s` over `w`: bad events over all, 0 (not absent) when there were none. */
function errorRatio(s: Slo, w: string): string {
  const sum = (sel: string): string => `sum by (${BY}) (rate(${sel}[${w}]))`;
  const none = `0 * ${sum(s.total)}`;
  if (s.bad) return `(${sum(s.bad)} or ${none}) / ${sum(s.total)}`;
  return `1 - (${sum(s.good!)} or ${none}) / ${sum(s.total)}`;
}

export function sloGroups(def = SLO_DEFINITION): object[] {
  return def.slos.map((s) => {
    const sel = `{slo="${s.name}"}`;
    const records = [
      ...WINDOWS.map((w) => ({ record: ratioName(w), expr: errorRatio(s, w), labels: { slo: s.name } })),
      { record: ratioName(def.period), expr: `max by (${BY}) (avg_over_time(${ratioName('5m')}${sel}[${def.period}]))`, labels: { slo: s.name } },
      { record: BUDGET_REMAINING, expr: `1 - max by (${BY}) (${ratioName(def.period)}${sel}) / ${budget(s)}`, labels: { slo: s.name } },
    ];
    const alerts = (['critical', 'warning'] as const).map((severity) => {
      const pairs = BURN_RATES.filter((b) => b.severity === severity);
      const expr = pairs
        .map((b) => {
          const t = round(b.factor * budget(s));
          return `${ratioName(b.long)}${sel} > ${t} and ${ratioName(b.short)}${sel} > ${t}`;
        })
        .join(' or ');
      const windows = pairs.map((b) => `${b.long} and ${b.short} at ${b.factor}×`).join(', or ');
      return {
        alert: s.alert,
        expr,
        for: FOR[severity],
        labels: { severity },
        annotations: {
          summary: `{{ $labels.target }} ({{ $labels.class }} requests) burns its ${s.name} error budget ${severity === 'critical' ? 'fast' : 'steadily'}`,
          description: `The ${s.name} objective (${pct(s.objective)} of ${s.meaning}, over ${def.period}) is being spent at least ${pairs.at(-1)!.factor} times as fast as it allows (${windows}): at this rate the budget lasts ${severity === 'critical' ? 'days' : 'weeks'}, not ${def.period}.`,
          runbook_url: runbookUrl(s.alert),
        },
      };
    });
    return { name: `datanode-exporter-slo-${s.name}`, rules: [...records, ...alerts] };
  });
}

export const GENERATED_MARK = '  # Generated by `npm run kit:sync` from prometheus/slos.yml (scripts/slo.ts): edit that file, not what follows.';

/** prometheus/alerts.yml with its generated SLO groups written after the mark. */
export function withSloRules(alertsYaml: string, def = SLO_DEFINITION): string {
  const i = alertsYaml.indexOf(`\n${GENERATED_MARK}\n`);
  const head = (i < 0 ? alertsYaml : alertsYaml.slice(0, i)).replace(/\n*$/, '\n');
  const body = stringify(sloGroups(def), { lineWidth: 180, minContentWidth: 0 })
    .split('\n')
    .map((l) => (l ? `  ${l}` : l))
    .join('\n');
  return `${head}\n${GENERATED_MARK}\n${body}`;
}

/** The dashboard panel: the budget left per data node, endpoint class and SLO. */
export function sloPanel(def = SLO_DEFINITION) {
  return {
    title: 'API error budget remaining',
    description: `Share of each SLO's error budget left over the last ${def.period} per data node and endpoint class (${BUDGET_REMAINING}): ${def.slos.map((s) => `${s.name} ${pct(s.objective)} of ${s.meaning}`).join('; ')}. Below 0: the objective is missed. Generated from prometheus/slos.yml.`,
    expr: `min by (target, class, slo) (${BUDGET_REMAINING}{target=~"$target"})`,
  };
}

/**
 * Burn-rate tests from the same definition. Per SLO, events at a constant error ratio expressed in
 * budgets (16× fast, 4× and 2× steady, 0.5× fine). Expected minutes, worked out by hand from the
 * windows (the ratio over a window is its bad events over all its events, the windows reach back to
 * minute 0): at 16× for 20 minutes, the 1 h/5 m pair holds from minute 1 to 20 and the 6 h/30 m pair
 * until the 30-minute window's share of bad minutes falls to 6/16, at minute 39 (≤ 50 − 11.25); the
 * page fires 2 minutes (its for) after minute 1. At 4× (1 d/2 h > 3×) and 2× (3 d/6 h > 1×) the
 * ticket fires 15 minutes after minute 1, and nothing pages.
 */
export const SLO_EXPECTED = { pageFires: 3, pageResolves: 39, ticketFires: 16 };

export function renderSloTests(def = SLO_DEFINITION): string {
  const total = 100; // events a minute
  const minutes = 61;
  const series = (s: Slo, target: string, ratio: (t: number) => number): { series: string; values: string }[] => {
    // Counters: all events, and bad (or good) ones, each minute's at the given ratio.
    const tot: number[] = [];
    const bad: number[] = [];
    for (let t = 0, a = 0, b = 0; t < minutes; t++, a += total, b += total * ratio(t)) {
      tot.push(a);
      bad.push(round(b));
    }
    const labels = (sel: string): string =>
      sel.replace(/\{(.*)\}$/, `{$1,target="${target}",class="single"}`).replace(/^([a-z_:]+)$/, `$1{target="${target}",class="single"}`);
    const evSel = s.bad ?? s.good!;
    const ev = s.bad ? bad : bad.map((x, i) => round(tot[i]! - x));
    const out = [{ series: labels(evSel), values: ev.join(' ') }];
    const name = (sel: string): string => sel.replace(/\{.*$/, '');
    // Events and total in one family (errors among all outcomes): the other outcome holds the rest.
    if (name(evSel) === name(s.total)) {
      const rest = labels(s.total).replace(/\}$/, ',outcome="success"}');
      out.push({ series: rest, values: tot.map((x, i) => round(x - ev[i]!)).join(' ') });
    } else out.push({ series: labels(s.total), values: tot.join(' ') });
    return out;
  };
  const firing = (s: Slo, severity: string) => `ALERTS{alertname="${s.alert}",alertstate="firing",severity="${severity}"}`;
  const sample = (s: Slo, severity: string, target: string) => [
    { labels: `ALERTS{alertname="${s.alert}",alertstate="firing",severity="${severity}",slo="${s.name}",target="${target}",class="single"}`, value: 1 },
  ];
  const tests = def.slos.flatMap((s) => {
    const b = budget(s);
    const page = {
      name: `${s.alert}: 16 budgets of errors for 20 minutes page, and resolve when the short windows fall under their factor`,
      interval: '1m',
      input_series: series(s, 'dn1', (t) => (t <= 20 ? 16 * b : 0)),
      promql_expr_test: [
        { expr: firing(s, 'critical'), eval_time: `${SLO_EXPECTED.pageFires - 1}m`, exp_samples: [] },
        { expr: firing(s, 'critical'), eval_time: `${SLO_EXPECTED.pageFires}m`, exp_samples: sample(s, 'critical', 'dn1') },
        { expr: firing(s, 'critical'), eval_time: `${SLO_EXPECTED.pageResolves - 1}m`, exp_samples: sample(s, 'critical', 'dn1') },
        { expr: firing(s, 'critical'), eval_time: `${SLO_EXPECTED.pageResolves}m`, exp_samples: [] },
      ],
    };
    const steady = {
      name: `${s.alert}: 4 and 2 budgets open a ticket, not a page; half a budget nothing; every window and the budget left`,
      interval: '1m',
      input_series: [...series(s, 'fast', () => 4 * b), ...series(s, 'slow', () => 2 * b), ...series(s, 'fine', () => 0.5 * b)],
      promql_expr_test: [
        { expr: firing(s, 'warning'), eval_time: `${SLO_EXPECTED.ticketFires - 1}m`, exp_samples: [] },
        {
          expr: firing(s, 'warning'),
          eval_time: `${SLO_EXPECTED.ticketFires}m`,
          exp_samples: [...sample(s, 'warning', 'fast'), ...sample(s, 'warning', 'slow')],
        },
        { expr: `ALERTS{alertname="${s.alert}"}`, eval_time: '60m', exp_samples: [...sample(s, 'warning', 'fast'), ...sample(s, 'warning', 'slow')] },
        // Each window's ratio, and the budget left, within a billionth (the ratios are floating-point sums).
        ...[...WINDOWS.map((w) => [ratioName(w), 0.5 * b] as const), [ratioName(def.period), 0.5 * b] as const, [BUDGET_REMAINING, 0.5] as const].map(
          ([name, value]) => ({
            expr: `abs(${name}{slo="${s.name}",target="fine"} - ${round(value)}) < bool 1e-9`,
            eval_time: '60m',
            exp_samples: [{ labels: `{slo="${s.name}",target="fine",class="single"}`, value: 1 }],
          }),
        ),
      ],
    };
    return [page, steady];
  });
  const head = [
    '# Generated by `npm run kit:sync` from prometheus/slos.yml (scripts/slo.ts): edit that file, not this one.',
    '# The burn-rate alerts and error-budget rules (promtool test rules prometheus/slo.test.yml).',
  ].join('\n');
  return `${head}\n${stringify({ rule_files: ['alerts.yml'], evaluation_interval: '1m', tests }, { lineWidth: 0 })}`;
}
