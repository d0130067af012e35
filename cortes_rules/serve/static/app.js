// The browser front end of cortes-rules serve: plain JavaScript, no framework.
// Every decision goes to the server, which answers with the view of one player.
// Nothing here knows a game: pieces and places are what the server's actions
// and picture name (data-piece and data-place attributes).
"use strict";

const FLAT = 16;          // a decision of at most this many actions is shown as buttons
const FEW = 6;            // a kind of action naming no piece with at most this many: buttons
const MAX_ZOOM = 4;
const OPEN_ZOOM = 1;      // the map never opens closer than 1:1
const DRAG = 4;           // pixels a press moves before it is a drag, not a click

const params = new URLSearchParams(location.search);
const ui = {
  game: params.get("game"),
  seat: params.get("player"),   // a fixed seat, or null in hot seat
  token: null,                   // the seat's token (kept in this browser)
  shownTo: null,                 // whose view is on the screen
  mode: null,
  selected: null,                // {unit} or {kind}: what the map shades
  only: null,                    // a place: the selected group's actions are those naming it
  view: null,
  pictures: {},                  // by player: the last picture drawn (its lines, its digest)
  zoom: { k: 1, x: 0, y: 0 },
  openedFor: null,               // the game and player the map was last opened for
};
const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------ the server

function tokenKey(game, player) { return `cortes-rules:${game}:${player}`; }

function keepToken(game, player, token) {
  try { localStorage.setItem(tokenKey(game, player), token); } catch (error) { /* private mode */ }
}

function keptToken(game, player) {
  try { return localStorage.getItem(tokenKey(game, player)); } catch (error) { return null; }
}

function showError(text) {
  const box = $("error");
  box.textContent = text || "";
  box.hidden = !text;
}

async function call(method, path, body) {
  const options = { method, headers: {} };
  if (ui.token) options.headers.Authorization = `Bearer ${ui.token}`;
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  return fetch(path, options);
}

async function api(method, path, body) {
  const response = await call(method, path, body);
  const data = await response.json();
  if (!response.ok) {
    const rules = data.rules && data.rules.length ? ` (rules ${data.rules.join(", ")})` : "";
    throw new Error(data.error + rules);
  }
  return data;
}

function viewer() { return ui.seat || ui.shownTo; }

function query(extra) {
  const q = new URLSearchParams({ player: viewer(), ...extra });
  return q.toString();
}

// ------------------------------------------------------------ seats and screens

async function takeSeat() {
  ui.token = keptToken(ui.game, ui.seat);
  if (ui.token) return;
  const seated = await api("POST", `/api/games/${ui.game}/join`, { player: ui.seat });
  ui.token = seated.token;
  keepToken(ui.game, ui.seat, seated.token);
}

async function refresh(summary) {
  if (!ui.game) return;
  summary = summary || await api("GET", `/api/games/${ui.game}`);
  ui.mode = summary.mode;
  if (ui.mode === "seats" && ui.seat && !ui.token) await takeSeat();
  if (!ui.seat && ui.shownTo && summary.deciding !== ui.shownTo && !summary.terminal) {
    passScreen(summary.deciding);
    return;
  }
  if (!ui.seat) ui.shownTo = summary.deciding;
  await draw();
}

function passScreen(next) {
  ui.selected = null; ui.only = null;
  $("game").hidden = true;
  $("screen-text").textContent = `Pass the screen to ${next}.`;
  $("screen-ok").textContent = `I am ${next}: show my view`;
  $("screen").hidden = false;
  $("screen-ok").onclick = async () => {
    $("screen").hidden = true;
    ui.shownTo = next;
    try { await draw(); } catch (error) { showError(error.message); }
  };
}

function drawSeats(view) {
  const box = $("seats");
  if (ui.mode !== "seats") { box.hidden = true; return; }
  box.hidden = false;
  box.textContent = `You hold the ${view.player} seat. `;
  for (const player of view.players) {
    if (player === view.player) continue;
    const link = `${location.origin}/?game=${ui.game}&player=${encodeURIComponent(player)}`;
    const taken = view.seats && view.seats[player];
    const item = document.createElement("span");
    item.className = "seat";
    item.dataset.player = player;
    if (taken) {
      item.textContent = `${player}: taken. `;
    } else {
      item.append(`${player}: free; send this link to its player: `);
      const code = document.createElement("code");
      code.textContent = link;
      item.append(code, " ");
    }
    box.append(item);
  }
}

// ------------------------------------------------------------ the view

async function fetchView(fresh) {
  const extra = {};
  if (ui.selected && ui.selected.unit) extra.unit = ui.selected.unit;
  if (ui.selected && ui.selected.kind) extra.kind = ui.selected.kind;
  const held = ui.pictures[viewer()];
  if (!fresh && held) extra.since = held.digest;
  return api("GET", `/api/games/${ui.game}/view?${query(extra)}`);
}

function pictureOf(view) {
  // The whole SVG text, or the lines the server says changed since the one held.
  if (view.svg !== null) return view.svg.split("\n");
  const patch = view.svg_patch;
  const held = ui.pictures[view.player];
  if (!patch || !held || patch.since !== held.digest) return null;
  const lines = held.lines.slice();
  for (let i = patch.ops.length - 1; i >= 0; i--) {
    const [start, end, replacement] = patch.ops[i];
    lines.splice(start, end - start, ...replacement);
  }
  return lines.length === patch.lines ? lines : null;
}

async function draw() {
  let view = await fetchView(false);
  let lines = pictureOf(view);
  if (lines === null) { view = await fetchView(true); lines = pictureOf(view); }
  ui.view = view;
  ui.pictures[view.player] = { lines, digest: view.svg_digest };
  $("game").hidden = false;
  $("title").textContent = view.title;
  const acting = view.chance ? "the dice" : (view.to_act || "nobody");
  $("status").textContent = view.terminal
    ? `Game over: ${view.outcome}`
    : `Turn ${view.turn}, ${view.phase}. To act: ${acting}. You are ${view.player}.`;
  $("board").innerHTML = lines.join("\n");
  const unit = ui.selected && ui.selected.unit;
  for (const counter of $("board").querySelectorAll(".counter")) {
    if (counter.dataset.piece === unit) counter.classList.add("selected");
  }
  const opened = `${ui.game} ${view.player}`;
  if (ui.openedFor !== opened) {
    ui.openedFor = opened;
    showPieces();
  } else {
    placeBoard();
  }
  drawActions(view);
  drawForecast(view.forecast);
  drawDice(view.dice);
  drawTrail(view.trail);
  $("save").download = `${ui.game}${ui.mode === "hotseat" ? "" : "-" + view.player}.record`;
  drawSeats(view);
}

// ------------------------------------------------------------ pan and zoom

function panelSize() {
  const panel = $("board-panel");
  return { w: panel.clientWidth, h: panel.clientHeight };
}

function pictureSize() {
  const svg = $("board").querySelector("svg");
  if (!svg) return { w: 1, h: 1 };
  return { w: svg.width.baseVal.value || 1, h: svg.height.baseVal.value || 1 };
}

function wholeScale() {
  const panel = panelSize(), picture = pictureSize();
  return Math.min(panel.w / picture.w, panel.h / picture.h);
}

function placeBoard() {
  // Keep the picture over the panel: no blank beyond its edges when it is wider.
  const panel = panelSize(), picture = pictureSize(), z = ui.zoom;
  for (const [axis, room, size] of [["x", panel.w, picture.w * z.k], ["y", panel.h, picture.h * z.k]]) {
    z[axis] = size <= room ? (room - size) / 2 : Math.min(0, Math.max(room - size, z[axis]));
  }
  const board = $("board");
  board.style.transform = `translate(${z.x}px, ${z.y}px) scale(${z.k})`;
  board.dataset.scale = z.k.toFixed(4);
}

function zoomAt(px, py, factor) {
  const z = ui.zoom;
  const k = Math.min(MAX_ZOOM, Math.max(Math.min(wholeScale(), 1), z.k * factor));
  z.x = px - (px - z.x) * (k / z.k);
  z.y = py - (py - z.y) * (k / z.k);
  z.k = k;
  placeBoard();
}

function showWhole() {
  ui.zoom.k = Math.min(wholeScale(), 1);
  placeBoard();
}

function boxOf(ids) {
  // The box round some counters, in the picture's own units.
  const board = $("board").getBoundingClientRect(), k = ui.zoom.k;
  let box = null;
  for (const counter of $("board").querySelectorAll(".counter")) {
    if (!ids.has(counter.dataset.piece)) continue;
    const r = counter.getBoundingClientRect();
    const [x0, y0] = [(r.left - board.left) / k, (r.top - board.top) / k];
    const [x1, y1] = [(r.right - board.left) / k, (r.bottom - board.top) / k];
    box = box ? [Math.min(box[0], x0), Math.min(box[1], y0), Math.max(box[2], x1), Math.max(box[3], y1)]
      : [x0, y0, x1, y1];
  }
  return box;
}

function actingPieces(view) {
  // The pieces the player's decision names, else his own pieces.
  const named = new Set(view.actions.flatMap((a) => a.pieces.slice(0, 1)));
  return named.size ? named : new Set(view.mine);
}

function showPieces() {
  // Fit the acting player's pieces to the panel (never closer than 1:1, never
  // farther than the whole picture) and centre them.
  const box = ui.view ? boxOf(actingPieces(ui.view)) : null;
  if (!box) { showWhole(); return; }
  const panel = panelSize(), margin = 60;
  const fit = Math.min(panel.w / (box[2] - box[0] + 2 * margin), panel.h / (box[3] - box[1] + 2 * margin));
  const k = Math.max(Math.min(wholeScale(), OPEN_ZOOM), Math.min(OPEN_ZOOM, fit));
  ui.zoom.k = k;
  ui.zoom.x = panel.w / 2 - k * (box[0] + box[2]) / 2;
  ui.zoom.y = panel.h / 2 - k * (box[1] + box[3]) / 2;
  placeBoard();
}

const drag = { on: false, moved: false, px: 0, py: 0, x: 0, y: 0, id: null };

$("board-panel").addEventListener("pointerdown", (event) => {
  if (event.button !== 0 || event.target.closest("#zoom")) return;
  Object.assign(drag, { on: true, moved: false, px: event.clientX, py: event.clientY,
                        x: ui.zoom.x, y: ui.zoom.y, id: event.pointerId });
});

$("board-panel").addEventListener("pointermove", (event) => {
  if (!drag.on || event.pointerId !== drag.id) return;
  const dx = event.clientX - drag.px, dy = event.clientY - drag.py;
  if (!drag.moved && Math.hypot(dx, dy) < DRAG) return;
  if (!drag.moved) {
    drag.moved = true;
    $("board-panel").setPointerCapture(event.pointerId);
    $("board-panel").classList.add("dragging");
  }
  ui.zoom.x = drag.x + dx;
  ui.zoom.y = drag.y + dy;
  placeBoard();
});

function endDrag(event) {
  if (!drag.on || event.pointerId !== drag.id) return;
  drag.on = false;
  $("board-panel").classList.remove("dragging");
  if (drag.moved) {
    // The click that ends a drag is not a click on the map.
    const swallow = (e) => { e.stopPropagation(); e.preventDefault(); };
    window.addEventListener("click", swallow, { capture: true, once: true });
    setTimeout(() => window.removeEventListener("click", swallow, { capture: true }), 0);
  }
}
$("board-panel").addEventListener("pointerup", endDrag);
$("board-panel").addEventListener("pointercancel", endDrag);

$("board-panel").addEventListener("wheel", (event) => {
  event.preventDefault();
  const r = $("board-panel").getBoundingClientRect();
  const step = event.deltaMode === 1 ? event.deltaY * 33 : event.deltaY;
  zoomAt(event.clientX - r.left, event.clientY - r.top, Math.exp(-step * 0.0015));
}, { passive: false });

$("zoom-in").addEventListener("click", () => { const p = panelSize(); zoomAt(p.w / 2, p.h / 2, 1.25); });
$("zoom-out").addEventListener("click", () => { const p = panelSize(); zoomAt(p.w / 2, p.h / 2, 1 / 1.25); });
$("zoom-whole").addEventListener("click", showWhole);
$("zoom-mine").addEventListener("click", showPieces);
window.addEventListener("resize", () => { if (ui.view) placeBoard(); });

// ------------------------------------------------------------ the decision

function groupsOf(actions) {
  // Actions by the first piece they name; those naming none by their kind.
  const pieces = new Map(), kinds = new Map();
  for (const action of actions) {
    const [map, key] = action.pieces.length ? [pieces, action.pieces[0]] : [kinds, action.kind];
    if (!map.has(key)) map.set(key, []);
    map.get(key).push(action);
  }
  return { pieces, kinds };
}

function selectedActions(view) {
  const s = ui.selected;
  if (!s) return [];
  return view.actions.filter((a) => (s.unit ? a.pieces.includes(s.unit) : !a.pieces.length && a.kind === s.kind));
}

function button(action, label) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label || action.text;
  b.title = action.text;
  b.dataset.action = action.text;
  b.dataset.kind = action.kind;
  b.onclick = () => act(action.text);
  return b;
}

function choice(cls, key, label, count, chosen, onclick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = cls + (chosen ? " chosen" : "");
  b.textContent = label;
  const n = document.createElement("span");
  n.className = "count";
  n.textContent = `(${count})`;
  b.append(n);
  b.onclick = onclick;
  return b;
}

function head(text) {
  const p = document.createElement("p");
  p.className = "group-head";
  p.textContent = text;
  return p;
}

function shortLabel(action) {
  // An action of a selected group by what tells it from the others: the
  // arguments past the piece it is grouped by (its kind too when it names none).
  const rest = action.args.filter((a, i) => !(i === action.args.indexOf(action.pieces[0])));
  return action.pieces.length ? `${action.kind} ${rest.join(" ")}`.trim() : action.args.join(" ") || action.kind;
}

function drawActions(view) {
  const box = $("actions");
  box.textContent = "";
  $("decision-head").textContent = view.actions.length > 1
    ? `Your decision (${plural(view.actions.length, "action")})` : "Your decision";
  drawSelected(view);
  if (view.chance && !view.terminal) {
    const roll = document.createElement("button");
    roll.textContent = "Roll the dice";
    roll.className = "roll";
    roll.onclick = () => act("roll");
    box.append(roll);
    return;
  }
  if (!view.actions.length) {
    box.innerHTML = `<p class="quiet">Nothing to decide: waiting for ${escape(view.to_act || "nobody")}.</p>`;
    return;
  }
  if (view.actions.length <= FLAT) {
    for (const action of view.actions) box.append(button(action));
    return;
  }
  const { pieces, kinds } = groupsOf(view.actions);
  const s = ui.selected || {};
  for (const [kind, actions] of kinds) {
    if (actions.length <= FEW) {
      for (const action of actions) box.append(button(action));
    } else {
      box.append(choice("kind-choice", kind, kind, actions.length, s.kind === kind,
                        () => select({ kind })));
    }
  }
  if (pieces.size) {
    box.append(head("By piece (or click a counter on the map):"));
    for (const [piece, actions] of pieces) {
      const b = choice("piece-choice", piece, piece, actions.length, s.unit === piece,
                       () => select({ unit: piece }));
      b.dataset.piece = piece;
      box.append(b);
    }
  }
  const chosen = selectedActions(view).filter((a) => !ui.only || a.places.includes(ui.only));
  if (chosen.length) {
    const what = s.unit || s.kind;
    const many = `${plural(chosen.length, "action")}${s.unit ? " name it" : ""}`;
    box.append(head(ui.only ? `${what} at ${ui.only}:` : `${what}: ${many}`));
    const group = document.createElement("div");
    group.id = "group";
    for (const action of chosen) group.append(button(action, shortLabel(action)));
    box.append(group);
  }
}

function drawSelected(view) {
  const box = $("selected");
  const s = view.selected;
  if (!s) {
    box.textContent = view.actions.length > FLAT
      ? "Long decision: pick a piece (on the map or below) to see its actions and the places they reach."
      : (view.actions.length ? "Click one of your units to see where it can go." : "");
    return;
  }
  const what = s.unit || s.kind;
  const costs = Object.values(s.reach).some((cost) => cost > 0);
  const count = new Set([...Object.keys(s.reach), ...s.places]).size;
  const naming = selectedActions(view).length;
  let text = `Selected ${what}: `;
  if (count) {
    text += `${count} places shaded`;
    text += costs ? " (with the cost of the cheapest route); click one to go there." : "; click one to choose it.";
  } else {
    text += naming ? `${plural(naming, "action")} name it, and no place.` : "no action of this decision names it.";
  }
  if (s.note && count) text += ` ${s.note[0].toUpperCase()}${s.note.slice(1)}.`;
  box.textContent = text;
  const clear = document.createElement("button");
  clear.type = "button";
  clear.id = "unselect";
  clear.textContent = "Clear";
  clear.onclick = () => select(null);
  box.append(" ", clear);
}

function drawForecast(forecast) {
  const box = $("forecast");
  if (!forecast) { box.innerHTML = '<p class="quiet">No forecast for this decision.</p>'; return; }
  let html = `<p>${escape(forecast.note)}</p>`;
  if (forecast.results.length) {
    html += "<table><tr><th>result</th><th>exact</th><th>%</th></tr>";
    for (const r of forecast.results) {
      html += `<tr><td>${escape(r.result)}</td><td>${escape(r.exact)}</td><td>${r.percent.toFixed(1)}</td></tr>`;
    }
    html += "</table>";
  }
  box.innerHTML = html;
}

function drawDice(dice) {
  $("dice").innerHTML = dice.length
    ? dice.map((d) => `<span class="die">${escape(d)}</span>`).join(" ")
    : '<p class="quiet">No dice rolled yet.</p>';
}

function drawTrail(trail) {
  const list = $("trail");
  list.textContent = "";
  for (const ply of trail.slice().reverse()) {
    const item = document.createElement("li");
    item.value = ply.ply + 1;
    const top = ply.action ? `${ply.action} (${ply.by})` : `an action of ${ply.by}`;
    let html = `<strong>${escape(top)}</strong>`;
    for (const line of ply.lines) {
      const rules = line.rules.length ? ` <span class="rules">[${escape(line.rules.join(", "))}]</span>` : "";
      html += `<div class="line">${escape(line.text)}${rules}</div>`;
    }
    item.innerHTML = html;
    list.append(item);
  }
}

function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

function escape(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

// ------------------------------------------------------------ doing things

async function act(action) {
  try {
    showError("");
    ui.selected = null; ui.only = null;
    await refresh(await api("POST", `/api/games/${ui.game}/act`, { player: viewer(), action }));
  } catch (error) { showError(error.message); }
}

async function select(what) {
  try {
    showError("");
    ui.selected = what; ui.only = null;
    await draw();
  } catch (error) { ui.selected = null; showError(error.message); }
}

async function goTo(place) {
  // A shaded place: the cheapest route there, or the selected group's one action
  // naming it, or (several) those actions listed.
  const s = ui.view.selected;
  const direct = selectedActions(ui.view).filter((a) => a.places.includes(place));
  if (s.unit && place in s.reach) {
    const unit = s.unit;
    ui.selected = null; ui.only = null;
    await refresh(await api("POST", `/api/games/${ui.game}/move`, { player: viewer(), unit, to: place }));
  } else if (direct.length === 1) {
    await act(direct[0].text);
  } else if (direct.length > 1) {
    ui.only = place;
    drawActions(ui.view);
  }
}

function shaded(place) {
  const s = ui.view && ui.view.selected;
  return Boolean(s && (place in s.reach || s.places.includes(place)));
}

$("board").addEventListener("click", async (event) => {
  try {
    showError("");
    const counter = event.target.closest(".counter");
    const spot = event.target.closest("[data-place]");
    const place = spot ? spot.dataset.place : null;
    const unit = ui.selected && ui.selected.unit;
    if (place && shaded(place) && !(counter && counter.dataset.piece === unit)) {
      await goTo(place);
    } else if (counter && counter.dataset.piece === unit) {
      await select(null);
    } else if (counter && ui.view && ui.view.actions.length) {
      await select({ unit: counter.dataset.piece });
    }
  } catch (error) { showError(error.message); }
});

$("save").addEventListener("click", async (event) => {
  event.preventDefault();
  try {
    showError("");
    const path = `/api/games/${ui.game}/save` + (ui.mode === "hotseat" ? "" : `?${query({})}`);
    const response = await call("GET", path);
    if (!response.ok) throw new Error((await response.json()).error);
    const url = URL.createObjectURL(await response.blob());
    const link = document.createElement("a");
    link.href = url;
    link.download = $("save").download;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (error) { showError(error.message); }
});

$("new-game").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    showError("");
    const game = await api("POST", "/api/games/new", {
      seed: Number($("seed").value || 0), setup: $("setup").value || null, mode: $("mode").value,
    });
    start(game);
  } catch (error) { showError(error.message); }
});

$("load").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  if (!file) return;
  try {
    showError("");
    const game = await api("POST", "/api/games/load", { text: await file.text(), mode: $("mode").value });
    start(game);
  } catch (error) { showError(error.message); }
  event.target.value = "";
});

$("undo").addEventListener("click", async () => {
  try {
    showError("");
    ui.selected = null; ui.only = null;
    const summary = await api("POST", `/api/games/${ui.game}/undo`, { player: viewer() });
    if (!ui.seat) ui.shownTo = summary.deciding;
    await draw();
  } catch (error) { showError(error.message); }
});

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && ui.selected) select(null);
});

function start(game) {
  ui.game = game.game;
  ui.mode = game.mode;
  ui.selected = null; ui.only = null;
  ui.pictures = {};
  ui.openedFor = null;
  ui.seat = game.mode === "seats" ? game.seat : null;
  ui.token = game.mode === "seats" ? game.token : null;
  if (ui.token) keepToken(ui.game, ui.seat, ui.token);
  ui.shownTo = game.mode === "seats" ? game.seat : game.deciding;
  const where = ui.seat ? `?game=${ui.game}&player=${encodeURIComponent(ui.seat)}` : `?game=${ui.game}`;
  history.replaceState(null, "", where);
  draw().catch((error) => showError(error.message));
}

if (ui.game) {
  refresh().catch((error) => showError(error.message));
} else {
  $("status").textContent = "Start a new game, or load a record.";
}

// In a seat of its own, the page looks for the other players' decisions every 3 seconds.
setInterval(async () => {
  if (!ui.seat || !ui.game || !ui.view) return;
  try {
    const summary = await api("GET", `/api/games/${ui.game}`);
    if (summary.plies !== ui.view.plies ||
        JSON.stringify(summary.seats) !== JSON.stringify(ui.view.seats)) await draw();
  } catch (error) { showError(error.message); }
}, 3000);
