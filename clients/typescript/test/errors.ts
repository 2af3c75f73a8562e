// Provokes each kind of refusal through the TypeScript client and prints, as JSON, what the
// CroupierError carried: code, reason, rule id, metadata, field violations. The Python test
// (tests/e2e/test_typescript_client.py) checks them.
//
//   npx tsx test/errors.ts --target 127.0.0.1:50051 --game vampire_queen [--transport grpc]

import { parseArgs } from "node:util";
import { CroupierError, gameOptions, type GameView } from "../src/index.js";
import { choose, clientFor, generator } from "../examples/cli.js";

interface Seen {
  code: string;
  reason: string;
  ruleId: string | null;
  metadata: Record<string, string>;
  fields: string[];
  message: string;
}

async function refusal(run: () => Promise<unknown>): Promise<Seen | string> {
  try {
    await run();
    return "no error";
  } catch (error) {
    if (!(error instanceof CroupierError)) {
      return `not a CroupierError: ${String(error)}`;
    }
    return {
      code: error.codeName,
      reason: error.reason,
      ruleId: error.ruleId ?? null,
      metadata: { ...error.metadata },
      fields: error.fieldViolations.map((v) => v.field),
      message: error.rawMessage,
    };
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      target: { type: "string" },
      transport: { type: "string", default: "grpc" },
      game: { type: "string", default: "vampire_queen" },
      seats: { type: "string", default: "3" },
      seed: { type: "string", default: "3" },
    },
  });
  if (!values.target) {
    throw new Error("usage: errors.ts --target HOST:PORT [--transport grpc|grpc-web|connect]");
  }
  const random = generator(Number(values.seed));
  const croupier = clientFor(values.transport, values.target);
  try {
    const game = await croupier.create(gameOptions(values.game), Number(values.seats), {
      seed: Number(values.seed),
    });
    const seats = game.seatCredentials;
    const seen: Record<string, Seen | string> = {};

    seen.credentialMissing = await refusal(() => croupier.legalMoves(game.name, ""));
    seen.credentialMalformed = await refusal(() => croupier.get(game.name, "not-a-credential"));
    seen.credentialRejected = await refusal(() =>
      croupier.get(game.name, "cs_someoneElsesCredentialForAnotherGame00000"),
    );
    seen.invalidName = await refusal(() => croupier.get("bogus"));
    seen.notFound = await refusal(() => croupier.get("games/000000000000000000000000"));
    seen.badSeats = await refusal(() => croupier.create(gameOptions(values.game ?? ""), 0));

    // Play until some seat may not act, then make the move of an active seat with its
    // credential: the rules refuse it, naming the rule.
    let view: GameView | undefined = game.view;
    for (let i = 0; view !== undefined && view.result === undefined && i < 500; i++) {
      const active = view.activeSeats;
      const idle = seats.findIndex((_, seat) => !active.includes(seat));
      const seat = choose(random, active);
      const legal = await croupier.listLegalMoves(game.name, seats[seat] ?? "");
      const move = choose(random, legal.moves);
      if (idle >= 0 && seen.illegalMove === undefined) {
        seen.illegalMove = await refusal(() => croupier.apply(game.name, seats[idle] ?? "", move));
      }
      const applied = await croupier.apply(game.name, seats[seat] ?? "", move, { etag: legal.etag });
      if (seen.staleEtag === undefined && applied.view !== undefined && applied.view.result === undefined) {
        // legal.etag is now one move old.
        const next = choose(random, applied.view.activeSeats);
        const nextMoves = await croupier.legalMoves(game.name, seats[next] ?? "");
        seen.staleEtag = await refusal(() =>
          croupier.apply(game.name, seats[next] ?? "", choose(random, nextMoves), { etag: legal.etag }),
        );
      }
      view = applied.view;
      if (seen.illegalMove !== undefined && seen.staleEtag !== undefined) {
        break;
      }
    }
    console.log(JSON.stringify(seen));
  } finally {
    croupier.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
