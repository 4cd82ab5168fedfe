/** The exposition writer against hand-written text of both formats. */
import { describe, expect, it } from 'vitest';
import { familyText, joinFamilies } from '../../../src/exporter/engine/text-format.js';

const counter = { name: 'x_requests_total', help: 'Requests.\nSecond line with a \\ backslash.', type: 'counter' };
const gauge = { name: 'x_ratio', help: 'A ratio.', type: 'gauge' };

describe('familyText', () => {
  it('text format: HELP escaped, label values escaped, counter samples under the family name', () => {
    expect(familyText('text', counter, [{ labels: { target: 'a"b\\c\nd', code: '200' }, value: 3 }])).toBe(
      '# HELP x_requests_total Requests.\\nSecond line with a \\\\ backslash.\n' +
        '# TYPE x_requests_total counter\n' +
        'x_requests_total{target="a\\"b\\\\c\\nd",code="200"} 3\n',
    );
  });

  it('OpenMetrics: a counter family named without _total, its samples with it', () => {
    expect(familyText('openmetrics', counter, [{ labels: {}, value: 1.5 }])).toBe(
      '# HELP x_requests Requests.\\nSecond line with a \\\\ backslash.\n# TYPE x_requests counter\nx_requests_total 1.5\n',
    );
  });

  it('NaN and the infinities as the formats spell them; numbers in their shortest round-trip form', () => {
    const values = [Number.NaN, Infinity, -Infinity, 1e21, 0.1 + 0.2, -0, 1234567890123];
    expect(
      familyText(
        'text',
        gauge,
        values.map((value, i) => ({ labels: { i: String(i) }, value })),
      ),
    ).toBe(
      '# HELP x_ratio A ratio.\n# TYPE x_ratio gauge\n' +
        'x_ratio{i="0"} NaN\nx_ratio{i="1"} +Inf\nx_ratio{i="2"} -Inf\nx_ratio{i="3"} 1e+21\n' +
        'x_ratio{i="4"} 0.30000000000000004\nx_ratio{i="5"} 0\nx_ratio{i="6"} 1234567890123\n',
    );
  });

  it('a histogram: its samples by their own names, numeric label values as numbers', () => {
    const h = { name: 'x_seconds', help: 'Durations.', type: 'histogram' };
    expect(
      familyText('openmetrics', h, [
        { metricName: 'x_seconds_bucket', labels: { le: 0.5, kind: 'a' }, value: 1 },
        { metricName: 'x_seconds_bucket', labels: { le: '+Inf', kind: 'a' }, value: 2 },
        { metricName: 'x_seconds_sum', labels: { kind: 'a' }, value: 0.75 },
        { metricName: 'x_seconds_count', labels: { kind: 'a' }, value: 2 },
      ]),
    ).toBe(
      '# HELP x_seconds Durations.\n# TYPE x_seconds histogram\n' +
        'x_seconds_bucket{le="0.5",kind="a"} 1\nx_seconds_bucket{le="+Inf",kind="a"} 2\nx_seconds_sum{kind="a"} 0.75\nx_seconds_count{kind="a"} 2\n',
    );
  });
});

describe('joinFamilies', () => {
  const a = Buffer.from('# HELP a A.\n# TYPE a gauge\na 1\n');
  const b = Buffer.from('# HELP b B.\n# TYPE b gauge\nb 2\n');
  it('text format: families apart by a blank line, the body ending in one line feed', () => {
    expect(joinFamilies('text', [a, b]).toString()).toBe('# HELP a A.\n# TYPE a gauge\na 1\n\n# HELP b B.\n# TYPE b gauge\nb 2\n');
    expect(joinFamilies('text', []).toString()).toBe('');
  });
  it('OpenMetrics: no blank lines, # EOF last', () => {
    expect(joinFamilies('openmetrics', [a, b]).toString()).toBe('# HELP a A.\n# TYPE a gauge\na 1\n# HELP b B.\n# TYPE b gauge\nb 2\n# EOF\n');
    expect(joinFamilies('openmetrics', []).toString()).toBe('# EOF\n');
  });
});
