// The transport-independent part of the client: the wrapper, its error class and the
// generated messages. Import `./node.js` (Node) or `./web.js` (browsers) for a transport.

export * from "./client.js";
export * from "./errors.js";
export * from "./retry.js";
export * from "./gen/croupier/v1/game_service_pb.js";
export * from "./gen/croupier/v1/common_pb.js";
