// Browsers: gRPC-Web or the Connect protocol over fetch, to croupier-server's web gateway
// (`--web-port`, see docs/browser.md). Nothing here needs Node.

import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { Croupier, type CroupierOptions } from "./client.js";

export type WebProtocol = "grpc-web" | "connect";

/** A client of the web gateway at `baseUrl` (e.g. `http://localhost:8080`). */
export function connectWeb(
  baseUrl: string,
  protocol: WebProtocol = "grpc-web",
  options: CroupierOptions = {},
): Croupier {
  const transport =
    protocol === "grpc-web"
      ? createGrpcWebTransport({ baseUrl })
      : createConnectTransport({ baseUrl });
  return new Croupier(transport, options);
}

export * from "./index.js";
