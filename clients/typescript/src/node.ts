// Node: Connect for Node with the gRPC protocol over HTTP/2 (cleartext, prior knowledge), the
// same wire protocol as every other gRPC client of croupier-server.

import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import type { Transport } from "@connectrpc/connect";
import { Croupier, type CroupierOptions } from "./client.js";

export interface NodeOptions extends CroupierOptions {
  /** The server's unary port (`host:port` or a URL; `croupier-server --unary-port`,
   * docs/api.md): every call but `watch` goes there, `watch` to `target`. */
  unaryTarget?: string;
}

/** A client of the server at `target` (`host:port`, or a URL such as `http://host:port`). */
export function connect(target: string, options: NodeOptions = {}): Croupier {
  const sessions: Http2SessionManager[] = [];
  const transportTo = (address: string): Transport => {
    const baseUrl = address.includes("://") ? address : `http://${address}`;
    const sessionManager = new Http2SessionManager(baseUrl);
    sessions.push(sessionManager);
    return createGrpcTransport({ baseUrl, sessionManager });
  };
  const transport = transportTo(target);
  const { unaryTarget, ...rest } = options;
  return new Croupier(transport, {
    ...rest,
    ...(unaryTarget ? { unaryTransport: transportTo(unaryTarget) } : {}),
    onClose: () => {
      for (const session of sessions) {
        session.abort();
      }
      options.onClose?.();
    },
  });
}

export * from "./index.js";
