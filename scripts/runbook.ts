/**
 * Where every alert's runbook_url points: `${RUNBOOK_URL}#<alert, lower case>`, the exporter's own
 * /runbook page (docs/runbook.md of the running version, src/exporter/web/runbook.ts) on the default
 * listen address. `npm run kit:sync` writes it into prometheus/alerts.yml and alerts.test.yml;
 * `npm run kit:sync -- --runbook-url=URL` writes another (your exporter's address, or a published
 * copy of docs/runbook.md: the anchors are GitHub's). The chart's prometheusRule.runbookURL does the
 * same per installation (by default the release's Service).
 */

/** The exporter's default listen address, as the host running it reaches it. */
export const RUNBOOK_URL = 'http://localhost:19308/runbook';

export const runbookUrl = (alert: string, page = RUNBOOK_URL): string => `${page}#${alert.toLowerCase()}`;

/** Rewrites every `runbook_url: <URL>#anchor` line to `page`, keeping its anchor. */
export const withRunbookUrl = (yaml: string, page = RUNBOOK_URL): string =>
  yaml.replace(/^(\s*runbook_url: )['"]?\S*#([a-z0-9-]+)['"]?$/gm, (_l, key: string, anchor: string) => `${key}${page}#${anchor}`);
