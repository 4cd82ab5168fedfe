/**
 * RFC 3339 times as the data node sends them. Expected values are computed by hand: days since
 * 1970-01-01 (365 a year plus one per leap year passed, plus the days of the months before), times
 * 86,400, plus the time of day, minus the zone offset.
 */
import { describe, expect, it } from 'vitest';
import { rfc3339Nanos } from '../../src/exporter/vega/convert.js';
import { statisticsSamples } from '../../src/exporter/vega/collectors/statistics.js';
import { FieldError } from '../../src/exporter/errors.js';
import { STATISTICS, STATISTICS_HEADERS } from '../helpers/hostile.js';
import { thrown } from '../helpers/thrown.js';

const S = 1_000_000_000n;

describe('RFC 3339 times', () => {
  it('valid times, to the nanosecond', () => {
    expect(rfc3339Nanos('1970-01-01T00:00:00Z', 'f')).toBe(0n);
    // 30 years with 7 leap days (1972 … 1996) = 10,957 days; Jan 31 + Feb 28 = 59 more; noon.
    expect(rfc3339Nanos('2000-02-29T12:00:00Z', 'f')).toBe(951_825_600n * S);
    // 54 years with 13 leap days = 19,723 days, + 59 = 19,782 days; 23:59:59 at +01:00 is 22:59:59 UTC.
    expect(rfc3339Nanos('2024-02-29T23:59:59.123456789+01:00', 'f')).toBe(1_709_247_599n * S + 123_456_789n);
    // 2023-12-31: 53 years with 13 leap days = 19,358 days, + 364 = 19,722 days = 1,703,980,800 s.
    expect(rfc3339Nanos('2023-12-31T23:59:59Z', 'f')).toBe(1_704_067_199n * S);
    expect(rfc3339Nanos('1969-12-31T23:59:59.5Z', 'f')).toBe(-500_000_000n);
    // The widest offsets RFC 3339 allows: 23:59 either way (86,340 s).
    expect(rfc3339Nanos('1970-01-01T00:00:00-23:59', 'f')).toBe(86_340n * S);
    expect(rfc3339Nanos('1970-01-02T00:00:00+23:59', 'f')).toBe(60n * S);
    expect(rfc3339Nanos('1970-01-01T00:00:00-00:00', 'f')).toBe(0n);
    // Days at the end of each month length: April 30, a 31-day month, February of a 400-year leap year.
    // 2026-04-30: 56 years with 14 leap days = 20,454 days, + 31 + 28 + 31 + 29 = 119 → 20,573 days.
    expect(rfc3339Nanos('2026-04-30T00:00:00Z', 'f')).toBe(20_573n * 86_400n * S);
    expect(rfc3339Nanos('2026-12-31T23:59:59.999999999Z', 'f')).toBe((20_818n * 86_400n + 86_399n) * S + 999_999_999n);
  });

  it('unset: the empty string and the proto zero time', () => {
    expect(rfc3339Nanos('', 'f')).toBeUndefined();
    expect(rfc3339Nanos('0001-01-01T00:00:00Z', 'f')).toBeUndefined();
  });

  it.each([
    ['2026-13-45T25:61:61Z', 'month 13 (and every other field)'],
    ['2026-13-01T00:00:00Z', 'month 13'],
    ['2026-00-01T00:00:00Z', 'month 0'],
    ['2026-01-00T00:00:00Z', 'day 0'],
    ['2026-01-32T00:00:00Z', 'day 32'],
    ['2026-04-31T00:00:00Z', 'April 31'],
    ['2023-02-29T00:00:00Z', 'February 29 of a common year'],
    ['1900-02-29T00:00:00Z', 'February 29 of a century that is no leap year'],
    ['2026-01-01T24:00:00Z', 'hour 24'],
    ['2026-01-01T25:00:00Z', 'hour 25'],
    ['2026-01-01T00:60:00Z', 'minute 60'],
    ['2026-01-01T00:00:61Z', 'second 61'],
    ['2016-12-31T23:59:60Z', 'a leap second (refused: Go and proto timestamps never send one)'],
    ['2026-01-01T00:00:00+24:00', 'zone hour 24'],
    ['2026-01-01T00:00:00+99:99', 'zone +99:99'],
    ['2026-01-01T00:00:00-00:60', 'zone minute 60'],
    ['0001-13-01T00:00:00Z', 'year 1 with month 13: bad, not unset'],
  ])('%s is a bad field (%s), never a rolled-over date', (v) => {
    const err = thrown(() => rfc3339Nanos(v, 'statistics.vegaTime'));
    expect(err).toBeInstanceOf(FieldError);
    expect(err).toMatchObject({ code: 'UPSTREAM_BAD_FIELD', field: 'statistics.vegaTime' });
  });

  it('the statistics answer with an out-of-range time fails as a bad field, naming it', () => {
    const body = { statistics: { ...STATISTICS.statistics, genesisTime: '2026-13-45T25:61:61Z' } };
    expect(thrown(() => statisticsSamples('t', body, STATISTICS_HEADERS))).toMatchObject({ code: 'UPSTREAM_BAD_FIELD', field: 'statistics.genesisTime' });
  });
});
