// The viewer's "Runs and labels" table: one row per agent label, run and task kind, told
// apart by what a reader knows them by (the label, the model the agent reported, the
// suite, when it started, the folder its logs are in), with the plan hash last. A stream
// label shows its learning curve, average regret and slope; the others a pass rate.
// Every text from a log reaches the page as DOM text (see viewer.js).
"use strict";

(function () {
  const curve = window.taurecCurve;

  // the deepest folder holding every one of `paths`, as the paths spell it
  function commonFolder(paths) {
    const split = paths.map((p) => p.split(/[\\/]/).slice(0, -1));
    if (!split.length) return "";
    let n = split[0].length;
    for (const parts of split) {
      let i = 0;
      while (i < n && i < parts.length && parts[i] === split[0][i]) i += 1;
      n = i;
    }
    const sep = paths[0].includes("/") || !paths[0].includes("\\") ? "/" : "\\";
    return split[0].slice(0, n).join(sep) + (n ? sep : "");
  }
  // an ISO time as a reader writes it: "2026-01-01 09:30:00 UTC"
  const when = (iso) => (iso ? iso.replace("T", " ").replace(/(\.\d+)?(Z|\+00:00)$/, " UTC") : null);

  function groups(rows) {
    const byId = new Map();
    for (const r of rows) {
      const id = JSON.stringify([r.label, r.run || "(open)", r.kind]);
      const g = byId.get(id) || { label: r.label, run: r.run, mode: r.mode, kind: r.kind, rows: [] };
      g.rows.push(r);
      byId.set(id, g);
    }
    return [...byId.values()].map((g) => {
      const logged = g.rows.filter((r) => r.path.endsWith(".jsonl"));
      const started = g.rows.map((r) => r.started_at).filter(Boolean).sort();
      return {
        ...g,
        n: g.rows.length,
        passed: g.rows.filter((r) => r.result === "pass").length,
        failed: g.rows.filter((r) => r.result === "fail").length,
        graded: g.rows.every((r) => r.graded !== false),
        models: [...new Set(g.rows.map((r) => r.model).filter(Boolean))].sort(),
        suites: [...new Set(g.rows.map((r) => r.suite).filter(Boolean))].sort(),
        started: started.length ? started[0] : null,
        folder: commonFolder((logged.length ? logged : g.rows).map((r) => r.path)),
      };
    });
  }

  function identity(g, h) {
    const model = g.models.length ? "model " + g.models.join(", ") : "model not reported";
    const facts = [model, g.suites.length ? "suite " + g.suites.join(", ") : null, g.started ? "started " + when(g.started) : null];
    const plan = g.run ? "sealed run " + g.run.slice(0, 12) : "open mode (no run plan)";
    return [
      h.el("a", { href: "#", class: "run-label", onclick: (e) => { e.preventDefault(); h.pick({ label: g.label }); } }, g.label),
      h.el("div", { class: "run-facts" }, facts.filter(Boolean).join(" · ")),
      h.el("div", { class: "run-folder", title: g.run || null }, g.folder || "–", h.el("span", { class: "muted" }, " · " + plan)),
    ];
  }
  function result(g, h) {
    if (g.graded) {
      return h.el("span", {}, (100 * g.passed / g.n).toFixed(1) + "% passed", h.el("span", { class: "muted" }, " (" + g.passed + " of " + g.n + ")"));
    }
    const s = curve.summary(g.rows);
    if (!s.streams) return h.el("span", { class: "muted" }, "no regrets to show (answer key withheld, or not scored)");
    const slope = s.slope === null ? "–" : (s.slope > 0 ? "+" : "") + curve.fmt(s.slope);
    return h.el("div", { class: "stream-result" },
      curve.draw(s.curve, 150, 36, { title: "mean regret by episode over " + s.streams + " streams" }),
      h.el("div", {}, "avg regret " + curve.fmt(s.avg) + " · slope " + slope + " / episode"));
  }
  // the episodes the scorer's rows call failed (a stream's: those that ended in an error)
  function failed(g, h) {
    if (!g.failed && !g.graded) return h.el("span", { class: "muted", title: "read by its regret curve: failed only when an episode ended in an error" }, "–");
    return h.el("a", { href: "#", class: "fail", onclick: (e) => { e.preventDefault(); h.pick({ label: g.label, result: "fail" }); } }, String(g.failed));
  }
  // fill `tbody` with the groups of `rows`; h: { el, pick({filter: value}) }
  function render(tbody, rows, h) {
    tbody.replaceChildren(...groups(rows).map((g) => h.el("tr", { "data-kind": g.kind },
      h.el("td", { "data-col": "run" }, identity(g, h)),
      h.el("td", { "data-col": "kind" }, g.kind),
      h.el("td", { "data-col": "episodes" }, String(g.n) + (g.kind === "stream" ? " streams" : "")),
      h.el("td", { "data-col": "result" }, result(g, h)),
      h.el("td", { "data-col": "failed" }, failed(g, h)))));
  }

  window.taurecRuns = { render, groups, commonFolder, when };
})();
