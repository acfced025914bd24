// The web app: draws /api/state and sends the person's clicks (see web/server.py).
// $ and el come from common.js, in the same script element.
(function () {
  const GROUPS = {end_turn: "turn", end_block: "turn", buy: "gems", sell: "gems",
    activate: "gems", deactivate: "gems", buy_chip: "knowledge", advance: "knowledge",
    open: "auctions", bid_plus: "bid", pass: "bid", lose: "lose a gem"};
  // The server acts only on requests that carry its token (written into this page) as JSON:
  // a page of another origin can neither read the token nor send such a request.
  const TOKEN = document.querySelector('meta[name="zavandor-token"]').content;
  let busy = false;

  async function call(method, path, body) {
    busy = true;
    document.body.classList.add("busy");
    try {
      const headers = {"X-Zavandor-Token": TOKEN};
      if (body !== undefined) headers["Content-Type"] = "application/json";
      const response = await fetch(path, {method, headers,
        body: body === undefined ? undefined : JSON.stringify(body)});
      const data = await response.json();
      if (!response.ok) {
        $("error").textContent = data.error || ("error " + response.status);
        if (data.state) draw(data.state, true);
        return;
      }
      $("error").textContent = "";
      draw(data);
    } catch (err) {
      $("error").textContent = "cannot reach the server: " + err;
    } finally {
      busy = false;
      document.body.classList.remove("busy");
    }
  }

  function draw(s, keepError) {
    $("who").textContent = "You are player_" + s.seat + " \u00b7 seed " + s.seed +
      " \u00b7 against " + s.labels.filter((_, i) => i !== s.seat).join(", ");
    $("board").innerHTML = s.svg;
    const status = $("status");
    status.className = s.over ? (s.winners.includes(s.seat) ? "over" : "over lost")
      : (s.yourTurn ? "your-turn" : "");
    status.textContent = s.over ? s.result + " " + s.outcome
      : "Round " + s.round + " \u00b7 your decision (" + s.legal.length + " choices)";
    document.body.dataset.over = s.over ? "1" : "0";
    document.body.dataset.decision = String(s.decision);

    const actions = $("actions");
    actions.replaceChildren();
    if (s.over) actions.append(el("div", "muted", "The game is over: start a new one above."));
    const groups = new Map();
    for (const a of s.legal) {
      const group = GROUPS[a.block] || a.block;
      if (!groups.has(group)) {
        const box = el("div", "group");
        box.append(el("div", "group-name", group), el("div", "buttons"));
        actions.append(box);
        groups.set(group, box.lastChild);
      }
      const button = el("button", "action act-" + a.name, a.name);
      button.type = "button";
      button.dataset.action = String(a.action);
      button.addEventListener("click", () => {
        if (!busy) call("POST", "/api/act", {action: a.action, decision: s.decision});
      });
      groups.get(group).append(button);
    }
    if (!keepError) $("error").textContent = "";

    const auctions = $("auctions");
    auctions.replaceChildren();
    if (!s.auctions.length) auctions.append(el("li", "muted", "none yet"));
    for (const line of s.auctions.slice().reverse()) auctions.append(el("li", "", line));

    const scores = $("scores");
    scores.replaceChildren();
    s.scores.forEach((vp, seat) => {
      const row = el("tr");
      const who = el("td");
      who.append(el("span", "swatch s" + seat), "player_" + seat + " (" + s.labels[seat] + ")");
      who.title = who.textContent;
      const badges = el("td", "badges");  // its own cell: a cut-short label must not hide it
      if (s.winners.includes(seat)) badges.append(el("span", "badge", "winner"));
      if (s.eliminated[seat]) badges.append(el("span", "badge out", "out"));
      const cell = el("td", "vp", String(vp));
      cell.id = "score-" + seat;
      row.append(who, badges, cell);
      scores.append(row);
    });

    const log = $("log");
    log.replaceChildren();
    const mine = "player_" + s.seat + " (you)";  // the server's name for the person's seat
    for (const line of s.log.slice(-200).reverse()) {
      log.append(el("li", line.includes(mine) ? "mine" : "", line));
    }
  }

  $("new-game").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("seed").value.trim();
    call("POST", "/api/new", {seed: text === "" ? null : Number(text)});
  });
  call("GET", "/api/state");
})();
