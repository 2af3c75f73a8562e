// The lobby through the TypeScript client: a host creates a public game with an open seat, a
// guest finds it in the lobby and joins with the join code (then leaves and joins again), the
// operator reissues the host's credential, both play it to the end (each with its own
// credential), the host reads the record and asks for a rematch, and the operator
// lists the host's games. Prints a JSON summary (tests/service/test_lobby_typescript.py).
//
//   npx tsx examples/lobby.ts --target 127.0.0.1:50051 --operator-key KEY [--seed 3]

import { parseArgs } from "node:util";
import { connect } from "../src/node.js";
import { CroupierError, gameOptions, GameStatus } from "../src/index.js";
import { choose, generator } from "./cli.js";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      target: { type: "string" },
      "operator-key": { type: "string" },
      seed: { type: "string", default: "3" },
    },
  });
  if (values.target === undefined || values["operator-key"] === undefined) {
    throw new Error("give --target HOST:PORT and --operator-key KEY");
  }
  const operator = connect(values.target, { operatorKey: values["operator-key"] });
  const guestClient = connect(values.target);
  const random = generator(Number(values.seed));
  const host = `ts-host-${Math.floor(random() * 1e9)}`;
  try {
    const game = await operator.create(gameOptions("one_card"), 2, {
      playerIds: [host, ""],
      openSeats: true,
      public: true,
    });
    const lobby = await guestClient.listGames({ filter: `player_id = "${host}"` });
    // The guest joins, leaves (the seat is open again) and joins again; the host's credential
    // is reissued by the operator (the old one is refused from then on).
    const first = await guestClient.join(game.name, game.joinCode, { playerId: "ts-guest" });
    const left = await guestClient.leave(game.name, first.seatCredential);
    const joined = await guestClient.join(game.name, game.joinCode, { playerId: "ts-guest" });
    const reissued = await operator.reissue(game.name, 0);
    let oldRefused = "";
    try {
      await guestClient.get(game.name, game.seatCredentials[0]);
    } catch (error: unknown) {
      oldRefused = error instanceof CroupierError ? error.reason : String(error);
    }
    const credentials = [reissued, joined.seatCredential];
    let view = await guestClient.get(game.name, credentials[0]);
    const statusAfterJoin = GameStatus[view.status];
    let moves = 0;
    while (view.result === undefined) {
      const seat = choose(random, view.activeSeats);
      const credential = credentials[seat] ?? "";
      const move = choose(random, await guestClient.legalMoves(game.name, credential));
      await guestClient.apply(game.name, credential, move);
      moves += 1;
      view = await guestClient.get(game.name, credentials[0]);
    }
    const record = await operator.record(game.name, credentials[1]);
    const rematch = await operator.rematch(game.name, credentials[0]);
    const listed = await operator.listGames({ filter: `player_id = "${host}"`, pageSize: 10 });
    console.log(
      JSON.stringify({
        name: game.name,
        lobby: lobby.games.map((g) => g.name),
        joinedSeat: joined.seat,
        openAfterLeave: left?.openSeats ?? [],
        oldCredential: oldRefused,
        statusAfterJoin,
        moves,
        recordMoves: record.moves.length,
        recordSeed: record.setup?.seed?.toString(),
        rematch: rematch.name,
        listed: listed.games.map((g) => g.name),
      }),
    );
  } finally {
    operator.close();
    guestClient.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
