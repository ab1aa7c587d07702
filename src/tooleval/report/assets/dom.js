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
      el("div", { class: "x-label" }, `${label} (${text.length.toLocaleString("en")} characters)`),
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
  function transcriptView(r) {
    if (!r.transcript && !r.executed && r.final_answer === undefined) return null;
    const box = el(
      "div",
      { class: "x-transcript" },
      el(
        "div",
        { class: "x-label" },
        "transcript" + (r.episode_outcome ? " · outcome " + r.episode_outcome : ""),
      ),
    );
    for (const m of r.transcript || []) {
      const role = /^[a-z]+$/.test(m.role) ? m.role : "other";
      put(
        box,
        el(
          "div",
          { class: "x-msg x-" + role },
          el("span", { class: "x-role" }, m.role + (m.name ? " · " + m.name : "")),
          m.content ? folded(m.content, "content") : null,
          (m.calls || []).map((c) => callView(c)),
        ),
      );
    }
    if (r.executed && r.executed.length) {
      put(
        box,
        el("div", { class: "x-label" }, "executed calls"),
        el(
          "table",
          {},
          el(
            "tr",
            {},
            ["round", "call", "status", "valid", "error"].map((h) => el("th", { class: "l" }, h)),
          ),
          r.executed.map((c) =>
            el(
              "tr",
              {},
              el("td", {}, c.round ?? ""),
              el("td", { class: "l" }, c.name + " " + json(c.arguments)),
              el("td", {}, c.status ?? "–"),
              el("td", {}, mark(c.valid ? 1 : 0)),
              el("td", { class: "l" }, c.error || ""),
            ),
          ),
        ),
      );
    }
    if (r.final_answer !== undefined)
      put(
        box,
        r.final_answer ? folded(r.final_answer, "final answer") : el("p", {}, "no final answer"),
      );
    return box;
  }
  return { el, put, json, mark, folded, callView, transcriptView };
})();
