// A thin typed wrapper of GameService: one method per RPC, the seat credential as
// `authorization: Bearer` metadata, every error as a CroupierError. It takes any Connect
// transport, so the same class serves Node (gRPC over HTTP/2, see node.ts) and browsers
// (gRPC-Web or the Connect protocol, see web.ts).

import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, createClient, type CallOptions, type Client, type Transport } from "@connectrpc/connect";
import {
  CreateGameRequestSchema,
  GameService,
  MoveSchema,
  type ApplyMoveResponse,
  type CreateGameRequest,
  type CreateGameResponse,
  type GameRecord,
  type GameUpdate,
  type GameView,
  type JoinGameResponse,
  type ListGamesResponse,
  type ListLegalMovesResponse,
  type Move,
  type MoveOutcome,
  type PlayGameRequestSchema,
  type PlayGameResponse,
  type WatchGameResponse,
} from "./gen/croupier/v1/game_service_pb.js";
import { CroupierError } from "./errors.js";
import { DEFAULT_RETRY, newRequestId, withRetry, type RetryPolicy } from "./retry.js";

/** The game to create: the `options` oneof of CreateGameRequest, e.g.
 * `{ case: "vampireQueen", value: create(VampireQueenOptionsSchema, { rounds: 3 }) }`, or
 * `gameOptions("vampire_queen")`. */
export type GameOptions = CreateGameRequest["options"];

/** A move: a `Move`, or its init shape, e.g. `{ game: { case: "vampireQueen", value: ... } }`. */
export type MoveInit = Move | MessageInitShape<typeof MoveSchema>;

/** Every game id the protos define, read from the CreateGameRequest oneof (snake_case, as the
 * server's `GameView.gameType`). */
export function gameTypes(): string[] {
  return CreateGameRequestSchema.fields.filter((f) => f.oneof?.name === "options").map((f) => f.name);
}

/** The options of a game by its id (`"vampire_queen"`), defaults unless `init` sets fields. */
export function gameOptions(gameType: string, init: Record<string, unknown> = {}): GameOptions {
  const field = CreateGameRequestSchema.fields.find(
    (f) => f.oneof?.name === "options" && f.name === gameType,
  );
  if (field === undefined || field.message === undefined) {
    throw new Error(`unknown game type ${JSON.stringify(gameType)}: one of ${gameTypes().join(", ")}`);
  }
  return { case: field.localName, value: create(field.message, init) } as GameOptions;
}

export interface CroupierOptions {
  /** Deadline of each unary call in milliseconds (default 10 000; 0: none). Watch has none. */
  timeoutMs?: number;
  /** Called by close(), e.g. to end the Node transport's HTTP/2 session. */
  onClose?: () => void;
  /** Retries of UNAVAILABLE (src/retry.ts); `{ maxAttempts: 1 }`: none. Each try has its own
   * `timeoutMs`. */
  retry?: RetryPolicy;
  /** Sent with CreateGame, ListGames, ReissueCredential and GetGameRecord: servers with
   * operator keys create games only for their holders, and list every game, reissue
   * credentials and give any record only to them. */
  operatorKey?: string;
}

export interface CreateOptions {
  displayNames?: string[];
  seed?: bigint | number;
  /** Your app's user ids, one per seat (empty for none). Not secrets. */
  playerIds?: string[];
  /** Leave every seat without a player id open for JoinGame (the response's `joinCode`). */
  openSeats?: boolean;
  /** List the game in the lobby (ListGames without the operator key) while seats are open. */
  public?: boolean;
  /** One per seat: `random` or `strong` for a seat the server plays itself, empty for a human
   *  seat (a bot seat gets no credential). Every seat a bot needs the operator key. */
  botLevels?: string[];
  /** A turn clock: seconds per decision (1 to 86400); when a seat's deadline passes, the
   *  server's strong bot moves for it. The views list the deadlines. */
  clock?: { secondsPerDecision: number; timeBankSeconds?: number };
  /** Retry-safe id, a UUID (e.g. `crypto.randomUUID()`): a retry with it returns the first
   *  response, seat credentials included, to this caller only. Anything else: INVALID_ARGUMENT. */
  requestId?: string;
}

export interface ApplyOptions {
  /** Apply only if the game is still at this etag (else ABORTED / ETAG_MISMATCH). */
  etag?: string;
  /** Retry-safe id, a UUID (e.g. `crypto.randomUUID()`), the seat's own: a retry returns the
   *  first response and applies nothing twice. Anything else: INVALID_ARGUMENT. */
  requestId?: string;
}

export interface WatchOptions {
  /** Ends the stream when aborted. */
  signal?: AbortSignal;
  /**
   * The etag of the last view received on an earlier stream: the stream then starts with every
   * move made after it instead of the view now, so a client that reconnects misses nothing
   * (with nothing missed, it starts with the view now, without events, at once).
   * Resume that way after WATCH_TOO_SLOW (RESOURCE_EXHAUSTED) or UNAVAILABLE.
   */
  sinceEtag?: string;
}

export interface SessionOptions {
  /** The etag of the last view received on an earlier session or watch: the session then
   * starts with every update made after it instead of the view now, so nothing is missed
   * (with nothing missed, it starts with the view now). */
  sinceEtag?: string;
  /** Ends the session when aborted. */
  signal?: AbortSignal;
}

function bearer(credential: string | undefined): Record<string, string> {
  return credential ? { authorization: `Bearer ${credential}` } : {};
}

export class Croupier {
  /** The generated Connect client, for anything the wrapper does not cover. */
  readonly service: Client<typeof GameService>;
  private readonly timeoutMs: number;
  private readonly onClose: (() => void) | undefined;
  private readonly retry: Required<RetryPolicy>;
  private readonly operatorKey: string | undefined;

  constructor(transport: Transport, options: CroupierOptions = {}) {
    this.service = createClient(GameService, transport);
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.onClose = options.onClose;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.operatorKey = options.operatorKey;
  }

  private options(credential: string | undefined, signal?: AbortSignal): CallOptions {
    return {
      headers: bearer(credential),
      ...(this.timeoutMs > 0 ? { timeoutMs: this.timeoutMs } : {}),
      ...(signal ? { signal } : {}),
    };
  }

  private call<T>(run: () => Promise<T>): Promise<T> {
    return withRetry(run, this.retry);
  }

  /** Creates a game; the response holds one secret credential per seat. */
  create(options: GameOptions, seats: number, extra: CreateOptions = {}): Promise<CreateGameResponse> {
    return this.call(() =>
      this.service.createGame(
        {
          options,
          seats,
          displayNames: extra.displayNames ?? [],
          requestId: extra.requestId ?? "",
          playerIds: extra.playerIds ?? [],
          openSeats: extra.openSeats ?? false,
          public: extra.public ?? false,
          botLevels: extra.botLevels ?? [],
          ...(extra.clock !== undefined
            ? { clock: { secondsPerDecision: extra.clock.secondsPerDecision, timeBankSeconds: extra.clock.timeBankSeconds ?? 0 } }
            : {}),
          ...(extra.seed !== undefined ? { seed: BigInt(extra.seed) } : {}),
        },
        this.options(this.operatorKey),
      ),
    );
  }

  /** The rematch of a finished game, made once (later calls return the same one): each seat
   * plays it with its credential of `name`. `credential`: a seat's; else the operator key. */
  rematch(name: string, credential?: string): Promise<CreateGameResponse> {
    return this.call(() =>
      this.service.createGame({ rematchOf: name }, this.options(credential ?? this.operatorKey)),
    );
  }

  /** Claims an open seat with the game's join code: the seat and its secret credential.
   * Always sent with a request id (a fresh UUID unless `requestId` is given): a retry after a
   * lost answer gets the same seat and credential, and claims no second seat. */
  join(
    name: string,
    joinCode: string,
    extra: { playerId?: string; displayName?: string; requestId?: string } = {},
  ): Promise<JoinGameResponse> {
    const requestId = extra.requestId || newRequestId(); // one id for every attempt
    return this.call(() =>
      this.service.joinGame(
        { name, joinCode, playerId: extra.playerId ?? "", displayName: extra.displayName ?? "", requestId },
        this.options(undefined),
      ),
    );
  }

  /** Frees the credential's seat before the first move; the public view after it. */
  async leave(name: string, credential: string): Promise<GameView | undefined> {
    return (await this.call(() => this.service.leaveGame({ name }, this.options(credential)))).view;
  }

  /** One page of games, newest first: every game with the operator key, else the lobby (public
   * games with open seats). `filter`, e.g. `status = waiting AND game_type = one_card`. */
  listGames(extra: { filter?: string; pageSize?: number; pageToken?: string } = {}): Promise<ListGamesResponse> {
    return this.call(() =>
      this.service.listGames(
        { filter: extra.filter ?? "", pageSize: extra.pageSize ?? 0, pageToken: extra.pageToken ?? "" },
        this.options(this.operatorKey),
      ),
    );
  }

  /** A new credential for a seat (operator key only); the old one is refused from then on. */
  async reissue(name: string, seat: number): Promise<string> {
    const response = await this.call(() =>
      this.service.reissueCredential({ name, seat }, this.options(this.operatorKey)),
    );
    return response.seatCredential;
  }

  /** The record of a finished game, to one of its seats (`credential`) or the operator. */
  async record(name: string, credential?: string): Promise<GameRecord> {
    const response = await this.call(() =>
      this.service.getGameRecord({ name }, this.options(credential ?? this.operatorKey)),
    );
    if (response.record === undefined) {
      throw new CroupierError(Code.Unknown, "EMPTY_RESPONSE", "GetGameRecord returned no record");
    }
    return response.record;
  }

  /** The credential's seat view, or the public view without a credential. */
  async get(name: string, credential?: string): Promise<GameView> {
    const response = await this.call(() => this.service.getGame({ name }, this.options(credential)));
    if (response.view === undefined) {
      throw new CroupierError(Code.Unknown, "EMPTY_RESPONSE", "GetGame returned no view");
    }
    return response.view;
  }

  /** Every move the credential's seat may make now (empty when it may not act). */
  async legalMoves(name: string, credential: string): Promise<Move[]> {
    return (await this.listLegalMoves(name, credential)).moves;
  }

  /** ListLegalMoves' whole response: the moves, the etag they were computed for, the seat. */
  listLegalMoves(name: string, credential: string): Promise<ListLegalMovesResponse> {
    return this.call(() => this.service.listLegalMoves({ name }, this.options(credential)));
  }

  /** Applies one move for the credential's seat. Without `requestId` a fresh UUID is sent: a
   * try whose answer was lost may have been applied, and the retry must then get that first
   * response back rather than apply the move twice. Give one to retry the move yourself. */
  apply(name: string, credential: string, move: MoveInit, extra: ApplyOptions = {}): Promise<ApplyMoveResponse> {
    return this.call(() =>
      this.service.applyMove(
        { name, move, etag: extra.etag ?? "", requestId: extra.requestId || newRequestId() },
        this.options(credential),
      ),
    );
  }

  /**
   * The view now, then after every move, until the game is over (or the signal aborts). The
   * third argument is an AbortSignal or WatchOptions (with `sinceEtag` to resume). Opening the
   * stream is retried like a call; once a message has come, an error ends it.
   */
  async *watch(
    name: string,
    credential?: string,
    signalOrOptions?: AbortSignal | WatchOptions,
  ): AsyncGenerator<WatchGameResponse> {
    const extra: WatchOptions =
      signalOrOptions instanceof AbortSignal ? { signal: signalOrOptions } : (signalOrOptions ?? {});
    const signal = extra.signal;
    const options: CallOptions = { headers: bearer(credential), ...(signal ? { signal } : {}) };
    const request = { name, sinceEtag: extra.sinceEtag ?? "" };
    const open = async (): Promise<[AsyncIterator<WatchGameResponse>, IteratorResult<WatchGameResponse>]> => {
      const stream = this.service.watchGame(request, options)[Symbol.asyncIterator]();
      return [stream, await stream.next()];
    };
    const [stream, first] = await withRetry(open, this.retry, signal);
    try {
      for (let next = first; !next.done; next = await stream.next()) {
        yield next.value;
      }
    } catch (error) {
      throw CroupierError.from(error);
    } finally {
      await stream.return?.();
    }
  }

  /**
   * The seat's session of game `name` (PlayGame): one stream that brings the seat's view after
   * every move of any seat, each with the seat's legal moves, and takes its moves. It needs a
   * transport with bidirectional streams: gRPC over HTTP/2 (`connect` of node.ts); browsers
   * have none (there: `watch`, with `apply`). Errors of the stream (a game that does not exist,
   * a refused credential) come from the first read or move.
   */
  session(name: string, credential: string, options: SessionOptions = {}): Session {
    return new Session(
      (requests, signal) => this.service.playGame(requests, { headers: bearer(credential), signal }),
      name,
      options,
    );
  }

  /** Releases the transport's connection where it has one (Node). */
  close(): void {
    this.onClose?.();
  }
}

/** An applied move of a session. */
export interface MoveResult {
  /** The game's etag after the move. */
  etag: string;
  requestId: string;
  /** The update the move made, when it came with the move's outcome, as it usually does;
   * undefined when updates of other seats' moves were due first (it then follows among the
   * session's updates), or when the request id had been applied before. Either way the update
   * is also among the session's updates, in its place. */
  update: GameUpdate | undefined;
}

type PlayGameRequestInit = MessageInitShape<typeof PlayGameRequestSchema>;

/** The requests of a session: what `move` puts in, read by Connect as the stream's input. */
class Requests implements AsyncIterable<PlayGameRequestInit> {
  private readonly items: (PlayGameRequestInit | null)[] = [];
  private wake: (() => void) | undefined;

  /** `null` closes this side of the stream. */
  push(item: PlayGameRequestInit | null): void {
    this.items.push(item);
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<PlayGameRequestInit> {
    for (;;) {
      const item = this.items.shift();
      if (item === null) {
        return;
      }
      if (item === undefined) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      yield item;
    }
  }
}

/**
 * A seat's PlayGame session (`Croupier.session`): its updates in order, its moves answered.
 *
 *     const session = croupier.session(game.name, credential);
 *     for await (const update of session) {   // the view now, then after every move
 *       const moves = update.view?.legalMoves ?? [];
 *       if (moves.length && session.pending === 0) await session.move(moves[0]!);
 *     }
 *
 * The stream is read as it comes, so the server never waits for this seat however long the
 * caller takes between reads (no WATCH_TOO_SLOW); the updates wait here, `pending` of them. Act
 * on the newest (`pending` 0): an older update's legal moves may be refused now. Iteration ends
 * after the update that finishes the game (or once the session is closed); a session that ends
 * with an error throws it as a CroupierError after the updates that came before it.
 */
export class Session implements AsyncIterable<GameUpdate> {
  /** The view of the last update read (undefined before the first). */
  view: GameView | undefined;
  private readonly updates: GameUpdate[] = [];
  // The moves sent and not yet answered, in the order sent, which is the order of their outcomes.
  private readonly unanswered: {
    requestId: string;
    resolve: (result: MoveResult) => void;
    reject: (error: CroupierError) => void;
  }[] = [];
  private readonly requests = new Requests();
  private readonly control = new AbortController();
  private readonly waiting: (() => void)[] = [];
  private readonly reading: Promise<void>;
  private ended = false;
  private closing = false;
  private error: CroupierError | undefined;

  constructor(
    open: (requests: AsyncIterable<PlayGameRequestInit>, signal: AbortSignal) => AsyncIterable<PlayGameResponse>,
    readonly name: string,
    options: SessionOptions = {},
  ) {
    const { signal } = options;
    if (signal?.aborted) {
      this.control.abort(signal.reason);
    }
    signal?.addEventListener("abort", () => this.control.abort(signal.reason), { once: true });
    this.requests.push({ kind: { case: "start", value: { name, sinceEtag: options.sinceEtag ?? "" } } });
    this.reading = this.read(open(this.requests, this.control.signal));
  }

  /** Updates received and not yet read. */
  get pending(): number {
    return this.updates.length;
  }

  /** The next update, or undefined once the session is over and every update has been read. */
  async nextUpdate(): Promise<GameUpdate | undefined> {
    while (this.updates.length === 0 && !this.ended) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    const update = this.updates.shift();
    if (update === undefined) {
      if (this.error !== undefined) {
        throw this.error;
      }
      return undefined;
    }
    this.view = update.view;
    return update;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<GameUpdate> {
    for (let update = await this.nextUpdate(); update !== undefined; update = await this.nextUpdate()) {
      yield update;
    }
  }

  /**
   * Sends `move` and resolves with its outcome: the move applied, or a CroupierError as `apply`
   * throws it (ILLEGAL_MOVE with the rule id, ETAG_MISMATCH with `etag`, ...). Always sent with
   * a request id (a fresh UUID unless given): sent again with it, on this session or another,
   * after an outcome that did not come, the move is applied once. Moves may be sent without
   * waiting for the outcomes of earlier ones.
   */
  move(move: MoveInit, extra: ApplyOptions = {}): Promise<MoveResult> {
    const requestId = extra.requestId || newRequestId();
    if (this.ended || this.closing) {
      return Promise.reject(this.error ?? endedBefore(requestId));
    }
    return new Promise<MoveResult>((resolve, reject) => {
      this.unanswered.push({ requestId, resolve, reject });
      this.requests.push({ kind: { case: "move", value: { move, etag: extra.etag ?? "", requestId } } });
    });
  }

  /** Ends the session: the server answers the moves already sent, then the stream ends
   * (cancelled if that takes longer than `timeoutMs`). Updates not yet read are dropped. */
  async close(timeoutMs = 10_000): Promise<void> {
    this.closing = true;
    this.requests.push(null);
    const timer = setTimeout(() => this.control.abort(), timeoutMs);
    try {
      await this.reading;
    } finally {
      clearTimeout(timer);
    }
    this.updates.length = 0;
  }

  private async read(responses: AsyncIterable<PlayGameResponse>): Promise<void> {
    try {
      for await (const response of responses) {
        if (response.update !== undefined) {
          // Before the outcome is answered: a caller back from `move` finds the update its
          // move made among the pending ones.
          this.updates.push(response.update);
          this.wakeReaders();
        }
        if (response.outcome !== undefined) {
          this.answer(response.outcome, response.update);
        }
      }
    } catch (thrown) {
      if (!(this.closing && this.control.signal.aborted)) {
        this.error = CroupierError.from(thrown);
      }
    } finally {
      this.ended = true;
      this.requests.push(null);
      for (const { requestId, reject } of this.unanswered.splice(0)) {
        reject(this.error ?? endedBefore(requestId));
      }
      this.wakeReaders();
    }
  }

  private answer(outcome: MoveOutcome, update: GameUpdate | undefined): void {
    const move = this.unanswered[0];
    if (move === undefined || move.requestId !== outcome.requestId) {
      this.control.abort();
      throw new CroupierError(
        Code.Internal,
        "INTERNAL",
        `the session answered move ${JSON.stringify(outcome.requestId)}, not ${JSON.stringify(move?.requestId ?? "")}`,
      );
    }
    this.unanswered.shift();
    if (outcome.status !== undefined && outcome.status.code !== 0) {
      move.reject(CroupierError.fromStatus(outcome.status));
    } else {
      move.resolve({ etag: outcome.etag, requestId: outcome.requestId, update });
    }
  }

  private wakeReaders(): void {
    for (const wake of this.waiting.splice(0)) {
      wake();
    }
  }
}

function endedBefore(requestId: string): CroupierError {
  return new CroupierError(Code.Canceled, "CANCELLED", `the session ended before the outcome of move ${requestId}`);
}
