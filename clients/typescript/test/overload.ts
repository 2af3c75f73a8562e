// The TypeScript client against a server with no room for the call (tests/e2e): it waits for
// a line on stdin (the Python test fills the server's only slot in between), then makes the
// call, which the server first refuses with UNAVAILABLE / OVERLOADED and the client retries
// after the RetryInfo delay. Prints, as JSON, what the call returned.
//
//   npx tsx test/overload.ts --target 127.0.0.1:50051 --name games/… --mode apply --credential …
//   npx tsx test/overload.ts --target 127.0.0.1:50051 --name games/… --mode watch
//   npx tsx test/overload.ts --target 127.0.0.1:50051 --name games/… --mode join --code jc_…
// (join also serves the test of a JoinGame whose first answer is lost: the client sends it
// again with the same request id.)

import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { CroupierError } from "../src/index.js";
import { connect } from "../src/node.js";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      target: { type: "string" },
      name: { type: "string" },
      mode: { type: "string", default: "apply" },
      credential: { type: "string", default: "" },
      code: { type: "string", default: "" },
    },
  });
  if (!values.target || !values.name) {
    throw new Error("usage: overload.ts --target HOST:PORT --name games/… --mode apply|watch|join");
  }
  const name = values.name;
  const croupier = connect(values.target, { timeoutMs: 30_000 });
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  try {
    const moves = values.mode === "apply" ? await croupier.legalMoves(name, values.credential) : [];
    console.log(JSON.stringify({ ready: true }));
    await lines.next(); // "go": the server's slot is now held
    if (values.mode === "apply") {
      const move = moves[0];
      if (move === undefined) {
        throw new Error("no legal move");
      }
      const applied = await croupier.apply(name, values.credential, move);
      console.log(JSON.stringify({ etag: applied.etag, moveCount: Number(applied.view?.moveCount ?? -1) }));
    } else if (values.mode === "join") {
      const joined = await croupier.join(name, values.code, { playerId: "ts-joiner" });
      console.log(JSON.stringify({ seat: joined.seat }));
    } else {
      for await (const message of croupier.watch(name)) {
        console.log(JSON.stringify({ moveCount: Number(message.view?.moveCount ?? -1) }));
        break;
      }
    }
  } catch (error) {
    const refused = CroupierError.from(error);
    console.log(JSON.stringify({ error: `${refused.codeName} ${refused.reason}`, message: refused.rawMessage }));
  } finally {
    croupier.close();
    process.stdin.destroy();
  }
}

await main();
