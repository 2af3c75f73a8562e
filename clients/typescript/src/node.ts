// Node: Connect for Node with the gRPC protocol over HTTP/2 (cleartext, prior knowledge), the
// same wire protocol as every other gRPC client of croupier-server.

import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { Croupier, type CroupierOptions } from "./client.js";

/** A client of the server at `target` (`host:port`, or a URL such as `http://host:port`). */
export function connect(target: string, options: CroupierOptions = {}): Croupier {
  const baseUrl = target.includes("://") ? target : `http://${target}`;
  const sessionManager = new Http2SessionManager(baseUrl);
  const transport = createGrpcTransport({ baseUrl, sessionManager });
  return new Croupier(transport, {
    ...options,
    onClose: () => {
      sessionManager.abort();
      options.onClose?.();
    },
  });
}

export * from "./index.js";
