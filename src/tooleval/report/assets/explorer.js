// tooleval report: the item explorer. Plain JavaScript, no dependencies, no network.
// Data comes from the JSON block #tooleval-data; every value from it is put into the page as
// text (textContent, text nodes, attribute values), never parsed as HTML.
(() => {
  "use strict";
  const source = document.getElementById("tooleval-data");
  const app = document.getElementById("explorer-app");
  if (!source || !app) return;
  const DATA = JSON.parse(source.textContent);
  const RUNS = DATA.runs;
  const ROWS = DATA.rows;
  const METRICS = DATA.metrics;
  const LABELS = {
    call_match: "call",
    tool_match: "tool",
    args_match: "args",
    parsed: "parsed",
    format_ok: "format",
    exec_match: "exec",
    success: "success",
    passed: "original",
  };
  const TEXTS = DATA.texts || [];
  const values = (key) => [...new Set(ROWS.map((r) => r[key]).filter(Boolean))].sort();
  const ERRORS = values("err");
  const BEHAVIOURS = values("beh");
  const ENDS = values("end");
  const CLASSES = values("cls");
  // how a conversation ended, and a run's gaps, are not provider errors (``err=class``)
  const NOT_ERRORS = new Set([
    "not_run",
    "answered",
    "max_rounds",
    "provider_error",
    "budget_exhausted",
    "blocked",
  ]);
  const HAS_REPEATS = ROWS.some((r) => r.rep > 0);
  const HAS_TURNS = RUNS.some((run) => run.kind === "multi_turn");
  // outcome columns: those the rows of the chosen run have (all runs: every one)
  let columns = METRICS;
  const width = () => 6 + columns.length + (HAS_REPEATS ? 1 : 0) + (HAS_TURNS ? 1 : 0);
  function columnsFor(runId) {
    const rows = runId ? ROWS.filter((r) => RUNS[r.run].id === runId) : ROWS;
    const found = METRICS.filter((m) => rows.some((r) => r.out[m] !== undefined));
    return found.length ? found : METRICS;
  }
  const PAGE = 400;
  const DEFAULTS = {
    view: "items",
    run: "",
    cat: "",
    metric: METRICS[0] || "call_match",
    val: "",
    err: "",
    end: "",
    cls: "",
    beh: "",
    q: "",
    sort: "",
    dir: "asc",
    a: "",
    b: "",
    only: "",
  };
  ROWS.forEach((r, i) => {
    r.i = i;
  });

  // --- helpers ---------------------------------------------------------------------------
  const { el, put, json, mark, folded, callView, conversationView, textOf } = Dom;
  const answered = (r) => !r.err;
  const isError = (r) => Boolean(r.err) && !NOT_ERRORS.has(r.err);
  const multiTurn = (r) => RUNS[r.run].kind === "multi_turn";
  const hit = (r, m) => answered(r) && r.out[m] === 1;
  const miss = (r, m) => !answered(r) || r.out[m] === 0;
  const runIndex = (id) => RUNS.findIndex((run) => run.id === id);
  const task = (r) => (DATA.tasks[RUNS[r.run].tasks] || {})[r.id] || null;
  const question = (r) => (task(r) ? task(r).q : r.q || "");
  const first = (r) => (r.calls && r.calls.length ? r.calls[0] : null);

  function searchText(r) {
    if (r.search === undefined) {
      const parts = [r.id, question(r), r.raw, json(r.calls || []), r.err_msg];
      for (const m of r.transcript || []) if (m.role !== "system") parts.push(textOf(m, TEXTS));
      parts.push(r.cls, ...(r.problems || []), json(r.executed || []));
      r.search = parts.filter(Boolean).join("\n").toLowerCase();
    }
    return r.search;
  }

  // --- state in the URL fragment (shareable) ---------------------------------------------
  let state = readHash();
  function readHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const s = { ...DEFAULTS };
    for (const key of Object.keys(DEFAULTS)) if (params.has(key)) s[key] = params.get(key);
    return s;
  }
  function writeHash() {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(state)) {
      if (value && value !== DEFAULTS[key]) params.set(key, value);
    }
    const text = params.toString();
    history.replaceState(null, "", location.href.split("#")[0] + (text ? "#" + text : ""));
  }
  function set(changes) {
    Object.assign(state, changes);
    writeHash();
    render();
  }

  // --- filters ---------------------------------------------------------------------------
  function categoryPasses(cat, wanted) {
    if (!wanted) return true;
    return wanted[0] === "!" ? cat !== wanted.slice(1) : cat === wanted;
  }
  function passes(r, s) {
    if (s.run && RUNS[r.run].id !== s.run) return false;
    if (!categoryPasses(r.cat, s.cat)) return false;
    if (s.val === "1" && !hit(r, s.metric)) return false;
    if (s.val === "0" && !miss(r, s.metric)) return false;
    if (s.err === "none" && !answered(r)) return false;
    if (s.err === "any" && answered(r)) return false;
    if (s.err === "class" && !isError(r)) return false;
    if (s.err && !["none", "any", "class"].includes(s.err) && r.err !== s.err) return false;
    if (s.end && r.end !== s.end) return false;
    if (s.cls && r.cls !== s.cls) return false;
    if (s.beh && r.beh !== s.beh) return false;
    if (s.q && !searchText(r).includes(s.q.toLowerCase())) return false;
    return true;
  }
  const SORTS = {
    run: (r) => r.run,
    id: (r) => r.id,
    rep: (r) => r.rep,
    cat: (r) => r.cat,
    q: question,
    cls: (r) => r.cls || "",
    lat: (r) => (r.lat === null || r.lat === undefined ? -1 : r.lat),
    tok: (r) => (r.tok && r.tok[1] !== null ? r.tok[1] : -1),
  };
  for (const m of METRICS)
    SORTS[m] = (r) => (answered(r) ? (r.out[m] === undefined ? 0.5 : r.out[m]) : -1);
  function sorted(rows) {
    const key = SORTS[state.sort];
    if (!key) return rows;
    const sign = state.dir === "desc" ? -1 : 1;
    return rows.slice().sort((x, y) => {
      const a = key(x),
        b = key(y);
      const order = typeof a === "string" ? a.localeCompare(b) : a - b;
      return order * sign || x.i - y.i;
    });
  }

  // --- controls ----------------------------------------------------------------------------
  function select(key, options, label) {
    const node = el(
      "select",
      { "data-key": key, "aria-label": label, onchange: (e) => set({ [key]: e.target.value }) },
      options.map(([value, text]) => el("option", { value }, text)),
    );
    return el("label", {}, label, node);
  }
  const runOptions = (all) => [
    ...(all ? [["", "all runs"]] : []),
    ...RUNS.map((r) => [r.id, r.model === r.id ? r.label : r.id + " — " + r.label]),
  ];
  function categoryOptions() {
    const options = [["", "all categories"], ...DATA.categories.map((c) => [c, c])];
    if (DATA.categories.includes("not_covered"))
      options.push(["!not_covered", "all but not_covered"]);
    return options;
  }
  const metricOptions = () => METRICS.map((m) => [m, m]);
  const searchBox = () =>
    el(
      "label",
      {},
      "search",
      el("input", {
        type: "search",
        "data-key": "q",
        placeholder: "question, output, id",
        oninput: onSearch,
      }),
    );
  let searchTimer = 0;
  function onSearch(e) {
    clearTimeout(searchTimer);
    const value = e.target.value;
    searchTimer = setTimeout(() => set({ q: value }), 120);
  }

  const itemControls = el(
    "div",
    { class: "x-controls" },
    select("run", runOptions(true), "run"),
    select("cat", categoryOptions(), "category"),
    select("metric", metricOptions(), "outcome"),
    select(
      "val",
      [
        ["", "any"],
        ["1", "✓ hit"],
        ["0", "✗ miss"],
      ],
      "is",
    ),
    select(
      "err",
      [
        ["", "all items"],
        ["none", "answered"],
        ["any", "not answered"],
        ["class", "any provider error"],
        ...ERRORS.map((e) => [e, e]),
      ],
      "error",
    ),
    ENDS.length ? select("end", [["", "any"], ...ENDS.map((e) => [e, e])], "ending") : null,
    CLASSES.length
      ? select("cls", [["", "any"], ...CLASSES.map((c) => [c, c])], "outcome class")
      : null,
    BEHAVIOURS.length
      ? select("beh", [["", "any"], ...BEHAVIOURS.map((b) => [b, b])], "not_covered behaviour")
      : null,
    searchBox(),
    el("button", { type: "button", onclick: () => set({ ...DEFAULTS }) }, "reset"),
  );
  const compareControls = el(
    "div",
    { class: "x-controls" },
    select("a", runOptions(false), "A"),
    select("b", runOptions(false), "B"),
    select("cat", categoryOptions(), "category"),
    select("metric", metricOptions(), "outcome"),
    select(
      "only",
      [
        ["", "items that differ"],
        ["a", "only A right"],
        ["b", "only B right"],
        ["all", "all answered by both"],
      ],
      "show",
    ),
    searchBox(),
  );
  const status = el("p", { class: "x-status", role: "status" });
  const results = el("div", { class: "x-results" });
  const tabs = el(
    "div",
    { class: "x-tabs" },
    el(
      "button",
      { type: "button", "data-view": "items", onclick: () => set({ view: "items" }) },
      "Items",
    ),
    el(
      "button",
      { type: "button", "data-view": "compare", onclick: () => set({ view: "compare" }) },
      "Side by side",
    ),
  );
  app.append(tabs, itemControls, compareControls, status, results);

  function syncControls() {
    for (const node of app.querySelectorAll("[data-key]")) {
      const value = state[node.dataset.key] || "";
      if (node.value === value || document.activeElement === node) continue;
      node.value = value;
      if (node.value !== value && node.tagName === "SELECT") {
        // a shared link may name a value the lists do not offer (e.g. cat=!routing)
        put(node, el("option", { value }, value));
        node.value = value;
      }
    }
    for (const b of tabs.children)
      b.setAttribute("aria-pressed", String(b.dataset.view === state.view));
    itemControls.hidden = state.view === "compare";
    compareControls.hidden = state.view !== "compare";
  }

  // --- one item in detail ------------------------------------------------------------------

  function metaLine(r) {
    const run = RUNS[r.run];
    const parts = [run.label, run.suite, r.id, HAS_REPEATS ? "repeat " + r.rep : null, r.cat];
    if (r.lat !== null && r.lat !== undefined) parts.push(r.lat.toFixed(2) + " s");
    if (r.tok && (r.tok[0] !== null || r.tok[1] !== null))
      parts.push(`tokens in ${r.tok[0] ?? "–"} / out ${r.tok[1] ?? "–"}`);
    if (r.attempts > 1) parts.push(r.attempts + " attempts");
    if (r.rounds) parts.push(r.rounds + " rounds");
    if (r.finish) parts.push("finish: " + r.finish);
    return el("p", { class: "x-meta" }, parts.filter(Boolean).join(" · "));
  }
  function parserLine(r) {
    const bits = [];
    if (r.extractor) bits.push("read by extractor " + r.extractor);
    if (!first(r) && answered(r)) bits.push("no call: " + (r.reason || "no reason recorded"));
    if (r.out.format_ok !== undefined) bits.push("format_ok " + (r.out.format_ok ? "yes" : "no"));
    if (r.out.exec_match !== undefined)
      bits.push("exec_match " + (r.out.exec_match ? "yes" : "no"));
    if (r.beh) bits.push("not_covered behaviour: " + r.beh);
    return bits.length ? el("p", { class: "x-parser" }, bits.join(" · ")) : null;
  }
  function outputView(r) {
    const parts = [];
    if (r.native && r.native.length) {
      parts.push(
        el("div", { class: "x-label" }, "native tool calls (as sent)"),
        r.native.map((c) =>
          el(
            "pre",
            {},
            c.name + " " + (typeof c.arguments === "string" ? c.arguments : json(c.arguments)),
          ),
        ),
      );
    }
    if (r.raw) parts.push(folded(r.raw, "raw output"));
    else if (answered(r) && !(r.native && r.native.length))
      parts.push(el("p", {}, "no text output"));
    return parts;
  }
  function detailView(r) {
    const t = task(r);
    const gold = t ? t.gold : null;
    const box = el(
      "div",
      { class: "x-detail" },
      el(
        "p",
        { class: "x-question" },
        question(r) || "(question unknown: the run's suite is not installed)",
      ),
      metaLine(r),
    );
    if (r.err) {
      const why = r.err === "not_run" ? "no record: the run stopped before this item" : r.err_msg;
      put(box, el("p", { class: "x-errbox" }, r.err + (why ? ": " + why : "")));
    }
    if (r.err === "not_run") return box;
    if (multiTurn(r)) {
      put(box, gold ? goldAndFirst(r, gold, "first call (scored like a single call)") : null);
      return put(box, conversationView(r, TEXTS));
    }
    return put(box, singleCallView(r, gold), parserLine(r), outputView(r));
  }
  function singleCallView(r, gold) {
    const calls = r.calls || [];
    return el(
      "div",
      { class: "x-calls" },
      el(
        "div",
        {},
        el("div", { class: "x-label" }, "gold call"),
        gold ? callView(gold, null, null, "x-gold") : el("p", {}, "unknown"),
      ),
      el(
        "div",
        {},
        el(
          "div",
          { class: "x-label" },
          calls.length > 1 ? "parsed call (first, scored)" : "parsed call",
        ),
        callView(calls[0] || null, r.diff, gold),
        calls.length > 1
          ? [
              el("div", { class: "x-label" }, "later calls (not scored)"),
              calls.slice(1).map((c) => callView(c)),
            ]
          : null,
      ),
    );
  }
  function goldAndFirst(r, gold, label) {
    return el(
      "div",
      { class: "x-calls" },
      el(
        "div",
        {},
        el("div", { class: "x-label" }, "gold call"),
        callView(gold, null, null, "x-gold"),
      ),
      el("div", {}, el("div", { class: "x-label" }, label), callView(first(r), r.diff, gold)),
    );
  }

  // --- the item list ---------------------------------------------------------------------
  const openRows = new Set();
  let limit = PAGE;
  function headCell(key, text, klass, title) {
    const current = state.sort === key;
    return el(
      "th",
      {
        class: klass || "",
        "data-sort": key,
        title: "sort by " + (title || text),
        "aria-sort": current ? (state.dir === "desc" ? "descending" : "ascending") : null,
        onclick: () => set({ sort: key, dir: current && state.dir === "asc" ? "desc" : "asc" }),
      },
      text,
    );
  }
  function rowView(r) {
    const run = RUNS[r.run];
    const cells = [
      el("td", { title: run.label }, run.id),
      el("td", {}, r.id),
      HAS_REPEATS ? el("td", { class: "num" }, r.rep) : null,
      el("td", {}, r.cat),
      el("td", {}, el("div", { class: "x-q" }, question(r))),
    ];
    if (answered(r)) cells.push(columns.map((m) => el("td", { class: "m" }, mark(r.out[m]))));
    else cells.push(el("td", { class: "x-err", colspan: columns.length }, r.err));
    if (HAS_TURNS) cells.push(el("td", { class: "x-cls", title: r.cls || "" }, r.cls || ""));
    cells.push(
      el("td", { class: "num" }, r.lat === null || r.lat === undefined ? "–" : r.lat.toFixed(2)),
    );
    cells.push(el("td", { class: "num" }, r.tok && r.tok[1] !== null ? r.tok[1] : "–"));
    const toggle = (e) => {
      const tr = e.currentTarget;
      const open = !openRows.has(r.i);
      if (open) {
        openRows.add(r.i);
        tr.after(detailRow(r));
      } else {
        openRows.delete(r.i);
        if (tr.nextElementSibling && tr.nextElementSibling.classList.contains("x-detail-row"))
          tr.nextElementSibling.remove();
      }
      tr.classList.toggle("x-open", open);
      tr.setAttribute("aria-expanded", String(open));
    };
    return el(
      "tr",
      {
        class: "x-row" + (openRows.has(r.i) ? " x-open" : ""),
        tabindex: 0,
        "data-row": r.i,
        "aria-expanded": String(openRows.has(r.i)),
        onclick: toggle,
        onkeydown: (e) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            toggle(e);
          }
        },
      },
      cells,
    );
  }
  const detailRow = (r) =>
    el("tr", { class: "x-detail-row" }, el("td", { colspan: width() }, detailView(r)));
  function renderItems() {
    columns = columnsFor(state.run);
    const rows = sorted(ROWS.filter((r) => passes(r, state)));
    const colgroup = el(
      "colgroup",
      {},
      el("col", { class: "c-run" }),
      el("col", { class: "c-id" }),
      HAS_REPEATS ? el("col", { class: "c-rep" }) : null,
      el("col", { class: "c-cat" }),
      el("col", {}),
      columns.map(() => el("col", { class: "c-m" })),
      HAS_TURNS ? el("col", { class: "c-cls" }) : null,
      el("col", { class: "c-num" }),
      el("col", { class: "c-num" }),
    );
    const head = el(
      "tr",
      {},
      headCell("run", "run"),
      headCell("id", "item"),
      HAS_REPEATS ? headCell("rep", "rep", "num") : null,
      headCell("cat", "category"),
      headCell("q", "question"),
      columns.map((m) => headCell(m, LABELS[m] || m, "m")),
      HAS_TURNS ? headCell("cls", "outcome", "", "outcome class of a conversation") : null,
      headCell("lat", "sec", "num", "latency in seconds"),
      headCell("tok", "tokens", "num", "output tokens"),
    );
    const body = el("tbody");
    for (const r of rows.slice(0, limit)) {
      put(body, rowView(r));
      if (openRows.has(r.i)) put(body, detailRow(r));
    }
    const table = el("table", { class: "x-table" }, colgroup, el("thead", {}, head), body);
    const more =
      rows.length > limit
        ? el(
            "button",
            {
              type: "button",
              class: "x-more",
              onclick: () => {
                limit += PAGE;
                renderItems();
              },
            },
            `show ${Math.min(PAGE, rows.length - limit)} more of ${rows.length}`,
          )
        : null;
    results.replaceChildren(table, more || "");
    status.textContent = itemStatus(rows);
  }
  function itemStatus(rows) {
    const m = state.metric;
    const hits = rows.filter((r) => hit(r, m)).length;
    const misses = rows.filter((r) => miss(r, m)).length;
    const unanswered = rows.filter((r) => !answered(r)).length;
    let text = `${rows.length} of ${ROWS.length} items · ${m}: ${hits} ✓, ${misses} ✗`;
    if (unanswered) text += ` (${unanswered} not answered)`;
    return text;
  }

  // --- two runs side by side ---------------------------------------------------------------
  function defaultPair() {
    const pair = DATA.pairs[0] || [RUNS[0] && RUNS[0].id, RUNS[1] && RUNS[1].id];
    return { a: state.a || pair[0] || "", b: state.b || pair[1] || "" };
  }
  function comparedPairs(s) {
    const ia = runIndex(s.a),
      ib = runIndex(s.b);
    const other = new Map();
    for (const r of ROWS) if (r.run === ib) other.set(r.id + "\u0000" + r.rep, r);
    const out = [];
    for (const ra of ROWS) {
      if (ra.run !== ia) continue;
      const rb = other.get(ra.id + "\u0000" + ra.rep);
      if (!rb || !answered(ra) || !answered(rb) || !categoryPasses(ra.cat, s.cat)) continue;
      const ha = hit(ra, s.metric),
        hb = hit(rb, s.metric);
      if (s.only === "a" && !(ha && !hb)) continue;
      if (s.only === "b" && !(hb && !ha)) continue;
      if (!s.only && ha === hb) continue;
      if (
        s.q &&
        !searchText(ra).includes(s.q.toLowerCase()) &&
        !searchText(rb).includes(s.q.toLowerCase())
      )
        continue;
      out.push([ra, rb]);
    }
    return out;
  }
  function sideView(r, gold) {
    return el(
      "div",
      { class: "x-side" },
      el(
        "h4",
        {},
        RUNS[r.run].label,
        " ",
        METRICS.filter((m) => r.out[m] !== undefined).map((m) => [
          " ",
          LABELS[m] || m,
          " ",
          mark(r.out[m]),
        ]),
      ),
      callView(first(r), r.diff, gold),
      multiTurn(r) ? conversationView(r, TEXTS) : [parserLine(r), outputView(r)],
    );
  }
  function renderCompare() {
    Object.assign(state, defaultPair());
    syncControls();
    const pairs = comparedPairs(state);
    const cards = pairs.slice(0, limit).map(([ra, rb]) => {
      const t = task(ra);
      return el(
        "div",
        { class: "x-pair", "data-item": ra.id },
        el("h4", {}, ra.id, HAS_REPEATS ? " · repeat " + ra.rep : "", " · ", ra.cat),
        el("p", { class: "x-question" }, question(ra)),
        t ? callView(t.gold, null, null, "x-gold") : null,
        el("div", { class: "x-sides" }, sideView(ra, t && t.gold), sideView(rb, t && t.gold)),
      );
    });
    const more =
      pairs.length > limit
        ? el(
            "button",
            {
              type: "button",
              class: "x-more",
              onclick: () => {
                limit += PAGE;
                renderCompare();
              },
            },
            "show more",
          )
        : null;
    results.replaceChildren(...cards, more || "");
    if (runIndex(state.a) < 0 || runIndex(state.b) < 0) status.textContent = "choose two runs";
    else
      status.textContent = `${pairs.length} items · ${state.metric}, on the items both runs answered`;
  }

  function render() {
    limit = PAGE;
    syncControls();
    if (state.view === "compare") renderCompare();
    else renderItems();
  }
  window.addEventListener("hashchange", () => {
    state = readHash();
    openRows.clear();
    render();
    app.parentElement.scrollIntoView();
  });
  render();
  if (location.hash.length > 1) app.parentElement.scrollIntoView();
})();
