/**
 * Facts a collector learns about what it polled (a chain id, a height), apart from its series.
 * A fact is named by a key object: the collector that makes it publishes it under the key and
 * declares the key in its module; readers hold the key and find the publisher through the
 * collector registry, so they depend on the fact, not on which collector makes it.
 */

/** A typed fact name; `defineFact<bigint>('height')`. The type parameter only types reads and writes. */
export interface FactKey<T> {
  readonly name: string;
  /** Never set: carries T for the type checker. */
  readonly type?: T;
}

export function defineFact<T>(name: string): FactKey<T> {
  return { name };
}

/** The facts one poll established; a fact that is unknown is absent. */
export class Facts {
  private readonly values = new Map<FactKey<unknown>, unknown>();

  /** Sets `key` to `value`, unless `value` is undefined. */
  with<T>(key: FactKey<T>, value: T | undefined): this {
    if (value !== undefined) this.values.set(key, value);
    return this;
  }

  get<T>(key: FactKey<T>): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  get size(): number {
    return this.values.size;
  }
}
