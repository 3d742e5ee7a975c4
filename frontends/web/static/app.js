// The page of `play --web` (docs/web.md): draws the game the JSON API returns and sends the
// user's clicks back. No framework, no build step, nothing fetched from elsewhere.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const COLORS = { 0: "var(--x)", 1: "var(--o)" };
const MAX_TABLE_MOVES = 8;  // columns of the search table
const BUDGETS = [0, 10, 25, 50, 100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 100000];

let catalogue = null; // GET /api/games: every game served, with its model and opponents
let info = null;      // the entry of catalogue.games for the game now played
let game = null;      // the last answer about our session
let chain = Promise.resolve();  // requests run one after another
let inFlight = null;  // the request now running: "advance", "hint", ...
let stepQueued = false;
let budgets = [0];

const $ = (id) => document.getElementById(id);

function el(tag, attributes = {}, parent = null, ns = SVG) {
  const node = document.createElementNS(ns, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}
const html = (tag, attributes, parent) => el(tag, attributes, parent, "http://www.w3.org/1999/xhtml");

async function request(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = null;
  try { data = await response.json(); } catch (error) { data = { error: `HTTP ${response.status}` }; }
  if (!response.ok) {
    const failure = new Error(data && data.error ? data.error : `HTTP ${response.status}`);
    failure.status = response.status;
    throw failure;
  }
  return data;
}

function storageKey() { return "tabula-rasa-session"; }
const entryOf = (name) => catalogue.games.find((g) => g.game === name);

// Run `task` after every earlier one; errors are shown, never thrown at the user.
function enqueue(task) {
  chain = chain.then(task).catch(showError);
  return chain;
}

function showError(error) {
  $("message").textContent = error && error.message ? error.message : String(error);
  if (error && error.status === 404) {  // the server forgot our session (restart): start a new one
    sessionStorage.removeItem(storageKey());
    // a refused new session (429: this address holds too many) is shown, and the queue goes on
    return createSession({ game: info.game }).catch((failure) => { $("message").textContent = failure.message; });
  }
}

async function call(action, body) {
  inFlight = action;
  render();
  try {
    const answer = await request("POST", `/api/sessions/${game.session}/${action}`, body);
    $("message").textContent = "";
    game = answer;
  } finally {
    inFlight = null;
    render();
  }
}

async function createSession(body) {
  game = await request("POST", "/api/sessions", body || {});
  sessionStorage.setItem(storageKey(), game.session);
  render();
}

// ---------------------------------------------------------------------------------- moves
function humanSeats() { return game ? game.seats.filter((s) => s === "human").length : 0; }
function simulations() { return budgets[Number($("budget").value)] ?? info.simulations; }

function playMove(move) {
  enqueue(async () => {
    if (!game || game.turn !== "human" || inFlight) return;
    const control = game.controls.find((c) => c.move === move);
    if (!control || !control.legal) return;
    await call("move", { move });
  }).then(scheduleStep);
}

// When the model or the opponent is to move, ask the server for its move (one request per move,
// so New game or Undo clicked meanwhile runs between two moves).
function scheduleStep() {
  if (stepQueued || !game || !game.turn || game.turn === "human") return;
  if (humanSeats() === 0 && !$("autoplay").checked) return;
  stepQueued = true;
  const delay = humanSeats() === 0 ? 500 : 0;
  setTimeout(() => {
    enqueue(async () => {
      stepQueued = false;
      if (game.turn && game.turn !== "human") await call("advance", { sims: simulations() });
    }).then(scheduleStep);
  }, delay);
}

function seatsChosen() { return [$("seat-0").value, $("seat-1").value]; }

function newGame(moves) {
  enqueue(async () => {
    const body = { seats: seatsChosen() };
    const opponent = opponentSpec();
    if (opponent !== null) body.opponent = opponent;
    if (moves !== undefined) body.moves = moves;
    await call("new", body);
  }).then(scheduleStep);
}

// ---------------------------------------------------------------------------------- the picker
// The opponent select holds "model" (the game's model, a seat of its own) or the index of one of
// the game's opponent choices; a choice with a setting (depth, simulations) shows its selector.
function chosenOpponent() {
  const value = $("opponent").value;
  return value === "model" || value === "" ? null : info.opponents[Number(value)];
}

function opponentSpec() {
  const choice = chosenOpponent();
  if (choice === null) return null;
  return choice.option === null ? choice.spec : `${choice.kind}:${choice.option}=${$("setting").value}`;
}

function showSetting(value) {
  const choice = chosenOpponent();
  const row = $("setting-row"), setting = $("setting");
  row.hidden = !choice || choice.option === null;
  if (row.hidden) return;
  $("setting-name").textContent = choice.option === "sims" ? "simulations" : choice.option;
  setting.replaceChildren();
  for (const v of choice.values) html("option", { value: v }, setting).textContent = String(v);
  setting.value = String(value !== undefined && choice.values.includes(Number(value)) ? value : choice.default);
}

// The pickers show the session's game and opponent.
function showOpponent() {
  $("game").value = game.game;
  const select = $("opponent");
  if (game.seats.includes("opponent")) {
    const index = info.opponents.findIndex((c) => c.spec === game.opponent
      || (c.option !== null && game.opponent.startsWith(`${c.kind}:${c.option}=`)));
    if (index >= 0 && select.value !== String(index)) select.value = String(index);
    const choice = info.opponents[index];
    if (choice) showSetting(choice.option === null ? undefined : game.opponent.split("=").pop());
  } else if (game.seats.includes("model")) {
    select.value = "model";
    showSetting();
  }
  for (const side of [0, 1]) {
    const item = $(`seat-${side}`).querySelector('option[value="opponent"]');
    if (item) item.textContent = game.opponent || "opponent";
  }
}

// A new opponent takes every seat that is not the human's.
function pickOpponent() {
  showSetting();
  const kind = chosenOpponent() === null ? "model" : "opponent";
  for (const side of [0, 1]) if ($(`seat-${side}`).value !== "human") $(`seat-${side}`).value = kind;
  newGame("");
}

// Another game: the human keeps their side; the other seat is the game's model, or its default
// opponent when it has no model.
function pickGame() {
  const entry = entryOf($("game").value);
  enqueue(async () => {
    const human = seatsChosen().indexOf("human");
    const side = human === -1 ? 0 : human;
    const seats = ["", ""];
    seats[side] = "human";
    seats[1 - side] = entry.model ? "model" : "opponent";
    const body = { game: entry.game, seats };
    if (!entry.model) body.opponent = entry.default_opponent;
    const previous = info;
    info = entry;
    setUpGame();
    try {
      await call("new", body);
    } catch (error) {
      info = previous;
      setUpGame();
      render();
      throw error;
    }
  }).then(scheduleStep);
}

// ---------------------------------------------------------------------------------- drawing
function render() {
  if (!info || !game) return;
  const board = $("board");
  board.replaceChildren();
  board.className = game.hand ? "poker" : game.board ? `${game.board.move_kind}s` : "fallback";
  const search = $("show-analysis").checked ? game.search : null;
  if (game.hand) drawPoker(board, game);
  else if (game.board && game.board.move_kind === "column") drawColumns(board, game, search);
  else if (game.board) drawCells(board, game, search);
  else drawFallback(board, game, search);
  if (game.board) drawButtons(board, game.controls.filter((c) => c.target === null), search);
  if (search && game.board) {
    const legend = html("p", { class: "legend muted" }, board);
    legend.textContent = game.board.move_kind === "column"
      ? "Under each column: grey, the network's prior; dark, the search's visits (the number); green, the move chosen."
      : "Shade and numbers: the search's visits · the network's prior; green, the move chosen.";
  }
  board.dataset.ready = "true";
  board.dataset.ply = String(game.ply);
  board.classList.toggle("wait", game.turn !== "human" || inFlight !== null);
  drawStatus();
  drawDice();
  drawSearch(game.search);
  showOpponent();
  const moves = $("moves");
  if (document.activeElement !== moves) moves.value = game.moves;
  moves.dataset.moves = game.moves;
  $("seat-0").value = game.seats[0];
  $("seat-1").value = game.seats[1];
  $("undo").disabled = !game.can_undo;
  $("hint").disabled = game.result !== null || !info.model;
}

function drawStatus() {
  const status = $("status");
  status.classList.toggle("over", game.result !== null);
  status.dataset.turn = game.turn || "";
  status.dataset.result = game.result ? (game.result.winner === null ? "draw" : info.symbols[game.result.winner]) : "";
  if (game.result) {
    status.textContent = `${game.result.message} ${game.result.text}`;
    return;
  }
  const side = game.to_move;
  const symbol = info.symbols[side];
  const name = game.seat_names[side];
  if (inFlight === "advance") status.textContent = `${capital(name)} (${symbol}) is thinking…`;
  else if (inFlight === "hint") status.textContent = "The model is looking for a hint…";
  else if (game.turn === "human") status.textContent = name === "you" ? `Your move (${symbol}).` : `${symbol} to move (${name}).`;
  else status.textContent = `${capital(name)} (${symbol}) to move.`;
}

// A game with chance: the server rolls the dice whenever a roll is due; show the latest outcome.
function drawDice() {
  const dice = $("dice");
  const roll = game.last_roll;
  dice.hidden = roll === null;
  dice.dataset.outcome = roll ? roll.outcome : "";
  dice.dataset.ply = roll ? String(roll.ply) : "";
  dice.replaceChildren();
  if (!roll) return;
  const who = game.seat_names[roll.player];
  dice.append(`${capital(who)} (${info.symbols[roll.player]}) rolled `);
  html("span", { class: "face" }, dice).textContent = roll.outcome;
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

// Visit share of each move of a search (prior share when it did not search), by move string.
// `share`: of all visits (of the prior without search); `height`, `priorHeight`: over the largest.
function shares(search) {
  const out = new Map();
  if (!search) return out;
  const total = search.moves.reduce((sum, m) => sum + m.visits, 0);
  const share = (m) => (total > 0 ? m.visits / total : m.prior);
  const top = Math.max(...search.moves.map(share), 1e-9);
  const topPrior = Math.max(...search.moves.map((m) => m.prior), 1e-9);
  for (const m of search.moves) {
    out.set(m.move, { ...m, share: share(m), height: share(m) / top, priorHeight: m.prior / topPrior });
  }
  return out;
}

function stone(parent, cx, cy, r, player, kind) {
  if (kind === "disc") {
    el("circle", { cx, cy, r, fill: player === -1 ? "var(--hole)" : COLORS[player] }, parent);
  } else if (player === 0) {
    const d = r * 0.75;
    el("path", { d: `M${cx - d},${cy - d} L${cx + d},${cy + d} M${cx + d},${cy - d} L${cx - d},${cy + d}`,
      stroke: COLORS[0], "stroke-width": r * 0.28, "stroke-linecap": "round" }, parent);
  } else if (player === 1) {
    el("circle", { cx, cy, r: r * 0.72, fill: "none", stroke: COLORS[1], "stroke-width": r * 0.26 }, parent);
  }
}

function drawColumns(container, state, search) {
  const b = state.board;
  const size = 60;
  const barHeight = search ? 64 : 0;
  const width = b.columns * size;
  const height = b.rows * size;
  const svg = el("svg", { viewBox: `0 0 ${width} ${height + barHeight + 4}`, role: "img",
    "aria-label": `${info.game} board` }, container);
  el("rect", { x: 0, y: 0, width, height, rx: 10, fill: "var(--board)" }, svg);
  const winning = new Set(b.winning_cells);
  let lastCell = -1;
  if (state.last_target !== null) {  // the top stone of the last move's column
    for (let row = 0; row < b.rows; row++) {
      const cell = row * b.columns + state.last_target;
      if (b.cells[cell] !== -1) { lastCell = cell; break; }
    }
  }
  for (let row = 0; row < b.rows; row++) {
    for (let col = 0; col < b.columns; col++) {
      const cell = row * b.columns + col;
      const cx = col * size + size / 2, cy = row * size + size / 2;
      stone(svg, cx, cy, size * 0.4, b.cells[cell], "disc");  // the holes too
      if (winning.has(cell)) el("circle", { cx, cy, r: size * 0.42, fill: "none", stroke: "#fff", "stroke-width": 4 }, svg);
      if (cell === lastCell) el("circle", { cx, cy, r: 5, fill: "rgba(0,0,0,0.35)" }, svg);
    }
  }
  const byMove = shares(search);
  for (const control of state.controls.filter((c) => c.target !== null)) {
    const x = control.target * size;
    if (search && byMove.has(control.move)) {
      const m = byMove.get(control.move);
      const y0 = height + 4;
      const full = barHeight - 20;
      el("rect", { x: x + 10, y: y0 + full * (1 - m.priorHeight), width: 14, height: full * m.priorHeight,
        fill: "#9aa6bd", "data-prior": m.prior }, svg);
      const visit = el("rect", { x: x + 28, y: y0 + full * (1 - m.height), width: 22, height: full * m.height,
        fill: m.move === search.best_move ? "var(--accent)" : "#50607d", "data-visits": m.visits }, svg);
      visit.classList.add("visit-bar");
      const label = el("text", { x: x + size / 2, y: y0 + barHeight - 5, "text-anchor": "middle",
        "font-size": 12, fill: "var(--ink)" }, svg);
      label.textContent = search.searched ? String(m.visits) : `${Math.round(m.prior * 100)}%`;
    }
    const hit = el("rect", { x, y: 0, width: size, height, rx: 6, class: "move",
      "data-move": control.move, "data-legal": control.legal && state.turn === "human" }, svg);
    const title = el("title", {}, hit);
    title.textContent = `column ${control.move}`;
    hit.addEventListener("click", () => playMove(control.move));
  }
}

function drawCells(container, state, search) {
  const b = state.board;
  const size = 100;
  const width = b.columns * size, height = b.rows * size;
  const svg = el("svg", { viewBox: `-4 -4 ${width + 8} ${height + 8}`, role: "img",
    "aria-label": `${info.game} board` }, container);
  const discs = b.stone_shape === "disc";  // a board of discs (Othello) is green and fully ruled
  el("rect", { x: -4, y: -4, width: width + 8, height: height + 8, rx: 10, fill: discs ? "#2f7d4f" : "var(--card)" }, svg);
  const ink = discs ? "#173d27" : "var(--ink)";
  const byMove = shares(search);
  const winning = new Set(b.winning_cells);
  const targets = new Map(state.controls.map((c) => [c.target, c]));
  for (let cell = 0; cell < b.cells.length; cell++) {
    const x = (cell % b.columns) * size, y = Math.floor(cell / b.columns) * size;
    const control = targets.get(cell);
    const m = control ? byMove.get(control.move) : undefined;
    if (winning.has(cell)) el("rect", { x: x + 4, y: y + 4, width: size - 8, height: size - 8, rx: 8, fill: "rgba(27,138,90,0.18)" }, svg);
    if (m) {
      el("rect", { x: x + 6, y: y + 6, width: size - 12, height: size - 12, rx: 8,
        fill: m.move === search.best_move ? "var(--accent)" : "#50607d", opacity: 0.06 + 0.45 * m.height,
        "data-visits": m.visits, "data-prior": m.prior, class: "visit-bar" }, svg);
      const label = el("text", { x: x + size / 2, y: y + size - 10, "text-anchor": "middle", "font-size": 13,
        fill: "var(--ink)" }, svg);
      label.textContent = search.searched ? `${m.visits} · ${Math.round(m.prior * 100)}%` : `${Math.round(m.prior * 100)}%`;
    }
    if (b.cells[cell] !== -1) stone(svg, x + size / 2, y + size / 2 - 4, size * 0.36, b.cells[cell], b.stone_shape);
    if (state.last_target === cell) el("circle", { cx: x + 12, cy: y + 12, r: 4, fill: "rgba(0,0,0,0.35)" }, svg);
  }
  const inset = discs ? 0 : 6;
  const [first, last] = discs ? [0, b.columns] : [1, b.columns - 1];
  for (let i = first; i <= last; i++) el("line", { x1: i * size, y1: inset, x2: i * size, y2: height - inset, stroke: ink, "stroke-width": 3, "stroke-linecap": "round" }, svg);
  for (let i = discs ? 0 : 1; i <= (discs ? b.rows : b.rows - 1); i++) el("line", { x1: inset, y1: i * size, x2: width - inset, y2: i * size, stroke: ink, "stroke-width": 3, "stroke-linecap": "round" }, svg);
  // where legality is not plain to see (fewer legal moves than empty cells), mark the legal cells
  const legal = state.controls.filter((c) => c.legal && c.target !== null);
  const empty = b.cells.filter((c) => c === -1).length;
  if (state.turn === "human" && legal.length < empty) {
    for (const c of legal) {
      const x = (c.target % b.columns) * size, y = Math.floor(c.target / b.columns) * size;
      el("circle", { cx: x + size / 2, cy: y + size / 2 - 4, r: size * 0.1, fill: "rgba(0,0,0,0.28)", class: "legal-dot" }, svg);
    }
  }
  for (const control of state.controls.filter((c) => c.target !== null)) {
    const x = (control.target % b.columns) * size, y = Math.floor(control.target / b.columns) * size;
    const hit = el("rect", { x, y, width: size, height: size, class: "move", "data-move": control.move,
      "data-legal": control.legal && state.turn === "human" }, svg);
    const title = el("title", {}, hit);
    title.textContent = `cell ${control.move}`;
    hit.addEventListener("click", () => playMove(control.move));
  }
}

// A poker hand: the cards the human may see (the policy's stays face down until the hand is
// over), the pot, the betting so far and one button per legal action word.
function drawPoker(container, state) {
  const hand = state.hand;
  const policy = info.policy;
  const about = html("p", { id: "policy", class: "muted" }, container);
  about.textContent = `Opponent: ${policy.algorithm.toUpperCase()} policy after ${policy.iterations} iterations `
    + `(exploitability ${policy.exploitability.toPrecision(2)} chips a hand).`;
  const table = html("div", { class: "poker-table" }, container);
  const card = (id, label, name) => {
    const box = html("div", { class: "poker-card" }, table);
    html("span", { class: "muted" }, box).textContent = label;
    const face = html("span", { id, class: name ? "face" : "face down", "data-card": name || "" }, box);
    face.textContent = name || "?";
  };
  card("opponent-card", "the policy", hand.opponent_card);
  if (info.public_cards > 0) card("board-card", "board", hand.board_card);
  card("your-card", "you", hand.your_card);
  const pot = html("p", { id: "pot", "data-pot": hand.pot }, container);
  const mine = hand.put_in[hand.seat], theirs = hand.put_in[1 - hand.seat];
  pot.textContent = `Pot ${hand.pot} (you put in ${mine}, the policy ${theirs}).`;
  const list = html("ol", { id: "betting", class: "betting" }, container);
  hand.rounds.forEach((round, index) => {
    const item = html("li", {}, list);
    const words = round.map(([player, word]) => `${player === hand.seat ? "you" : "policy"} ${word}`);
    item.textContent = `Round ${index + 1}: ${words.length ? words.join(", ") : "no bets yet"}`;
  });
  const match = html("p", { id: "match", class: "muted", "data-chips": state.match.chips }, container);
  const total = state.match.chips;
  match.textContent = `${state.match.hands} hand(s) finished: ${total > 0 ? "+" : ""}${total} chips.`;
  drawButtons(container, state.controls, null, 3);
}

// A game without a grid drawing: its text board and one button per move in a square grid.
function drawFallback(container, state, search) {
  html("pre", {}, container).textContent = state.text;
  drawButtons(container, state.controls, search, Math.ceil(Math.sqrt(state.controls.length)));
}

// Buttons for moves off the grid (a pass), or for every move of a game without a grid.
function drawButtons(container, controls, search, columns = 4) {
  if (controls.length === 0) return;
  const grid = html("div", { class: "grid-moves" }, container);
  grid.style.gridTemplateColumns = `repeat(${Math.min(columns, controls.length)}, minmax(0, ${controls.length < columns ? "8rem" : "1fr"}))`;
  const byMove = shares(search);
  for (const control of controls) {
    const button = html("button", { type: "button", class: "move", "data-move": control.move,
      "data-legal": control.legal && game.turn === "human" }, grid);
    button.disabled = !control.legal;
    const m = byMove.get(control.move);
    button.textContent = m ? `${control.move} (${search.searched ? m.visits : Math.round(m.prior * 100) + "%"})` : control.move;
    if (m) button.style.background = `linear-gradient(to top, rgba(27,138,90,0.35) ${Math.round(m.height * 100)}%, #f8f9fc 0)`;
    button.addEventListener("click", () => playMove(control.move));
  }
}

function drawSearch(search) {
  const text = $("eval-text"), fill = $("eval-fill"), table = $("search-table");
  const evaluation = $("evaluation");
  table.replaceChildren();
  if (!search) {
    evaluation.dataset.value = "";
    fill.style.width = "50%";
    text.textContent = "No search yet: the model searches before each of its moves; Hint searches yours.";
    return;
  }
  evaluation.dataset.value = String(search.value);
  evaluation.dataset.source = search.source;
  fill.style.width = `${Math.round(((search.value + 1) / 2) * 100)}%`;
  fill.style.background = COLORS[search.view_side];
  const what = search.source === "hint"
    ? `Hint: ${search.best_move}`
    : `Model played ${search.best_move} at move ${search.ply + 1}`;
  const budget = search.searched ? `${search.simulations} simulations` : "network policy only";
  const sign = (v) => {
    const rounded = Math.round(v * 100) / 100 || 0;  // || 0: never "-0.00"
    return (rounded > 0 ? "+" : "") + rounded.toFixed(2);
  };
  const values = search.searched
    ? `search ${sign(search.value)}, network ${sign(search.network_value)}`
    : `network ${sign(search.network_value)}`;
  text.textContent = `${what} (${budget}). Evaluation for ${search.view_label}: ${values}; ${search.verdict}.`;
  const rows = [["move", (m) => m.move], ["policy", (m) => `${Math.round(m.prior * 100)}%`]];
  if (search.searched) {
    rows.push(["visits", (m) => String(m.visits)]);
    rows.push(["Q", (m) => (m.q === null ? "" : sign(m.q))]);
  }
  // many legal moves (Othello): the most visited (most probable) ones, in move order
  let shown = search.moves;
  if (shown.length > MAX_TABLE_MOVES) {
    const key = (m) => (search.searched ? m.visits : 0) + m.prior;
    const kept = new Set([...shown].sort((a, b) => key(b) - key(a)).slice(0, MAX_TABLE_MOVES));
    shown = shown.filter((m) => kept.has(m));
  }
  for (const [name, cell] of rows) {
    const tr = html("tr", {}, table);
    html("th", {}, tr).textContent = name;
    for (const m of shown) {
      const td = html("td", {}, tr);
      td.textContent = cell(m);
      if (m.move === search.best_move) td.classList.add("best");
    }
  }
}

// ---------------------------------------------------------------------------------- set-up
function showBudget() {
  const n = simulations();
  $("budget-label").textContent = n === 0 ? "Search: none (the network's policy alone)" : `Search: ${n} simulations per move`;
  $("budget").dataset.sims = String(n);
}

// The controls that depend on the game: seats, opponents, the model's budget.
function setUpGame() {
  const names = { human: "you", model: "model", opponent: info.opponent || "opponent" };
  for (const side of [0, 1]) {
    const select = $(`seat-${side}`);
    select.replaceChildren();
    for (const kind of info.seat_kinds) html("option", { value: kind }, select).textContent = names[kind];
  }
  const opponent = $("opponent");
  opponent.replaceChildren();
  if (info.model) html("option", { value: "model" }, opponent).textContent = "the model";
  info.opponents.forEach((choice, i) => { html("option", { value: i }, opponent).textContent = choice.label; });
  showSetting();
  budgets = BUDGETS.filter((b) => b <= info.max_simulations);
  if (!budgets.includes(info.simulations)) budgets.push(info.simulations);
  budgets.sort((a, b) => a - b);
  const slider = $("budget");
  slider.max = String(budgets.length - 1);
  slider.value = String(budgets.indexOf(info.simulations));
  showBudget();
  $("show-analysis").checked = info.show_analysis;
  $("model-card").hidden = !info.model;
  $("moves-card").hidden = Boolean(info.poker);  // a hand starts from a fresh deal, not a move string
  $("hint").hidden = !info.model;
  $("title").textContent = info.model ? `${info.game} · model ${info.model}`
    : info.poker ? `${info.title} · ${info.opponents[0].label}` : `${info.game} · no model`;
  document.title = `Tabula Rasa: ${info.game}`;
}

// The controls whose handlers stay the same for every game.
function setUpControls() {
  const picker = $("game");
  for (const entry of catalogue.games) {
    html("option", { value: entry.game }, picker).textContent = entry.model ? `${entry.game} (model)` : entry.game;
  }
  picker.addEventListener("change", pickGame);
  $("opponent").addEventListener("change", pickOpponent);
  $("setting").addEventListener("change", () => newGame(""));
  for (const side of [0, 1]) $(`seat-${side}`).addEventListener("change", () => newGame(""));
  $("budget").addEventListener("input", showBudget);
  $("show-analysis").addEventListener("change", render);
  $("autoplay").addEventListener("change", scheduleStep);
  $("new-game").addEventListener("click", () => newGame(""));
  $("swap").addEventListener("click", () => {
    const [a, b] = seatsChosen();
    $("seat-0").value = b;
    $("seat-1").value = a;
    newGame("");
  });
  $("undo").addEventListener("click", () => enqueue(() => call("undo")).then(scheduleStep));
  $("hint").addEventListener("click", () => enqueue(async () => {
    if (game.result === null) await call("hint", { sims: simulations() });
  }));
  $("load").addEventListener("click", () => newGame($("moves").value.trim()));
  $("moves").addEventListener("keydown", (event) => { if (event.key === "Enter") newGame($("moves").value.trim()); });
  $("copy").addEventListener("click", async () => {
    const field = $("moves");
    field.value = game.moves;
    field.select();
    try {
      await navigator.clipboard.writeText(game.moves);
    } catch (error) {
      document.execCommand("copy");  // pages served over plain http on another host have no clipboard API
    }
    $("message").textContent = game.moves ? `copied ${game.moves}` : "no moves yet";
  });
}

async function start() {
  try {
    catalogue = await request("GET", "/api/games");
    setUpControls();
    // ?game=NAME opens on that game; else a reload keeps the tab's game
    const wanted = new URLSearchParams(window.location.search).get("game");
    const saved = sessionStorage.getItem(storageKey());
    if (saved) {
      try {
        const found = await request("GET", `/api/sessions/${saved}`);
        if (!wanted || found.game === wanted) game = found;
      } catch (error) {
        sessionStorage.removeItem(storageKey());
      }
    }
    const name = game ? game.game : (wanted && entryOf(wanted) ? wanted : catalogue.default);
    info = entryOf(name);
    setUpGame();
    if (game) render();
    else await createSession({ game: name });
    scheduleStep();
  } catch (error) {
    $("status").textContent = error && error.status ? "No game." : "Cannot reach the server.";
    showError(error);
  }
}

document.addEventListener("DOMContentLoaded", start);
