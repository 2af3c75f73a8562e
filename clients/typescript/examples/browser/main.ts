// The example page's script, bundled by `npm run build:browser` into dist/main.js. It uses
// the same typed wrapper as Node, over a browser transport (connect-web).
//
// Query parameters prefill the form: ?gateway=http://host:port&protocol=connect
// &name=games/...&credential=cs_...

import { toJsonString } from "@bufbuild/protobuf";
import { CroupierError, gameTypes, gameOptions, MoveSchema, type Move } from "../../src/index.js";
import { connectWeb, type WebProtocol } from "../../src/web.js";

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (found === null) {
    throw new Error(`#${id} is missing`);
  }
  return found as T;
}

const gateway = element<HTMLInputElement>("gateway");
const protocol = element<HTMLSelectElement>("protocol");
const gameType = element<HTMLSelectElement>("game-type");
const seats = element<HTMLInputElement>("seats");
const name = element<HTMLInputElement>("name");
const credential = element<HTMLInputElement>("credential");
const moves = element<HTMLOListElement>("moves");
const status = element<HTMLDivElement>("status");

const query = new URLSearchParams(location.search);
gateway.value = query.get("gateway") ?? gateway.value;
protocol.value = query.get("protocol") ?? protocol.value;
name.value = query.get("name") ?? "";
credential.value = query.get("credential") ?? "";
for (const id of gameTypes()) {
  gameType.add(new Option(id, id));
}

function client() {
  return connectWeb(gateway.value, protocol.value as WebProtocol);
}

function show(text: string, error = false): void {
  status.textContent = text;
  status.className = error ? "error" : "";
}

function showError(error: unknown): void {
  if (error instanceof CroupierError) {
    const rule = error.ruleId ? ` (rule ${error.ruleId})` : "";
    show(`refused: ${error.codeName} ${error.reason}${rule}: ${error.rawMessage}`, true);
  } else {
    show(`error: ${String(error)}`, true);
  }
}

element<HTMLButtonElement>("create").addEventListener("click", async () => {
  try {
    const game = await client().create(gameOptions(gameType.value), Number(seats.value));
    name.value = game.name;
    credential.value = game.seatCredentials[0] ?? "";
    show(`created ${game.name}; using seat 0's credential`);
  } catch (error) {
    showError(error);
  }
});

element<HTMLButtonElement>("list").addEventListener("click", async () => {
  moves.replaceChildren();
  try {
    const legal = await client().listLegalMoves(name.value, credential.value);
    for (const [index, move] of legal.moves.entries()) {
      const item = document.createElement("li");
      const apply = document.createElement("button");
      apply.textContent = "Apply";
      apply.dataset.index = String(index);
      apply.addEventListener("click", () => void applyMove(move, legal.etag));
      item.append(apply, " ", toJsonString(MoveSchema, move));
      moves.append(item);
    }
    show(`seat ${legal.seat}: ${legal.moves.length} legal move(s) at etag ${legal.etag}`);
  } catch (error) {
    showError(error);
  }
});

async function applyMove(move: Move, etag: string): Promise<void> {
  try {
    const response = await client().apply(name.value, credential.value, move, { etag });
    moves.replaceChildren();
    const view = response.view;
    show(
      `applied: move_count=${view?.moveCount ?? "?"} etag=${response.etag}` +
        ` events=${response.events.length} active_seats=[${view?.activeSeats.join(",") ?? ""}]`,
    );
  } catch (error) {
    showError(error);
  }
}
