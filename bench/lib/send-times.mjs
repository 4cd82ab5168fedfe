// When the latency sampler sends each scrape: one scrape in each slot of EVERY_MS, at a random
// moment within it (stratified). Not on a fixed period: the exporter's polls run on a period of
// their own (one a second in the busy windows), so a fixed 20 ms schedule kept its phase to them for
// a whole window, and whether a window's p99 met a poll's burst of work was decided by where its
// first scrape happened to fall (docs/performance.md, "Scrape phases"). A random moment in each slot
// samples every phase of any period evenly and keeps the rate and the count of a fixed schedule.

/**
 * The send time of scrape k (0, 1, ...): within [start + k·everyMs, start + (k+1)·everyMs).
 * @param {number} start
 * @param {number} everyMs
 * @param {() => number} random uniform in [0, 1)
 * @returns {(k: number) => number}
 */
export function stratified(start, everyMs, random = Math.random) {
  return (k) => start + (k + random()) * everyMs;
}
