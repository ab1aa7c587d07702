// tooleval report: DOM builders shared by the item explorer's views. Every value becomes a
// text node or an attribute value, never HTML. Loaded before explorer.js in the same script.
const Dom = (() => {
  "use strict";
  const FOLD_CHARS = 1200;
  const FOLD_LINES = 14;
  const json = (value) => JSON.stringify(value);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    return put(node, ...children);
  }
  // Append children: nodes as they are, anything else as a text node; arrays are flattened.
  function put(node, ...children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  function mark(value) {
    if (value === 1) return el("span", { class: "ok", title: "yes" }, "✓");
    if (value === 0) return el("span", { class: "bad", title: "no" }, "✗");
    return "–";
  }
  function folded(text, label) {
    const long = text.length > FOLD_CHARS || text.split("\n").length > FOLD_LINES;
    const pre = el("pre", { class: long ? "x-raw x-folded" : "x-raw" }, text);
    const box = el(
      "div",
      {},
      label
        ? el(
            "div",
            { class: "x-label" },
            `${label} (${text.length.toLocaleString("en")} characters)`,
          )
        : null,
      pre,
    );
    if (long) {
      const button = el(
        "button",
        {
          type: "button",
          class: "x-fold",
          onclick: (e) => {
            e.stopPropagation();
            button.textContent = pre.classList.toggle("x-folded") ? "show all" : "fold";
          },
        },
        "show all",
      );
      put(box, button);
    }
    return box;
  }
  function callView(call, diff, gold, klass) {
    if (!call) return el("div", { class: "x-call " + (klass || "") }, "no call");
    const args = call.arguments;
    const box = el(
      "div",
      { class: "x-call " + (klass || "") },
      el(
        "div",
        { class: "x-fn" },
        el("span", { class: diff && diff.name ? "x-diff" : "" }, call.name),
      ),
    );
    if (!args || typeof args !== "object" || Array.isArray(args)) {
      put(box, el("pre", {}, typeof args === "string" ? args : json(args)));
      return box;
    }
    const wrong = new Set(diff ? diff.args : []);
    const goldArgs = gold && gold.arguments ? gold.arguments : {};
    const table = el("table", { class: "x-args" });
    const has = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);
    for (const key of Object.keys(args)) {
      const goldPart =
        wrong.has(key) && has(goldArgs, key)
          ? el("span", { class: "x-goldval" }, "gold: " + json(goldArgs[key]))
          : null;
      const extra =
        wrong.has(key) && !has(goldArgs, key)
          ? el("span", { class: "x-goldval" }, "not in gold")
          : null;
      put(
        table,
        el(
          "tr",
          { class: wrong.has(key) ? "x-diff" : "" },
          el("th", {}, key),
          el("td", {}, json(args[key]), goldPart, extra),
        ),
      );
    }
    for (const key of wrong) {
      if (has(args, key)) continue;
      const goldPart = has(goldArgs, key) ? "gold: " + json(goldArgs[key]) : "";
      put(
        table,
        el(
          "tr",
          { class: "x-diff" },
          el("th", {}, key),
          el("td", {}, "missing ", el("span", { class: "x-goldval" }, goldPart)),
        ),
      );
    }
    if (table.rows.length) put(box, table);
    return box;
  }
  // --- a conversation (multi-turn runs) ------------------------------------------------
  // A long text (a system prompt, a tool result) is stored once for the page: {text: index}.
  const textOf = (part, texts) =>
    !part ? null : part.text !== undefined ? texts[part.text] : part.content;
  function messageView(m, texts) {
    const role = /^[a-z]+$/.test(m.role) ? m.role : "other";
    const who = [m.role, m.name, m.tool_call_id].filter(Boolean).join(" · ");
    const text = textOf(m, texts);
    let body = text ? folded(text, null) : null;
    if (role === "system" && text)
      body = el(
        "details",
        {},
        el("summary", {}, `system prompt (${text.length} characters)`),
        el("pre", {}, text),
      );
    return el(
      "div",
      { class: "x-msg x-" + role },
      el("span", { class: "x-role" }, who),
      body,
      (m.calls || []).map((c) => callView(c)),
    );
  }
  function cellsTable(klass, head, rows) {
    return el(
      "table",
      { class: klass },
      el(
        "tr",
        {},
        head.map((h) => el("th", { class: "l" }, h)),
      ),
      rows.map((cells) =>
        el(
          "tr",
          {},
          cells.map((c) => el("td", { class: "l" }, c)),
        ),
      ),
    );
  }
  function executedView(calls) {
    if (!calls || !calls.length) return null;
    const kinds = calls.some((c) => c.kind);
    const status = (c) =>
      [c.status, c.source_status].filter((v) => v !== null && v !== undefined).join(" · ");
    const kind = (c) =>
      el("span", { class: c.kind === "required" || c.kind === "allowed" ? "" : "bad" }, c.kind);
    const rows = calls.map((c) => [
      c.round ?? "",
      c.name + " " + json(c.arguments),
      kinds ? (c.kind ? kind(c) : "") : null,
      status(c) || "–",
      mark(c.valid ? 1 : 0),
      c.error ? el("span", { class: "bad" }, c.error) : "",
    ]);
    const head = ["round", "call", kinds ? "kind" : null, "status", "valid", "error"];
    const drop = (cells) => cells.filter((c) => c !== null);
    return [
      el("div", { class: "x-label" }, "executed calls"),
      cellsTable("x-exec", drop(head), rows.map(drop)),
    ];
  }
  const FINE = { status: ["matched"], verdict: ["supported", "neutral"] };
  function checksView(checks, label) {
    if (!checks || !checks.length) return null;
    const keys = [...new Set(checks.flatMap((c) => Object.keys(c)))];
    const value = (k, v) => {
      const text = v === null || v === undefined ? "" : typeof v === "string" ? v : json(v);
      const bad = FINE[k] && !FINE[k].includes(text);
      return bad ? el("span", { class: "bad" }, text) : text;
    };
    return [
      el("div", { class: "x-label" }, label),
      cellsTable(
        "x-checks",
        keys,
        checks.map((c) => keys.map((k) => value(k, c[k]))),
      ),
    ];
  }
  function scoreView(r) {
    const parts = [];
    if (r.problems && r.problems.length)
      parts.push(
        el("div", { class: "x-label" }, "problems"),
        el(
          "ul",
          { class: "x-problems" },
          r.problems.map((p) => el("li", {}, p)),
        ),
      );
    const score = Object.entries(r.score || {});
    if (score.length)
      parts.push(
        el("div", { class: "x-label" }, "score"),
        el(
          "p",
          { class: "x-score" },
          score.map(([k, v], i) => [i ? " · " : "", k + " ", typeof v === "string" ? v : json(v)]),
        ),
      );
    return parts;
  }
  function judgeLine(r) {
    if (!r.judge) return null;
    const bad = r.judge.verdict !== "correct";
    return el(
      "p",
      { class: "x-judge" },
      "judge: ",
      el("span", { class: bad ? "bad" : "" }, r.judge.verdict),
      r.judge.reason ? " – " + r.judge.reason : "",
    );
  }
  function verdictLine(r) {
    const bits = ["outcome " + (r.cls || "–"), "ending " + (r.end || "–")];
    if (r.out && r.out.success !== undefined)
      bits.push("success " + (r.out.success ? "yes" : "no"));
    if (r.rounds !== null && r.rounds !== undefined) bits.push(r.rounds + " rounds");
    if (r.requests) bits.push(r.requests + " requests");
    return el("p", { class: "x-verdict" }, bits.join(" · "));
  }
  function conversationView(r, texts) {
    if (!r.transcript) return null;
    return el(
      "div",
      { class: "x-transcript" },
      el("div", { class: "x-label" }, "conversation"),
      verdictLine(r),
      r.transcript.map((m) => messageView(m, texts)),
      executedView(r.executed),
      checksView(r.checks, "checks"),
      checksView(r.steps, "workflow steps"),
      scoreView(r),
      textOf(r.final, texts)
        ? folded(textOf(r.final, texts), "final answer")
        : el("p", {}, "no final answer"),
      checksView(r.claims, "final-answer check (claim by claim)"),
      judgeLine(r),
    );
  }
  return { el, put, json, mark, folded, callView, conversationView, textOf };
})();
