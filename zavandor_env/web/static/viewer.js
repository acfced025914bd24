// The replay viewer: everything it shows comes from the JSON block above (no network).
// $ and el come from common.js, in the same script element.
(function () {
  const data = JSON.parse($("replay-data").textContent);
  const frames = data.frames;
  const last = frames.length - 1;
  const names = data.actionNames;
  const who = (seat) => "player_" + seat + " (" + data.labels[seat] + ")";
  let index = 0;
  let timer = null;

  // A board is stored as flat runs first, count, ... of shared SVG pieces (see viewer.py).
  function boardSvg(frame) {
    const runs = frame.svg;
    const parts = [];
    for (let r = 0; r < runs.length; r += 2) {
      for (let i = runs[r]; i < runs[r] + runs[r + 1]; i++) parts.push(data.pieces[i]);
    }
    return parts.join("");
  }

  // ---- static parts, drawn once -----------------------------------------------------------
  $("summary").textContent = data.players + " players \u00b7 seed " + data.seed + " \u00b7 " +
    data.labels.join(" vs ") + " \u00b7 " + last + " decisions";
  $("outcome").textContent = data.outcome;
  $("slider").max = String(last);

  const vpCells = [];
  data.labels.forEach((label, seat) => {
    const row = el("tr");
    const name = el("td");
    name.title = who(seat);  // the whole label, when a long one is cut short
    name.append(el("span", "swatch s" + seat), who(seat));
    const badge = el("td", "badges");  // its own cell: a cut-short label must not hide it
    if (data.winners.includes(seat)) badge.append(el("span", "badge final-only", "winner"));
    const vp = el("td", "vp");
    vp.id = "vp-seat-" + seat;
    row.append(name, badge, vp);
    $("vp-table").append(row);
    vpCells.push(vp);
  });

  const logItems = [];
  frames.forEach((f, i) => {
    if (f.action === null) return;
    const li = el("li");
    li.dataset.index = String(i);
    li.append(el("span", "n", "#" + (i + 1)), el("span", "swatch s" + f.seat),
              "r" + f.round + " " + who(f.seat) + ": " + names[f.action]);
    li.title = "round " + f.round + ", " + who(f.seat) + " took " + names[f.action] +
      " (of " + f.legal.length + " legal)";
    li.addEventListener("click", () => { pause(); show(i); });
    $("log").append(li);
    logItems[i] = li;
    for (const line of f.news) $("log").append(el("li", "event", line));
  });

  // ---- VP chart: one line per seat, x = decision, a cursor at the current one ---------------
  const NS = "http://www.w3.org/2000/svg";
  const W = 340, H = 150, L = 26, R = 6, T = 6, B = 18;
  const maxVp = Math.max(5, ...frames.map((f) => Math.max(...f.vp)));
  const xOf = (i) => L + (last ? i / last : 0) * (W - L - R);
  const yOf = (v) => T + (1 - v / maxVp) * (H - T - B);
  const svgEl = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const chart = $("vp-chart");
  const step = maxVp > 60 ? 20 : maxVp > 25 ? 10 : 5;
  for (let v = 0; v <= maxVp; v += step) {
    chart.append(svgEl("line", {x1: L, x2: W - R, y1: yOf(v), y2: yOf(v), stroke: "#eee6d8"}),
                 svgEl("text", {x: L - 4, y: yOf(v) + 3, "text-anchor": "end"}, String(v)));
  }
  let lastRoundMark = 0;
  frames.forEach((f, i) => {  // a tick every 5 rounds, labelled
    if (f.round % 5 === 0 && f.round !== lastRoundMark) {
      lastRoundMark = f.round;
      chart.append(svgEl("line", {x1: xOf(i), x2: xOf(i), y1: T, y2: H - B, stroke: "#f0ebe1"}),
                   svgEl("text", {x: xOf(i), y: H - 5, "text-anchor": "middle"}, "r" + f.round));
    }
  });
  for (let seat = 0; seat < data.players; seat++) {
    const points = frames.map((f, i) => xOf(i).toFixed(1) + "," + yOf(f.vp[seat]).toFixed(1));
    chart.append(svgEl("polyline", {points: points.join(" "), fill: "none",
      stroke: "var(--seat" + seat + ")", "stroke-width": 1.6, "stroke-linejoin": "round"}));
  }
  const cursor = svgEl("line", {y1: T, y2: H - B, stroke: "#2b2620", "stroke-dasharray": "3 2"});
  chart.append(cursor);

  if (data.hasPolicy) $("policy-panel").hidden = false;

  // ---- one frame ----------------------------------------------------------------------------
  function showDecision(f, i) {
    const box = $("decision");
    box.replaceChildren();
    const legal = $("legal");
    legal.replaceChildren();
    if (f.action === null) {
      box.append(el("div", "who", "End of the game (round " + f.round + ")"),
                 el("div", "", data.outcome));
    } else {
      const line = el("div");
      line.append("Round " + f.round + ": ", el("span", "swatch s" + f.seat),
                  el("span", "who", who(f.seat)), " took ", el("span", "took", names[f.action]),
                  el("span", "muted", "  (" + f.legal.length + " legal)"));
      box.append(line);
      for (const a of f.legal) legal.append(el("span", a === f.action ? "chip chosen" : "chip",
                                               names[a]));
    }
    const news = $("news");
    news.replaceChildren();
    if (i > 0) for (const line of frames[i - 1].news) news.append(el("li", "", line));
  }

  function showPolicy(f) {
    if (!data.hasPolicy) return;
    const box = $("policy");
    box.replaceChildren();
    if (!f.note) {
      box.append(el("div", "muted", f.action === null ? "The game is over."
        : "No explanation recorded for this decision (" + who(f.seat) + ")."));
      return;
    }
    const value = el("div");
    value.id = "value";
    value.append(who(f.seat) + " \u00b7 value estimate: ",
                 el("b", "", f.note.value === null ? "not in this policy file"
                    : f.note.value.toFixed(3)));
    box.append(value);
    for (const [name, p] of Object.entries(f.note.probs)) {
      const row = el("div", name === names[f.action] ? "prob chosen" : "prob");
      const bar = el("div", "bar");
      const fill = el("span");
      fill.style.width = (100 * p).toFixed(1) + "%";
      bar.append(fill);
      row.append(el("span", "name", name), bar, el("span", "p", (100 * p).toFixed(1) + "%"));
      box.append(row);
    }
  }

  function show(i) {
    index = Math.max(0, Math.min(last, i));
    const f = frames[index];
    $("board").innerHTML = boardSvg(f);
    $("slider").value = String(index);
    $("position").textContent = (index === last ? "end" : "decision " + (index + 1)) +
      " / " + last + " \u00b7 round " + f.round;
    f.vp.forEach((v, seat) => { vpCells[seat].textContent = String(v); });
    document.body.classList.toggle("at-end", index === last);
    cursor.setAttribute("x1", xOf(index));
    cursor.setAttribute("x2", xOf(index));
    showDecision(f, index);
    showPolicy(f);
    for (const li of document.querySelectorAll("#log li.current")) li.classList.remove("current");
    const item = logItems[index];
    if (item) {
      item.classList.add("current");
      const log = $("log");  // scroll the log only, never the page
      if (item.offsetTop < log.scrollTop + 20 ||
          item.offsetTop > log.scrollTop + log.clientHeight - 40) {
        log.scrollTop = item.offsetTop - log.clientHeight / 2;
      }
    } else if (index === last) {
      $("log").scrollTop = $("log").scrollHeight;  // the end: the last decisions and events
    }
    document.body.dataset.index = String(index);
  }

  // ---- controls -----------------------------------------------------------------------------
  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    $("play").textContent = "\u25B6 Play";
  }
  function play() {
    if (index >= last) show(0);
    pause();
    $("play").textContent = "\u275A\u275A Pause";
    timer = setInterval(() => {
      if (index >= last) pause(); else show(index + 1);
    }, Number($("speed").value));
  }
  const toggle = () => (timer === null ? play() : pause());
  const actions = {
    first: () => { pause(); show(0); },
    prev: () => { pause(); show(index - 1); },
    next: () => { pause(); show(index + 1); },
    last: () => { pause(); show(last); },
    play: toggle,
  };
  for (const [id, fn] of Object.entries(actions)) {
    // blur: a focused button would also take the space bar as a click
    $(id).addEventListener("click", (e) => { fn(); e.currentTarget.blur(); });
  }
  $("slider").addEventListener("input", () => { pause(); show(Number($("slider").value)); });
  $("speed").addEventListener("change", () => {
    $("speed").blur();  // give the arrow keys and space back to the viewer
    if (timer !== null) play();
  });
  const keys = {ArrowLeft: actions.prev, ArrowRight: actions.next, Home: actions.first,
                End: actions.last, " ": toggle};
  document.addEventListener("keydown", (e) => {
    const fn = keys[e.key];
    if (!fn || e.altKey || e.ctrlKey || e.metaKey || e.target.tagName === "SELECT") return;
    e.preventDefault();  // the slider must not move twice, the page must not scroll
    fn();
  });
  show(0);
})();
