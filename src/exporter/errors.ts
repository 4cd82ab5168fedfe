/**
 * Errors with stable codes. Logs and metrics use `code`; `cause` keeps the underlying error.
 * Messages never include response bodies verbatim (they may carry secrets such as swarm keys).
 */

export type ErrorCode =
  | 'CONFIG_INVALID'
  | 'UPSTREAM_HTTP'
  | 'UPSTREAM_TIMEOUT'
  | 'UPSTREAM_CONNECT'
  | 'UPSTREAM_BODY_TOO_LARGE'
  | 'UPSTREAM_LIST_TOO_LARGE'
  | 'UPSTREAM_BAD_JSON'
  | 'UPSTREAM_BAD_FIELD'
  | 'UPSTREAM_RATE_LIMITED'
  | 'POLL_TIMEOUT';

export class ExporterError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ExporterError';
  }
}

/** A non-2xx answer from a data node, with its decoded `{code, message, details}` body. */
export class UpstreamHttpError extends ExporterError {
  constructor(
    readonly status: number,
    readonly endpoint: string,
    /** gRPC status code from the body, when the body was the node's error shape. */
    readonly grpcCode: number | undefined,
    /** vega.ErrorDetail code and text, when present; the text is never put in the message. */
    readonly detailCode: number | undefined,
    readonly detailText: string | undefined,
    readonly retryAfterSeconds: number | undefined,
  ) {
    // Numbers only: a node's text may echo what it was sent, configured API-key headers included.
    super(
      status === 429 || status === 403 ? 'UPSTREAM_RATE_LIMITED' : 'UPSTREAM_HTTP',
      `${endpoint}: HTTP ${status}${grpcCode !== undefined ? ` (gRPC ${grpcCode})` : ''}${detailCode !== undefined ? ` (detail ${detailCode})` : ''}`,
    );
  }
}

/** A field of an upstream response with the wrong type or format. Names the field, not the value. */
export class FieldError extends ExporterError {
  /** `reason` is how a skipped row is counted: a malformed id, or any other bad field. */
  constructor(
    readonly field: string,
    expected: string,
    got: unknown,
    readonly reason: 'bad_field' | 'bad_id' = 'bad_field',
  ) {
    super('UPSTREAM_BAD_FIELD', `field ${field}: expected ${expected}, got ${describe(got)}`);
  }
}

/** A configuration (file, flags, web config, secrets, discovery file) that cannot be used: names the field and what was expected. */
export class ConfigError extends ExporterError {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
    this.name = 'ConfigError';
  }
}

/** Describe a value by its JSON type and size, never its content. */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'string') return `a string of ${v.length} characters`;
  return `a ${typeof v}`;
}

/** The stable code of any error: UNEXPECTED for those that are not ours. */
export function errorCode(err: unknown): string {
  return err instanceof ExporterError ? err.code : 'UNEXPECTED';
}
