/**
 * Where every alert's runbook_url points: `${RUNBOOK_BASE_URL}/docs/runbook.md#<alert, lower case>`.
 * `npm run kit:sync` writes it into prometheus/alerts.yml and alerts.test.yml; the chart's
 * prometheusRule.runbookBaseUrl replaces the base per installation.
 */

/** A placeholder until package.json names the repository (its `homepage` or `repository`). */
export const RUNBOOK_BASE_URL = 'https://example.org/datanode-exporter';

export const runbookUrl = (alert: string, base = RUNBOOK_BASE_URL): string => `${base.replace(/\/$/, '')}/docs/runbook.md#${alert.toLowerCase()}`;

/** Rewrites the base of every `runbook_url: …docs/runbook.md#anchor` line, keeping its anchor. */
export const withRunbookBase = (yaml: string): string =>
  yaml.replace(
    /^(\s*runbook_url: )\S*docs\/runbook\.md#([a-z]+)$/gm,
    (_l, key: string, anchor: string) => `${key}${RUNBOOK_BASE_URL}/docs/runbook.md#${anchor}`,
  );
