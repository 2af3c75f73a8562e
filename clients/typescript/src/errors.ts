// The service's errors as one TypeScript error class, with the reason and rule id taken from
// the google.rpc.Status details the server sends (grpc-status-details-bin).

import { fromBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  RetryInfoSchema,
} from "./gen/google/rpc/error_details_pb.js";
import { StatusSchema, type Status } from "./gen/google/rpc/status_pb.js";

/** The ErrorInfo domain of Croupier's errors. */
export const ERROR_DOMAIN = "croupier.v1";

/** One invalid field of a refused request (google.rpc.BadRequest). */
export interface FieldViolation {
  field: string;
  description: string;
}

/** `Code.FailedPrecondition` → `"FAILED_PRECONDITION"`, the gRPC spelling. */
export function codeName(code: Code): string {
  const name = Code[code] ?? "UNKNOWN";
  return name === "Canceled" ? "CANCELLED" : name.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/**
 * A call the service refused.
 *
 * `code` is the gRPC status code (connect's `Code`, whose numbers are gRPC's), `reason` the
 * stable ErrorInfo reason (`ILLEGAL_MOVE`, `ETAG_MISMATCH`, ...; the code's name when the
 * status carried none), and `ruleId` the rule that forbids a refused move (`VQ-3.2`), from the
 * PreconditionFailure.
 */
export class CroupierError extends Error {
  override readonly name = "CroupierError";
  readonly code: Code;
  readonly codeName: string;
  readonly reason: string;
  readonly ruleId: string | undefined;
  /** The ErrorInfo metadata, e.g. `{ rule_id: "VQ-3.2" }` or `{ current_etag: "..." }`. */
  readonly metadata: Readonly<Record<string, string>>;
  readonly fieldViolations: readonly FieldViolation[];
  /** How long the server asks the caller to wait before trying again (google.rpc.RetryInfo,
   * e.g. with OVERLOADED or RATE_LIMITED), in milliseconds. */
  readonly retryDelayMs: number | undefined;
  /** The server's message, without the code prefix. */
  readonly rawMessage: string;

  constructor(
    code: Code,
    reason: string,
    rawMessage: string,
    extra: {
      ruleId?: string | undefined;
      metadata?: Record<string, string>;
      fieldViolations?: FieldViolation[];
      retryDelayMs?: number | undefined;
      cause?: unknown;
    } = {},
  ) {
    super(`${codeName(code)} ${reason}: ${rawMessage}`, { cause: extra.cause });
    this.code = code;
    this.codeName = codeName(code);
    this.reason = reason;
    this.rawMessage = rawMessage;
    this.ruleId = extra.ruleId;
    this.metadata = extra.metadata ?? {};
    this.fieldViolations = extra.fieldViolations ?? [];
    this.retryDelayMs = extra.retryDelayMs;
  }

  /** Any error thrown by a call (a ConnectError, a network error, ...) as a CroupierError. */
  static from(error: unknown): CroupierError {
    if (error instanceof CroupierError) {
      return error;
    }
    const connectError = ConnectError.from(error);
    const details = Details.of(connectError);
    return CroupierError.of(connectError.code, connectError.rawMessage, (schema) => details.first(schema), connectError);
  }

  /** A refusal the service sent inside a message rather than as a call's status: a session's
   * MoveOutcome, the status ApplyMove would have ended with. */
  static fromStatus(status: Status): CroupierError {
    const first: FirstDetail = (schema) => {
      for (const detail of status.details) {
        const unpacked = anyUnpack(detail, schema);
        if (unpacked !== undefined) {
          return unpacked;
        }
      }
      return undefined;
    };
    // Connect's codes are gRPC's numbers.
    const code = status.code in Code ? (status.code as Code) : Code.Unknown;
    return CroupierError.of(code, status.message, first);
  }

  private static of(code: Code, message: string, first: FirstDetail, cause?: unknown): CroupierError {
    const info = first(ErrorInfoSchema);
    const failure = first(PreconditionFailureSchema);
    const bad = first(BadRequestSchema);
    const retry = first(RetryInfoSchema)?.retryDelay;
    return new CroupierError(code, info?.reason || codeName(code), message, {
      ruleId: failure?.violations[0]?.type || undefined,
      metadata: { ...(info?.metadata ?? {}) },
      fieldViolations: (bad?.fieldViolations ?? []).map((v) => ({
        field: v.field,
        description: v.description,
      })),
      retryDelayMs:
        retry === undefined ? undefined : Number(retry.seconds) * 1000 + retry.nanos / 1_000_000,
      cause,
    });
  }
}

/** The first detail of a status that is a `schema` message. */
type FirstDetail = <Desc extends DescMessage>(schema: Desc) => MessageShape<Desc> | undefined;

/** The details of an error's google.rpc.Status. Connect decodes `grpc-status-details-bin`
 * (gRPC, gRPC-Web) and the Connect protocol's JSON details into `ConnectError.details`; when a
 * transport left them out, the header itself is decoded here. */
class Details {
  private constructor(
    private readonly error: ConnectError,
    private readonly status: MessageShape<typeof StatusSchema> | undefined,
  ) {}

  static of(error: ConnectError): Details {
    let status: MessageShape<typeof StatusSchema> | undefined;
    const header = error.metadata.get("grpc-status-details-bin");
    if (error.details.length === 0 && header) {
      try {
        status = fromBinary(StatusSchema, decodeBase64(header));
      } catch {
        status = undefined; // a malformed header: keep the code and message only
      }
    }
    return new Details(error, status);
  }

  first<Desc extends DescMessage>(schema: Desc): MessageShape<Desc> | undefined {
    const [found] = this.error.findDetails(schema);
    if (found !== undefined) {
      return found;
    }
    for (const detail of this.status?.details ?? []) {
      const unpacked = anyUnpack(detail, schema);
      if (unpacked !== undefined) {
        return unpacked;
      }
    }
    return undefined;
  }
}

function decodeBase64(text: string): Uint8Array {
  const padded = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(padded + "===".slice((padded.length + 3) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
