// Node: Connect for Node with the gRPC protocol over HTTP/2 (cleartext, prior knowledge), the
// same wire protocol as every other gRPC client of croupier-server.

import type { DescMessage, DescMethodStreaming, DescMethodUnary, MessageInitShape } from "@bufbuild/protobuf";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { Code, createClient, type ContextValues, type StreamResponse, type Transport, type UnaryResponse } from "@connectrpc/connect";
import { Croupier, type CroupierOptions } from "./client.js";
import { codeName, CroupierError } from "./errors.js";
import { GameService } from "./gen/croupier/v1/game_service_pb.js";

/** How long the unary port learned from the server has to answer, in ms, before the client
 * keeps to the gRPC port: a port it cannot reach (a firewall, a mapped port) must not hold up
 * its first call for long. A server on a network that works answers in milliseconds. */
export const LEARN_TIMEOUT_MS = 2_000;

export interface NodeOptions extends CroupierOptions {
  /** The server's unary port (`host:port` or a URL; `croupier-server --unary-port`,
   * docs/api.md): every call but `watch` goes there, `watch` to `target`. */
  unaryTarget?: string;
  /** Without `unaryTarget`: ask the server for its unary port before the first call, and
   * send every call but `watch` there when it answers there (on the host of `target`).
   * Default true. */
  learnUnaryPort?: boolean;
}

/** A client of the server at `target` (`host:port`, or a URL such as `http://host:port`). */
export function connect(target: string, options: NodeOptions = {}): Croupier {
  const sessions: Http2SessionManager[] = [];
  const transportTo = (baseUrl: string): Transport => {
    const sessionManager = new Http2SessionManager(baseUrl);
    sessions.push(sessionManager);
    return createGrpcTransport({ baseUrl, sessionManager });
  };
  const baseUrl = urlOf(target);
  const transport = transportTo(baseUrl);
  const { unaryTarget, learnUnaryPort = true, ...rest } = options;
  const learned =
    unaryTarget === undefined && learnUnaryPort
      ? new LearnedRoute(transport, baseUrl, transportTo, rest.timeoutMs ?? 10_000)
      : undefined;
  return new Croupier(transport, {
    ...rest,
    ...(unaryTarget ? { unaryTransport: transportTo(urlOf(unaryTarget)), currentUnaryTarget: () => unaryTarget } : {}),
    ...(learned ? { unaryTransport: learned, currentUnaryTarget: () => learned.target } : {}),
    onClose: () => {
      for (const session of sessions) {
        session.abort();
      }
      options.onClose?.();
    },
  });
}

function urlOf(address: string): string {
  return address.includes("://") ? address : `http://${address}`;
}

/**
 * The transport of every call but `watch` when the client learns the unary port: before the
 * first call it asks the server (GetServerInfo on the gRPC port) and, when the server names a
 * port, asks again there; if that answers within LEARN_TIMEOUT_MS, naming the same port, the
 * calls go there, else to the gRPC port. A learned port that later cannot be reached is given
 * up for the client's life and the call sent again on the gRPC port (every call is safe to
 * send twice). Streams (WatchGame, served on the gRPC port only) go to the gRPC port.
 */
class LearnedRoute implements Transport {
  /** The learned port's `host:port`, while calls go there. */
  target: string | undefined;
  private chosen: Promise<Transport> | undefined;
  private learned: Transport | undefined;

  constructor(
    private readonly main: Transport,
    private readonly baseUrl: string,
    private readonly transportTo: (baseUrl: string) => Transport,
    private readonly timeoutMs: number,
  ) {}

  async unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: MessageInitShape<I>,
    contextValues?: ContextValues,
  ): Promise<UnaryResponse<I, O>> {
    const transport = await this.route();
    try {
      return await transport.unary(method, signal, timeoutMs, header, input, contextValues);
    } catch (error) {
      if (transport !== this.learned || !unreachable(error, signal)) {
        throw error;
      }
      this.learned = this.target = undefined;
      this.chosen = Promise.resolve(this.main);
      return this.main.unary(method, signal, timeoutMs, header, input, contextValues);
    }
  }

  stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodStreaming<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: AsyncIterable<MessageInitShape<I>>,
    contextValues?: ContextValues,
  ): Promise<StreamResponse<I, O>> {
    return this.main.stream(method, signal, timeoutMs, header, input, contextValues);
  }

  private route(): Promise<Transport> {
    this.chosen ??= this.learn();
    return this.chosen;
  }

  private async learn(): Promise<Transport> {
    let port: number;
    try {
      const deadline = this.timeoutMs > 0 ? { timeoutMs: this.timeoutMs } : {};
      const info = await createClient(GameService, this.main).getServerInfo({}, deadline);
      port = info.unaryPort;
    } catch (error) {
      const code = CroupierError.from(error).code;
      if (code === Code.Unavailable || code === Code.DeadlineExceeded || code === Code.ResourceExhausted) {
        this.chosen = undefined; // the server is not there yet, or is busy: ask again at the next call
      }
      return this.main;
    }
    const url = new URL(this.baseUrl);
    const own = url.port;
    url.port = String(port);
    if (port === 0 || url.port === own) {
      return this.main; // none, or the target is that port
    }
    const transport = this.transportTo(url.origin);
    try {
      // The same server's unary port names itself, where some other server would not.
      const there = await createClient(GameService, transport).getServerInfo({}, { timeoutMs: LEARN_TIMEOUT_MS });
      if (there.unaryPort !== port) {
        return this.main;
      }
    } catch {
      return this.main;
    }
    this.learned = transport;
    this.target = url.host;
    return transport;
  }
}

/** A connection that could not be made or was lost, not a status the server sent (whose
 * UNAVAILABLE always carries a reason: OVERLOADED, STORE_UNAVAILABLE), nor a cancellation by
 * the caller: Node's HTTP/2 ends the streams of a connection that closes with CANCEL. */
function unreachable(error: unknown, signal: AbortSignal | undefined): boolean {
  const refused = CroupierError.from(error);
  const lost = refused.code === Code.Unavailable || (refused.code === Code.Canceled && !signal?.aborted);
  return lost && refused.reason === codeName(refused.code);
}

export * from "./index.js";
