// The browser front end of cortes-rules serve: plain JavaScript, no framework.
// Every decision goes to the server, which answers with the view of one player.
"use strict";

const params = new URLSearchParams(location.search);
const ui = {
  game: params.get("game"),
  seat: params.get("player"),   // a fixed seat, or null in hot seat
  shownTo: null,                 // whose view is on the screen
  mode: null,
  unit: null,                    // the selected unit
  reach: {},                     // its reachable places and their costs
  view: null,
};
const $ = (id) => document.getElementById(id);

function showError(text) {
  const box = $("error");
  box.textContent = text || "";
  box.hidden = !text;
}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json();
  if (!response.ok) {
    const rules = data.rules && data.rules.length ? ` (rules ${data.rules.join(", ")})` : "";
    throw new Error(data.error + rules);
  }
  return data;
}

function viewer() { return ui.seat || ui.shownTo; }

async function refresh() {
  if (!ui.game) return;
  const summary = await api("GET", `/api/games/${ui.game}`);
  ui.mode = summary.mode;
  if (!ui.seat && ui.shownTo && summary.deciding !== ui.shownTo && !summary.terminal) {
    passScreen(summary.deciding);
    return;
  }
  if (!ui.seat) ui.shownTo = summary.deciding;
  await draw();
}

function passScreen(next) {
  ui.unit = null; ui.reach = {};
  $("game").hidden = true;
  $("screen-text").textContent = `Pass the screen to ${next}.`;
  $("screen-ok").textContent = `I am ${next}: show my view`;
  $("screen").hidden = false;
  $("screen-ok").onclick = async () => {
    $("screen").hidden = true;
    ui.shownTo = next;
    await draw();
  };
}

async function draw() {
  let path = `/api/games/${ui.game}/view?player=${encodeURIComponent(viewer())}`;
  if (ui.unit) path += `&unit=${encodeURIComponent(ui.unit)}`;
  const view = await api("GET", path);
  ui.view = view;
  $("game").hidden = false;
  $("title").textContent = view.title;
  const acting = view.chance ? "the dice" : (view.to_act || "nobody");
  $("status").textContent = view.terminal
    ? `Game over: ${view.outcome}`
    : `Turn ${view.turn}, ${view.phase}. To act: ${acting}. You are ${view.player}.`;
  $("board").innerHTML = view.svg;
  for (const counter of $("board").querySelectorAll(".counter")) {
    if (counter.dataset.piece === ui.unit) counter.classList.add("selected");
  }
  drawActions(view);
  drawForecast(view.forecast);
  drawDice(view.dice);
  drawTrail(view.trail);
  $("save").href = saveLink();
  $("save").download = `${ui.game}${ui.mode === "hotseat" ? "" : "-" + view.player}.record`;
  drawSeats(view);
}

function saveLink() {
  const base = `/api/games/${ui.game}/save`;
  return ui.mode === "hotseat" ? base : `${base}?player=${encodeURIComponent(viewer())}`;
}

function drawSeats(view) {
  const box = $("seats");
  if (ui.mode !== "seats") { box.hidden = true; return; }
  box.hidden = false;
  box.textContent = "Seats: ";
  for (const player of view.players) {
    const link = document.createElement("a");
    link.href = `/?game=${ui.game}&player=${encodeURIComponent(player)}`;
    link.textContent = player;
    box.append(link, " ");
  }
}

function drawActions(view) {
  const box = $("actions");
  box.textContent = "";
  $("selected").textContent = ui.unit
    ? `Selected ${ui.unit}: ${Object.keys(ui.reach).length} reachable places shaded; click one to move there.`
    : "Click one of your units to see where it can go.";
  if (view.chance && !view.terminal) {
    const roll = document.createElement("button");
    roll.textContent = "Roll the dice";
    roll.className = "roll";
    roll.onclick = () => act("roll");
    box.append(roll);
    return;
  }
  if (!view.actions.length) {
    box.innerHTML = `<p class="quiet">Nothing to decide: waiting for ${view.to_act || "nobody"}.</p>`;
    return;
  }
  for (const action of view.actions) {
    const button = document.createElement("button");
    button.textContent = action.text;
    button.dataset.action = action.text;
    button.dataset.kind = action.kind;
    button.onclick = () => act(action.text);
    box.append(button);
  }
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
    const head = ply.action ? `${ply.action} (${ply.by})` : `an action of ${ply.by}`;
    let html = `<strong>${escape(head)}</strong>`;
    for (const line of ply.lines) {
      const rules = line.rules.length ? ` <span class="rules">[${escape(line.rules.join(", "))}]</span>` : "";
      html += `<div class="line">${escape(line.text)}${rules}</div>`;
    }
    item.innerHTML = html;
    list.append(item);
  }
}

function escape(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

async function act(action) {
  try {
    showError("");
    ui.unit = null; ui.reach = {};
    await api("POST", `/api/games/${ui.game}/act`, { player: viewer(), action });
    await refresh();
  } catch (error) { showError(error.message); }
}

async function selectUnit(piece) {
  ui.unit = piece;
  ui.reach = await api("GET", `/api/games/${ui.game}/reachable?player=${encodeURIComponent(viewer())}&unit=${encodeURIComponent(piece)}`);
  await draw();
}

async function moveTo(place) {
  const unit = ui.unit;
  ui.unit = null; ui.reach = {};
  await api("POST", `/api/games/${ui.game}/move`, { player: viewer(), unit, to: place });
  await refresh();
}

$("board").addEventListener("click", async (event) => {
  try {
    showError("");
    const counter = event.target.closest(".counter");
    const spot = event.target.closest("[data-place]");
    const place = spot ? spot.dataset.place : null;
    if (ui.unit && place && place in ui.reach && !(counter && counter.dataset.piece === ui.unit)) {
      await moveTo(place);
    } else if (counter && ui.view && ui.view.actions.length) {
      await selectUnit(counter.dataset.piece);
    }
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
    ui.unit = null; ui.reach = {};
    await api("POST", `/api/games/${ui.game}/undo`, { player: viewer() });
    if (!ui.seat) {
      const summary = await api("GET", `/api/games/${ui.game}`);
      ui.shownTo = summary.deciding;
    }
    await draw();
  } catch (error) { showError(error.message); }
});

function start(game) {
  ui.game = game.game;
  ui.mode = game.mode;
  ui.unit = null; ui.reach = {};
  ui.shownTo = game.mode === "seats" ? game.players[0] : game.deciding;
  ui.seat = game.mode === "seats" ? game.players[0] : null;
  const query = ui.seat ? `?game=${ui.game}&player=${encodeURIComponent(ui.seat)}` : `?game=${ui.game}`;
  history.replaceState(null, "", query);
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
    if (summary.plies !== ui.view.plies) await draw();
  } catch (error) { showError(error.message); }
}, 3000);
