// Shared by the example scripts: a client for `--transport` and a seeded generator.

import { connect } from "../src/node.js";
import { connectWeb } from "../src/web.js";
import type { Croupier } from "../src/client.js";

export type TransportName = "grpc" | "grpc-web" | "connect";

/** `grpc`: Connect for Node, gRPC over HTTP/2 to croupier-server's gRPC port (`host:port`).
 * `grpc-web` / `connect`: the browser transports (fetch) to the web gateway's URL. */
export function clientFor(transport: string, target: string): Croupier {
  switch (transport) {
    case "grpc":
      return connect(target);
    case "grpc-web":
    case "connect": {
      const baseUrl = target.includes("://") ? target : `http://${target}`;
      return connectWeb(baseUrl, transport);
    }
    default:
      throw new Error(`--transport is grpc, grpc-web or connect, not ${JSON.stringify(transport)}`);
  }
}

/** mulberry32: a small seeded generator of floats in [0, 1). */
export function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One of `options`, uniformly. */
export function choose<T>(random: () => number, options: readonly T[]): T {
  const chosen = options[Math.floor(random() * options.length)];
  if (chosen === undefined) {
    throw new Error("nothing to choose from");
  }
  return chosen;
}
