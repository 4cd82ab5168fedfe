/** The error `fn` throws; fails the test when it throws nothing, so an assertion on it can never be skipped. */
export function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    if (err instanceof Error) return err;
    throw new Error(`threw a non-Error: ${String(err)}`);
  }
  throw new Error('expected a throw, but nothing was thrown');
}
