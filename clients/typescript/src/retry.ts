// Retries of calls the server may answer on a second try. Connect-ES has no retry policy of
// its own, so this is the one the Python client gets from gRPC's service config: UNAVAILABLE
// only (the server refused before doing anything, OVERLOADED; the store was unreachable,
// STORE_UNAVAILABLE; the connection failed), at most 5 attempts, after the delay the server
// asked for in its RetryInfo, else an exponential backoff with full jitter (so that calls
// refused together do not come back together). Nothing else is retried: see docs/api.md,
// "Which failures to retry".

import { Code } from "@connectrpc/connect";
import { CroupierError } from "./errors.js";

export interface RetryPolicy {
  /** Tries of a call, the first included (1: no retry). Default 5. */
  maxAttempts?: number;
  /** Upper bound of the first backoff, in ms (default 100); doubled at each try. */
  initialBackoffMs?: number;
  /** Largest backoff, in ms (default 2000). */
  maxBackoffMs?: number;
}

export const DEFAULT_RETRY: Required<RetryPolicy> = {
  maxAttempts: 5,
  initialBackoffMs: 100,
  maxBackoffMs: 2000,
};

/** Whether a failed call may be made again as it is. */
export function isRetryable(error: CroupierError): boolean {
  return error.code === Code.Unavailable;
}

/** How long to wait before try number `attempt + 1` (after `attempt` failed tries). */
export function backoffMs(error: CroupierError, attempt: number, policy: Required<RetryPolicy>): number {
  if (error.retryDelayMs !== undefined) {
    return error.retryDelayMs;
  }
  const ceiling = Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** (attempt - 1));
  return Math.random() * ceiling;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** `run()`, tried again while it fails with a retryable error, up to the policy's attempts. */
export async function withRetry<T>(
  run: () => Promise<T>,
  policy: Required<RetryPolicy>,
  signal?: AbortSignal,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (thrown) {
      const error = CroupierError.from(thrown);
      if (attempt >= policy.maxAttempts || !isRetryable(error) || signal?.aborted) {
        throw error;
      }
      try {
        await sleep(backoffMs(error, attempt, policy), signal);
      } catch (aborted) {
        throw CroupierError.from(aborted);
      }
    }
  }
}

/** A request id for a call that must apply at most once however often it is sent: a UUID
 * (version 4), from crypto.randomUUID where it exists (Node, browsers on https or localhost),
 * else from crypto.getRandomValues (any browser page). */
export function newRequestId(): string {
  if (typeof globalThis.crypto.randomUUID === "function") {
    return globalThis.crypto.randomUUID();
  }
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
