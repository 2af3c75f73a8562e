// The TypeScript client learning the server's unary port (tests/e2e): `connect(target)` without
// `unaryTarget`. Plays a game of One Card and prints, as a JSON line, where its calls went;
// with `--wait` it then reads a line on stdin (the test cuts the learned port meanwhile) and
// prints what a call after the cut did.
//
//   npx tsx test/learned_port.ts --target 127.0.0.2:50051 [--wait]

import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { codeName, CroupierError, gameOptions } from "../src/index.js";
import { connect } from "../src/node.js";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { target: { type: "string" }, wait: { type: "boolean", default: false } },
  });
  if (!values.target) {
    throw new Error("usage: learned_port.ts --target HOST:PORT [--wait]");
  }
  const croupier = connect(values.target);
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  try {
    const before = croupier.unaryTarget ?? null;
    const created = await croupier.create(gameOptions("one_card"), 2, { seed: 13 });
    let view = created.view;
    let moves = 0;
    while (view !== undefined && view.result === undefined && moves < 2_000) {
      const seat = view.activeSeats[0] ?? 0;
      const credential = created.seatCredentials[seat] ?? "";
      const [move] = await croupier.legalMoves(created.name, credential);
      if (move === undefined) {
        throw new Error("no legal move");
      }
      view = (await croupier.apply(created.name, credential, move)).view;
      moves += 1;
    }
    // The generated client's streams go to the gRPC port, where WatchGame is served.
    let streamed = -1;
    for await (const update of croupier.service.watchGame({ name: created.name })) {
      streamed = Number(update.view?.moveCount);
      break;
    }
    console.log(
      JSON.stringify({
        before,
        learned: croupier.unaryTarget ?? null,
        moves,
        result: view?.result !== undefined,
        streamed,
      }),
    );
    if (values.wait) {
      await lines.next();
      let afterCut = "OK";
      try {
        await croupier.get(created.name);
      } catch (error) {
        afterCut = error instanceof CroupierError ? `${codeName(error.code)} ${error.rawMessage}` : String(error);
      }
      console.log(JSON.stringify({ afterCut, unaryTargetAfterCut: croupier.unaryTarget ?? null }));
    }
  } finally {
    croupier.close();
    process.stdin.destroy();
  }
}

await main();
