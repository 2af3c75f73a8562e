// The TypeScript client with a unary port (tests/e2e): every call but watch goes to
// `unaryTarget`, watch to `target`. Prints, as JSON, what each client saw.
//
//   npx tsx test/unary_port.ts --target 127.0.0.1:50051 --unary-target 127.0.0.1:50052 \
//       --dead 127.0.0.1:1

import { parseArgs } from "node:util";
import { codeName, CroupierError, gameOptions } from "../src/index.js";
import { connect } from "../src/node.js";

async function refusal(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return "OK";
  } catch (error) {
    return error instanceof CroupierError ? codeName(error.code) : String(error);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      target: { type: "string" },
      "unary-target": { type: "string" },
      dead: { type: "string" },
    },
  });
  const { target, dead } = values;
  const unaryTarget = values["unary-target"];
  if (!target || !unaryTarget || !dead) {
    throw new Error("usage: unary_port.ts --target HOST:PORT --unary-target HOST:PORT --dead HOST:PORT");
  }
  const once = { retry: { maxAttempts: 1 }, timeoutMs: 5_000 };
  // Both ports: the game made and moved through the unary port, watched on the gRPC port.
  const both = connect(target, { unaryTarget });
  // Its watch goes to `target`, here the unary port, which serves no WatchGame.
  const watchOnUnary = connect(unaryTarget, { ...once, unaryTarget });
  // Its other calls go to a port where nothing listens.
  const deadUnary = connect(target, { ...once, unaryTarget: dead });
  try {
    const created = await both.create(gameOptions("trinity"), 3, { seed: 5 });
    const stream = both.watch(created.name);
    const first = await stream.next();
    const seat = created.view?.activeSeats[0] ?? 0;
    const credential = created.seatCredentials[seat] ?? "";
    const [move] = await both.legalMoves(created.name, credential);
    if (move === undefined) {
      throw new Error("no legal move");
    }
    const applied = await both.apply(created.name, credential, move);
    const second = await stream.next();
    await stream.return(undefined);
    console.log(
      JSON.stringify({
        watchedMoveCounts: [first.value, second.value].map((m) => Number(m?.view?.moveCount)),
        appliedMoveCount: Number(applied.view?.moveCount),
        watchOnUnaryPort: await refusal(async () => {
          for await (const _ of watchOnUnary.watch(created.name)) {
            break;
          }
        }),
        getOnUnaryPort: await refusal(() => watchOnUnary.get(created.name)),
        getWithDeadUnaryTarget: await refusal(() => deadUnary.get(created.name)),
        watchWithDeadUnaryTarget: await refusal(async () => {
          for await (const _ of deadUnary.watch(created.name)) {
            break;
          }
        }),
      }),
    );
  } finally {
    both.close();
    watchOnUnary.close();
    deadUnary.close();
  }
}

await main();
