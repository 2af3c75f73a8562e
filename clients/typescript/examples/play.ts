// Plays one complete game through the TypeScript client with random legal moves, one seat
// watching through WatchGame, and prints a JSON summary on stdout.
//
//   npx tsx examples/play.ts --target 127.0.0.1:50051 --game vampire_queen --seats 3 --seed 7
//   npx tsx examples/play.ts --transport connect --target http://127.0.0.1:8080 --game trinity
//
// Each move: a seat drawn uniformly among the view's active seats (so out-of-turn and
// simultaneous moves are played too), then a move drawn uniformly among that seat's
// ListLegalMoves, applied with the etag the moves were computed for. The generator is seeded,
// so the same seed plays the same game.

import { parseArgs } from "node:util";
import { equals } from "@bufbuild/protobuf";
import {
  CroupierError,
  gameOptions,
  type GameView,
  type Move,
  type WatchGameResponse,
  WatchGameResponseSchema,
} from "../src/index.js";
import { choose, clientFor, generator } from "./cli.js";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      target: { type: "string" },
      transport: { type: "string", default: "grpc" },
      game: { type: "string" },
      seats: { type: "string", default: "3" },
      seed: { type: "string", default: "1" },
      "watch-seat": { type: "string", default: "0" },
      "max-moves": { type: "string", default: "20000" },
    },
  });
  if (!values.target || !values.game) {
    throw new Error("usage: play.ts --target HOST:PORT --game GAME_ID [--seats N] [--seed N]");
  }
  const seed = Number(values.seed);
  const watchSeat = Number(values["watch-seat"]);
  const maxMoves = Number(values["max-moves"]);
  const random = generator(seed);
  const croupier = clientFor(values.transport, values.target);
  try {
    const created = await croupier.create(gameOptions(values.game), Number(values.seats), { seed });
    const credentials = created.seatCredentials;
    const watcherCredential = credentials[watchSeat];

    // The watch's first message is the current view: wait for it, so no move is missed.
    const stream = croupier.watch(created.name, watcherCredential);
    const first = await stream.next();
    if (first.done) {
      throw new Error("WatchGame ended before its first message");
    }
    const watched: WatchGameResponse[] = [first.value];
    const watching = (async () => {
      for await (const message of stream) {
        watched.push(message);
      }
    })();

    let view: GameView | undefined = created.view;
    let moves = 0;
    let lastMove: Move | undefined;
    let lastSeat = 0;
    const refusals: string[] = [];
    while (view !== undefined && view.result === undefined) {
      if (moves >= maxMoves) {
        throw new Error(`no result after ${moves} moves`);
      }
      const seat = choose(random, view.activeSeats);
      const credential = credentials[seat];
      if (credential === undefined) {
        throw new Error(`active seat ${seat} has no credential`);
      }
      const legal = await croupier.listLegalMoves(created.name, credential);
      if (legal.seat !== seat) {
        throw new Error(`ListLegalMoves answered for seat ${legal.seat}, not ${seat}`);
      }
      const move = choose(random, legal.moves);
      const applied = await croupier.apply(created.name, credential, move, { etag: legal.etag });
      view = applied.view;
      moves += 1;
      lastMove = move;
      lastSeat = seat;
    }
    if (view === undefined) {
      throw new Error("ApplyMove returned no view");
    }

    // The last move again: the game is over, so the rules refuse it, with a reason.
    try {
      if (lastMove !== undefined) {
        await croupier.apply(created.name, credentials[lastSeat] ?? "", lastMove);
        refusals.push("accepted");
      }
    } catch (error) {
      if (error instanceof CroupierError) {
        refusals.push(`${error.codeName} ${error.reason}${error.ruleId ? ` ${error.ruleId}` : ""}`);
      } else {
        throw error;
      }
    }

    const timer = setTimeout(() => {
      console.error("the watch did not end within 15 s of the game's end");
      process.exit(3);
    }, 15_000);
    await watching;
    clearTimeout(timer);

    // Resume from a view in the middle, as a client that lost its stream there would: every
    // move after it comes again, the same messages, and the stream ends with the game.
    const middle = watched[Math.floor(watched.length / 2)]?.view?.etag ?? "";
    const resumed: WatchGameResponse[] = [];
    for await (const message of croupier.watch(created.name, watcherCredential, { sinceEtag: middle })) {
      resumed.push(message);
    }
    const resumedSame = resumed.every((message) => {
      const original = watched.find((m) => m.view?.etag === message.view?.etag);
      return original !== undefined && equals(WatchGameResponseSchema, original, message);
    });

    const last = watched[watched.length - 1]?.view;
    const spectator = await croupier.get(created.name);
    console.log(
      JSON.stringify({
        game: values.game,
        transport: values.transport,
        name: created.name,
        moves,
        moveCount: Number(view.moveCount),
        resultSeats: view.result?.seats.length ?? 0,
        activeSeatsAtEnd: view.activeSeats.length,
        spectatorMoveCount: Number(spectator.moveCount),
        spectatorHasResult: spectator.result !== undefined,
        watchSeat,
        watchMessages: watched.length,
        watchMoveCounts: watched.map((m) => Number(m.view?.moveCount ?? -1)),
        watchViewerSeat: last?.viewerSeat ?? null,
        watchSawResult: last?.result !== undefined,
        watchFinalMoveCount: Number(last?.moveCount ?? -1),
        refusalAfterEnd: refusals[0] ?? null,
        resumedFromMoveCount: Number(watched[Math.floor(watched.length / 2)]?.view?.moveCount ?? -1),
        resumedMoveCounts: resumed.map((m) => Number(m.view?.moveCount ?? -1)),
        resumedSameAsLive: resumedSame,
      }),
    );
  } finally {
    croupier.close();
  }
}

main().catch((error: unknown) => {
  if (error instanceof CroupierError) {
    console.error(`CroupierError ${error.message} (rule ${error.ruleId ?? "-"})`);
  } else {
    console.error(error);
  }
  process.exit(1);
});
