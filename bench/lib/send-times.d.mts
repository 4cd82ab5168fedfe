/** The send time of scrape k: a random moment within its slot of `everyMs` from `start`. */
export function stratified(start: number, everyMs: number, random?: () => number): (k: number) => number;
