/**
 * Error responses in the data node's REST shape: `{code, message, details}` where `code` is the gRPC
 * status code. Data-node errors carry one vega.ErrorDetail; gateway errors carry none.
 */

export const GRPC = {
  Unknown: 2,
  InvalidArgument: 3,
  DeadlineExceeded: 4,
  NotFound: 5,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  Unimplemented: 12,
  Internal: 13,
  Unavailable: 14,
} as const;

const CODE_NAMES: Record<number, string> = Object.fromEntries(Object.entries(GRPC).map(([name, code]) => [code, name]));

export const HTTP_FOR_GRPC: Record<number, number> = {
  [GRPC.Unknown]: 500,
  [GRPC.InvalidArgument]: 400,
  [GRPC.DeadlineExceeded]: 504,
  [GRPC.NotFound]: 404,
  [GRPC.PermissionDenied]: 403,
  [GRPC.ResourceExhausted]: 429,
  [GRPC.Unimplemented]: 501,
  [GRPC.Internal]: 500,
  [GRPC.Unavailable]: 503,
};

export interface ErrorBody {
  code: number;
  message: string;
  details: unknown[];
}

export class ApiError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.message);
  }
}

/** An error raised by the data node's own service code (it carries a vega.ErrorDetail). */
export function datanodeError(grpcCode: number, detailCode: number, text: string, inner = ''): ApiError {
  return new ApiError(HTTP_FOR_GRPC[grpcCode] ?? 500, {
    code: grpcCode,
    message: `${CODE_NAMES[grpcCode] ?? 'Unknown'} error`,
    details: [{ '@type': 'type.googleapis.com/vega.ErrorDetail', code: detailCode, message: text, inner }],
  });
}

/** An error raised by the REST gateway in front of the service (no details). */
export function gatewayError(grpcCode: number, message: string, headers: Record<string, string> = {}): ApiError {
  return new ApiError(HTTP_FOR_GRPC[grpcCode] ?? 500, { code: grpcCode, message, details: [] }, headers);
}

/** Detail codes the simulator uses (the real node numbers its errors in the 10000s and up). */
export const DETAIL = {
  invalidPagination: 10002,
  missingId: 10003,
  invalidId: 10004,
  notFound: 10005,
  invalidVersion: 10006,
  networkHistory: 10010,
  invalidFilter: 10011,
} as const;
