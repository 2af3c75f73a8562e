// The games the table draws: one line per game, its game type (engines/croupier/engines/registry.py) as the
// name of its module in games/. A game without a line here is still played, drawn plainly
// (games.ts, `plain`). See docs/api.md, "Adding a game".

export { default as whats_your_name } from "./games/whats_your_name.js";
export { default as one_card } from "./games/one_card.js";
export { default as pig_mau_mau } from "./games/pig_mau_mau.js";
export { default as vampire_queen } from "./games/vampire_queen.js";
export { default as trinity } from "./games/trinity.js";
