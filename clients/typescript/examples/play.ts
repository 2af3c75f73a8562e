// Plays one complete game through the TypeScript client with random legal moves, one seat
// watching through WatchGame, and prints a JSON summary on stdout.
//
//   npx tsx examples/play.ts --target 127.0.0.1:50051 --game vampire_queen --seats 3 --seed 7
//   npx tsx examples/play.ts --transport connect --target http://127.0.0.1:8080 --game trinity
//
// Each move: a seat drawn uniformly among the view's active seats (so out-of-turn and
// simultaneous moves are played too), then a move drawn uniformly among that seat's legal
// moves, applied with the etag the moves were computed for. Over gRPC each seat plays through
// a PlayGame session of its own, its legal moves those of its view; the browser transports
// (`--transport grpc-web|connect`: no bidirectional streams) and `--unary` call ListLegalMoves
// and ApplyMove instead. The generator is seeded, so the same seed plays the same game either
// way.

import { parseArgs } from "node:util";
import { equals } from "@bufbuild/protobuf";
import {
  CroupierError,
  gameOptions,
  type GameUpdate,
  type GameView,
  type Move,
  type Session,
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
      unary: { type: "boolean", default: false },
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
  const bySessions = values.transport === "grpc" && !values.unary;
  let sessions: Session[] = [];
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

    sessions = bySessions ? credentials.map((credential) => croupier.session(created.name, credential)) : [];
    let view: GameView | undefined = created.view;
    let moves = 0;
    let lastMove: Move | undefined;
    let lastSeat = 0;
    const refusals: string[] = [];
    let sessionRefusal: string | null = null;
    while (view !== undefined && view.result === undefined) {
      if (moves >= maxMoves) {
        throw new Error(`no result after ${moves} moves`);
      }
      const seat = choose(random, view.activeSeats);
      const credential = credentials[seat];
      const session = sessions[seat];
      if (credential === undefined) {
        throw new Error(`active seat ${seat} has no credential`);
      }
      let move: Move;
      if (session !== undefined) {
        const own = await caughtUp(session, view.moveCount);
        move = choose(random, own.legalMoves);
        // Once, the same move from a seat that may not act: refused on that seat's session, which
        // goes on (no draw of the generator: the game stays the seed's).
        const idle = sessions.find((_, other) => !view?.activeSeats.includes(other));
        if (sessionRefusal === null && idle !== undefined) {
          sessionRefusal = await refusal(() => idle.move(move));
        }
        const moved = await session.move(move, { etag: own.etag });
        view = (moved.update ?? (await updateAt(session, moved.etag))).view;
      } else {
        const legal = await croupier.listLegalMoves(created.name, credential);
        if (legal.seat !== seat) {
          throw new Error(`ListLegalMoves answered for seat ${legal.seat}, not ${seat}`);
        }
        move = choose(random, legal.moves);
        const applied = await croupier.apply(created.name, credential, move, { etag: legal.etag });
        view = applied.view;
      }
      moves += 1;
      lastMove = move;
      lastSeat = seat;
    }
    if (view === undefined) {
      throw new Error("a move's answer had no view");
    }
    // Every session ends after the update that finished the game.
    const sessionsSawResult = await Promise.all(
      sessions.map(async (session) => {
        for await (const _ of session) {
          // read to the end
        }
        return session.view?.result !== undefined;
      }),
    );

    // The last move again: the game is over, so the rules refuse it, with a reason.
    if (lastMove !== undefined) {
      const again = lastMove;
      refusals.push(await refusal(() => croupier.apply(created.name, credentials[lastSeat] ?? "", again)));
    }

    const timer = setTimeout(() => {
      console.error("the watch did not end within 60 s of the game's end");
      process.exit(3);
    }, 60_000);
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
        playedThrough: bySessions ? "sessions" : "calls",
        sessionsSawResult,
        sessionRefusal,
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
    await Promise.all(sessions.map((session) => session.close()));
    croupier.close();
  }
}

/** The session's view once it has read the updates up to `moveCount` moves (the newest that
 * has come, if it is further). */
async function caughtUp(session: Session, moveCount: bigint): Promise<GameView> {
  while (session.view === undefined || session.view.moveCount < moveCount || session.pending > 0) {
    if ((await session.nextUpdate()) === undefined) {
      break;
    }
  }
  if (session.view === undefined || session.view.moveCount < moveCount) {
    throw new Error(`${session.name}: the session ended before move ${moveCount}`);
  }
  return session.view;
}

/** The update at `etag`, read from the session: a move's update that did not come with its
 * outcome (updates of other moves were due first). */
async function updateAt(session: Session, etag: string): Promise<GameUpdate> {
  for (let update = await session.nextUpdate(); update !== undefined; update = await session.nextUpdate()) {
    if (update.view?.etag === etag) {
      return update;
    }
  }
  throw new Error(`${session.name}: the session ended before the update at ${etag}`);
}

/** `"CODE REASON RULE"` of the refusal of `call`, or `"accepted"`. */
async function refusal(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return "accepted";
  } catch (error) {
    if (error instanceof CroupierError) {
      return `${error.codeName} ${error.reason}${error.ruleId ? ` ${error.ruleId}` : ""}`;
    }
    throw error;
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
