// The taurec episode viewer. Every text from a log (labels, messages, tool results) is
// untrusted: it reaches the page only as DOM text (textContent / text nodes), never as HTML.
"use strict";

(function () {
  const BUNDLE = !!document.querySelector('meta[name="taurec-bundle"]');
  const POLL_MS = 2000;
  const MAX_ROWS = 1000;
  const state = { rows: [], revision: null, filters: {}, sort: { col: "label", dir: 1 }, key: null, seq: null, doc: null, search: "", words: null, hay: new Map() };
  // under this width one pane shows at a time: the lists, or the episode opened from them
  const WIDE = window.matchMedia("(min-width: 1800px)");  // as in viewer.css
  const curve = window.taurecCurve;
  const episodeCallbacks = {};

  // ---- the token (served only) --------------------------------------------------------
  // `evaluator view` prints http://127.0.0.1:PORT/#token=...: a fragment no browser sends
  // to any server. It is kept in this tab's sessionStorage, which only pages of this very
  // origin (port included) read, taken out of the address, and sent with every request
  // for data as a header: never as a cookie, which the browser would send to every port.
  const TOKEN_KEY = "taurec-viewer-token";
  function takeToken() {
    const m = /^#token=([A-Za-z0-9_-]+)(.*)$/.exec(location.hash);
    if (m) {
      try { sessionStorage.setItem(TOKEN_KEY, m[1]); } catch (e) { /* storage off: this load only */ }
      history.replaceState(null, "", location.pathname + location.search + (m[2].startsWith("#") ? m[2] : "#/"));
      return m[1];
    }
    try { return sessionStorage.getItem(TOKEN_KEY); } catch (e) { return null; }
  }
  const TOKEN = BUNDLE ? null : takeToken();
  function api(path) {
    return fetch(path, { cache: "no-store", headers: TOKEN ? { Authorization: "Bearer " + TOKEN } : {} })
      .then((r) => { if (r.status === 403) throw new Error("token"); return r; });
  }
  function refused(e, otherwise) {
    setStatus(e && e.message === "token" ? "no access: open the address `evaluator view` printed (…/#token=…)" : otherwise);
  }

  // ---- DOM building: text only ------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "class") node.className = value;
      else if (name === "onclick") node.addEventListener("click", value);
      else if (name === "text") node.textContent = String(value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    fill(node, children);
    return node;
  }
  // replaceChildren with nested lists flattened and null / false left out
  function fill(node, children) {
    node.replaceChildren();
    for (const child of [children].flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  const $ = (sel) => document.querySelector(sel);
  const fmt = (v, digits) => (v === null || v === undefined ? "–" : typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(digits === undefined ? 3 : digits)) : String(v));
  const json = (v) => JSON.stringify(v, null, 2);

  // ---- data ------------------------------------------------------------------------
  function loadScript(src) {
    const s = document.createElement("script");
    s.src = src;
    s.onerror = () => setStatus("could not load " + src);
    document.body.append(s);
  }
  window.taurecData = (doc) => receive(doc);
  window.taurecWords = (doc) => { state.words = doc; state.hay.clear(); renderList(); };
  window.taurecEpisode = (key, doc) => { const cb = episodeCallbacks[key]; delete episodeCallbacks[key]; if (cb) cb(doc); };

  function fetchEpisodes() {
    if (BUNDLE) { loadScript("data/episodes.js"); return; }
    const q = state.revision === null ? "" : "?since=" + encodeURIComponent(state.revision);
    api("api/episodes" + q)
      .then((r) => r.json())
      .then((doc) => { if (!doc.unchanged) receive(doc); else setLive(); })
      .catch((e) => refused(e, "server not answering; retrying"));
  }
  function fetchEpisode(key, done) {
    if (BUNDLE) { episodeCallbacks[key] = done; loadScript("data/episode-" + encodeURIComponent(key) + ".js"); return; }
    api("api/episode/" + encodeURIComponent(key))
      .then((r) => (r.ok ? r.json() : null))
      .then(done)
      .catch((e) => refused(e, "could not load episode " + key));
  }
  // the messages the search looks through: fetched once a search is typed, again when the list changed
  function fetchWords() {
    if (!state.search || (state.words && state.words.revision === state.revision)) return;
    if (BUNDLE) { if (!state.words) loadScript("data/words.js"); return; }
    api("api/words").then((r) => r.json()).then(window.taurecWords).catch((e) => refused(e, "could not load the messages to search"));
  }
  function setStatus(text) { $("#status").textContent = text; }
  function setLive() {
    const n = state.rows.length;
    setStatus((BUNDLE ? "static bundle" : "live") + " · " + n + " episode" + (n === 1 ? "" : "s") + (state.updated ? " · updated " + state.updated : ""));
  }
  function receive(doc) {
    state.rows = doc.rows || [];
    state.revision = doc.revision;
    state.updated = doc.updated_at;
    state.hay.clear();
    fetchWords();
    renderFilters();
    renderRuns();
    renderList();
    setLive();
    route();
  }

  // ---- filters and list ------------------------------------------------------------
  // the scorer's row says whether an episode passed, failed, or is read as a curve (a
  // stream: by its regret, failed only when it ended in an error); its failure line is
  // there only when it failed
  const graded = (r) => r.graded !== false;
  const resultOf = (r) => r.result;
  const failureLine = (r) => (r.result === "fail" ? r.failure : null);
  // seconds, tokens and dollars as the list and the episode page show them
  const seconds = (v) => (typeof v === "number" ? (v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString("en-US")) + " s" : "–");
  const tokens = (r) => (r.prompt_tokens === null && r.completion_tokens === null ? null : (r.prompt_tokens || 0) + (r.completion_tokens || 0));
  const usage = (r) => {
    const t = tokens(r);
    return [t === null ? null : fmt(t) + " tok", typeof r.cost_usd === "number" ? "$" + fmt(r.cost_usd, 4) : null].filter(Boolean).join(" · ") || "–";
  };
  const FILTERS = [
    ["label", "label", (r) => [r.label]],
    ["kind", "kind", (r) => [r.kind]],
    ["task", "task", (r) => [r.task]],
    ["stratum", "stratum", (r) => [r.stratum || "(none)"]],
    ["result", "result", (r) => [resultOf(r)]],
    ["policy", "failed policy", (r) => (r.failed_policies.length ? r.failed_policies : ["(none)"])],
    ["end", "end reason", (r) => [r.end_reason]],
    ["fault", "simulator fault", (r) => (r.simulator_faults ? ["any", ...r.simulator_fault_kinds] : ["(none)"])],
    // a sealed run's planned episodes that have no log yet (never started) have none
    ["logged", "log", (r) => [r.path.endsWith(".jsonl") ? "logged" : "planned, no log"]],
  ];
  function renderFilters() {
    const form = $("#filters");
    form.replaceChildren();
    for (const [name, title, values] of FILTERS) {
      const options = [...new Set(state.rows.flatMap(values))].sort();
      const select = el("select", { name, id: "filter-" + name }, el("option", { value: "" }, "all"), options.map((v) => el("option", { value: v }, v)));
      if (state.filters[name] && options.includes(state.filters[name])) select.value = state.filters[name];
      else delete state.filters[name];
      select.addEventListener("change", () => { if (select.value) state.filters[name] = select.value; else delete state.filters[name]; renderList(); });
      form.append(el("label", {}, title, select));
    }
  }
  function shown() {
    const terms = searchTerms(state.search);
    const rows = state.rows.filter((r) => FILTERS.every(([name, , values]) => !state.filters[name] || values(r).includes(state.filters[name])) && terms.every((t) => haystack(r).includes(t)));
    const col = COLUMNS.find((c) => c.key === state.sort.col) || COLUMNS[0];
    return rows.sort((a, b) => {
      const x = col.sort(a), y = col.sort(b);
      return (x < y ? -1 : x > y ? 1 : 0) * state.sort.dir || a.task.localeCompare(b.task) || a.trial - b.trial;
    });
  }
  const why = (r) => [
    ...r.failed_constraints.map((c) => "constraint " + c),
    ...r.failed_policies.map((p) => "policy " + p),
    ...(r.excluded ? ["excluded: " + r.excluded] : []),
    ...(r.simulator_faults ? [r.simulator_faults + " simulator fault(s)"] : []),
    ...(failureLine(r) ? [failureLine(r)] : []),
    ...(r.withheld ? ["answer key withheld (task still live)"] : []),
  ].join("; ");
  // what the search looks through: the row's names and verdicts, and the episode's messages
  function haystack(r) {
    if (!state.hay.has(r.key)) {
      const said = state.words && state.words.words ? state.words.words[r.key] : "";
      state.hay.set(r.key, [r.label, r.task, r.model, r.end_reason, r.end_detail, r.error, r.item_id, why(r), ...(r.problems || []), said].filter(Boolean).join("\n").toLowerCase());
    }
    return state.hay.get(r.key);
  }
  // words, or "quoted phrases", every one of which must be found
  const searchTerms = (q) => [...q.toLowerCase().matchAll(/"([^"]+)"|(\S+)/g)].map((m) => m[1] || m[2]);
  const COLUMNS = [
    { key: "label", title: "label", sort: (r) => r.label, cell: (r) => r.label },
    { key: "task", title: "task", sort: (r) => r.task, cell: (r) => r.task },
    { key: "trial", title: "trial", sort: (r) => r.trial, cell: (r) => String(r.trial) },
    { key: "stratum", title: "stratum", sort: (r) => r.stratum || "", cell: (r) => r.stratum || "–" },
    { key: "result", title: "result", sort: (r) => resultOf(r), cell: (r) => (graded(r) || !curve.regrets(r).length ? el("span", { class: resultOf(r) }, resultOf(r)) : streamCell(r)) },
    { key: "reward", title: "reward", sort: (r) => (r.reward === null ? -Infinity : r.reward), cell: (r) => fmt(r.reward, 2) },
    { key: "end", title: "end", sort: (r) => r.end_reason, cell: (r) => r.end_reason },
    { key: "turns", title: "turns", sort: (r) => r.turns, cell: (r) => String(r.turns) },
    { key: "tools", title: "tools", sort: (r) => r.tool_calls, cell: (r) => String(r.tool_calls) },
    { key: "time", title: "time", sort: (r) => (r.duration_s === null ? -Infinity : r.duration_s), cell: (r) => el("span", { title: "tokens · cost: " + usage(r) }, seconds(r.duration_s)) },
    { key: "why", title: "why it failed", sort: (r) => why(r), cell: (r) => el("span", { class: "why" }, why(r)) },
  ];
  function renderList() {
    const head = $("#episodes thead tr");
    head.replaceChildren(...COLUMNS.map((c) => {
      const sorted = state.sort.col === c.key ? (state.sort.dir > 0 ? " sorted-asc" : " sorted-desc") : "";
      return el("th", { class: "sortable" + sorted, "data-col": c.key, onclick: () => { state.sort = { col: c.key, dir: state.sort.col === c.key ? -state.sort.dir : 1 }; renderList(); } }, c.title);
    }));
    const rows = shown();
    // thousands of rows make the page slow: the first MAX_ROWS are drawn, the rest counted
    $("#episodes tbody").replaceChildren(...rows.slice(0, MAX_ROWS).map((r) => el("tr", { "data-key": r.key, class: r.key === state.key ? "selected" : null, onclick: () => { location.hash = "#/episode/" + r.key; } }, COLUMNS.map((c) => el("td", { "data-col": c.key }, c.cell(r))))));
    const pending = state.search && !(state.words && state.words.revision === state.revision) ? "; messages still loading: verdicts searched so far" : "";
    $("#count").textContent = "(" + rows.length + " of " + state.rows.length + (rows.length > MAX_ROWS ? "; the first " + MAX_ROWS + " shown: filter or sort to see others" : "") + pending + ")";
    $("#empty").hidden = rows.length > 0;
  }
  function renderRuns() {
    window.taurecRuns.render($("#runs tbody"), state.rows, { el, pick: (filters) => { for (const [name, value] of Object.entries(filters)) pickFilter(name, value); } });
  }
  // a stream row's result: its regret curve in small, and the average
  function streamCell(r) {
    const points = curve.regrets(r);
    return el("span", { class: "stream-cell" }, curve.draw(points, 64, 18), " avg " + curve.fmt(curve.mean(points.map((p) => p[1]))));
  }
  function pickFilter(name, value) {
    state.filters[name] = value;
    const select = $("#filter-" + name);
    if (select) select.value = value;
    renderList();
  }

  // ---- one episode -------------------------------------------------------------------
  function route() {
    const m = /^#\/episode\/([0-9a-f]+)(?:\/seq\/(\d+))?$/.exec(location.hash);
    document.body.classList.toggle("episode-open", !!m);
    if (!m) { backToList(); return; }
    if (m[1] !== state.key && !WIDE.matches) window.scrollTo(0, 0);
    const key = m[1], seq = m[2] ? Number(m[2]) : null;
    state.seq = seq;
    if (key === state.key && state.doc) { showSeq(seq); return; }
    state.key = key;
    document.querySelectorAll("#episodes tbody tr").forEach((tr) => tr.classList.toggle("selected", tr.dataset.key === key));
    fetchEpisode(key, (doc) => { if (state.key !== key) return; state.doc = doc; renderEpisode(doc); showSeq(state.seq); });
  }
  window.addEventListener("hashchange", route);
  // back from an episode on a narrow screen: the list again, at the row that was open
  function backToList() {
    const row = state.key && document.querySelector('#episodes tbody tr[data-key="' + state.key + '"]');
    if (row && !WIDE.matches) row.scrollIntoView({ block: "center" });
  }

  function seqLink(seq) {
    if (seq === null || seq === undefined) return el("span", { class: "muted" }, "–");
    return el("a", { class: "seq", href: "#/episode/" + state.key + "/seq/" + seq }, "seq " + seq);
  }
  function showSeq(seq) {
    document.querySelectorAll(".highlight").forEach((n) => n.classList.remove("highlight"));
    if (seq === null) return;
    const target = document.getElementById("ev-" + seq);
    if (!target) return;
    const folded = target.closest("details");
    if (folded) folded.open = true;
    target.classList.add("highlight");
    target.scrollIntoView({ block: "center" });
  }

  function verdictTable(title, head, rows) {
    if (!rows.length) return null;
    return [el("h3", {}, title), el("table", { class: "verdicts" }, el("thead", {}, el("tr", {}, head.map((h) => el("th", {}, h)))), el("tbody", {}, rows))];
  }
  function renderEpisode(doc) {
    const art = $("#detail");
    $("#detail-hint").hidden = true;
    art.hidden = false;
    if (!doc) { fill(art, el("p", { class: "fail" }, "This episode is no longer in the logs.")); return; }
    const r = doc.row, v = doc.verdicts;
    const reasons = [
      ...v.constraints.filter((c) => !c.holds).map((c) => [el("span", {}, "constraint not met: " + c.text + " (item has " + c.actual + ") "), seqLink(c.seq)]),
      ...v.policies.filter((p) => p.verdict === "fail").map((p) => [el("span", {}, "policy " + p.policy + " violated: " + p.reason + " "), seqLink(p.seq)]),
      ...v.faults.map((f) => [el("span", {}, "simulator fault " + f.kind + ": " + f.detail + " "), seqLink(f.seq)]),
      ...(failureLine(r) ? [[el("span", {}, failureLine(r))]] : []),
      ...v.problems.filter((p) => p !== r.failure).map((p) => [el("span", {}, "problem: " + p)]),
      ...(r.excluded ? [[el("span", {}, "excluded from the score: " + r.excluded)]] : []),
      ...(doc.withheld ? [[el("span", { id: "withheld" }, doc.withheld)]] : []),
    ];
    const h = doc.header || {};
    fill(art, [
      el("h2", {}, r.label + " · " + r.task + " · trial " + r.trial),
      el("p", { class: "verdict-head" }, el("span", { class: resultOf(r), id: "verdict" }, graded(r) || r.result === "fail" ? r.result.toUpperCase() : r.kind.toUpperCase() + " · avg regret " + curve.fmt(curve.mean(curve.regrets(r).map((p) => p[1])))), " reward " + fmt(r.reward, 2) + " · ended: " + r.end_reason + (r.item_id ? " · committed " + r.item_id : "")),
      reasons.length ? [el("h3", {}, r.result === "fail" ? "Why it failed" : "Notes"), el("ul", { class: "reasons", id: "reasons" }, reasons.map((x) => el("li", {}, x)))] : null,
      renderTraceback(doc.conversation),
      el("dl", { class: "kv" },
        el("dt", {}, "kind"), el("dd", {}, r.kind), el("dt", {}, "stratum"), el("dd", {}, r.stratum || "–"),
        el("dt", {}, "simulator"), el("dd", {}, (h.simulator && h.simulator.kind) || r.simulator || "–"),
        el("dt", {}, "run"), el("dd", {}, (r.mode || "") + " " + (r.run || "")),
        el("dt", {}, "started"), el("dd", {}, h.started_at || "–"),
        el("dt", {}, "duration"), el("dd", { id: "duration" }, seconds(r.duration_s)),
        el("dt", {}, "tokens · cost"), el("dd", { id: "usage" }, usage(r) + (tokens(r) === null ? "" : " (" + fmt(r.prompt_tokens || 0) + " in, " + fmt(r.completion_tokens || 0) + " out)")),
        el("dt", {}, "log"), el("dd", {}, r.path)),
      verdictTable("Constraints", ["constraint", "reveal", "item value", "holds", "evidence"], v.constraints.map((c) => el("tr", {}, el("td", {}, c.text), el("td", {}, c.reveal), el("td", {}, c.actual), el("td", { class: c.holds ? "pass" : "fail" }, c.holds ? "yes" : "no"), el("td", {}, seqLink(c.seq))))),
      verdictTable("Policies", ["policy", "verdict", "reason", "evidence"], v.policies.map((p) => el("tr", {}, el("td", {}, p.policy), el("td", { class: p.verdict === "pass" ? "pass" : p.verdict === "fail" ? "fail" : "na" }, p.verdict), el("td", {}, p.reason), el("td", {}, seqLink(p.seq))))),
      verdictTable("Metrics", ["metric", "value", "evidence"], v.metrics.filter((m) => !(doc.stream && /@\d+$/.test(m.name))).map((m) => el("tr", {}, el("td", {}, m.name), el("td", {}, fmt(m.value)), el("td", {}, seqLink(m.seq))))),
      verdictTable("Simulator faults", ["kind", "detail", "evidence"], v.faults.map((f) => el("tr", {}, el("td", {}, f.kind), el("td", {}, f.detail), el("td", {}, seqLink(f.seq))))),
      doc.judge ? verdictTable("Judge scores (1-5)", ["aspect", "mean", "spread", "failures", "model"], doc.judge.map((j) => el("tr", {}, el("td", {}, j.aspect), el("td", {}, j.mean === null ? "no score" : fmt(j.mean, 2)), el("td", {}, fmt(j.spread, 2)), el("td", {}, String(j.failures)), el("td", {}, j.model || "–")))) : null,
      doc.ranking ? renderRanking(doc.ranking) : null,
      doc.stream ? streamFigure(doc.stream) : null,
      doc.stream ? verdictTable("Stream episodes", ["#", "recommended", "feedback", "regret", "rank", "questions", "evidence"], doc.stream.map((s) => el("tr", {}, el("td", {}, String(s.index)), el("td", {}, s.item_id || "–"), el("td", {}, s.feedback || "–"), el("td", {}, fmt(s.regret, 1)), el("td", {}, fmt(s.rank)), el("td", {}, String(s.questions)), el("td", {}, seqLink(s.seq))))) : null,
      el("h3", {}, "Conversation"),
      doc.model_store && doc.model_store.problems.length ? el("ul", { class: "reasons" }, doc.model_store.problems.map((p) => el("li", { class: "muted" }, "prompt store: " + p))) : null,
      el("div", { id: "conversation" }, doc.conversation.map((e) => (e.role === "model" ? renderModel(e, doc.model_messages || {}) : renderEntry(e)))),
    ]);
  }
  // the agent's traceback, when it raised (the end record keeps it): text only, and folded
  // to its last line when long
  function renderTraceback(conversation) {
    const FOLD_LINES = 12;
    const end = conversation.find((e) => e.role === "end" && e.traceback);
    if (!end) return null;
    const lines = end.traceback.trimEnd().split("\n");
    const long = lines.length > FOLD_LINES;
    return [
      el("h3", {}, "The agent's traceback ", seqLink(end.seq)),
      el("details", { class: "traceback", id: "traceback", open: !long },
        el("summary", {}, lines[lines.length - 1] + (long ? " · " + lines.length + " lines" : "")),
        el("pre", {}, end.traceback)),
    ];
  }
  // a stream's learning curve: regret by episode, each point a link to its recommendation
  function streamFigure(episodes) {
    const points = episodes.filter((e) => typeof e.regret === "number").map((e) => [e.index, e.regret]);
    const seqOf = new Map(episodes.map((e) => [e.index, e.seq]));
    const slope = curve.slope(points);
    return [
      el("h3", {}, "Learning curve"),
      el("p", { class: "muted" }, "regret by episode (0: the best item was recommended) · avg " + curve.fmt(curve.mean(points.map((p) => p[1]))) + " · slope " + (slope === null ? "–" : curve.fmt(slope)) + " per episode; click a point for its recommendation"),
      el("div", { class: "curve-box", id: "stream-curve" }, curve.draw(points, 480, 150, { axes: true, href: (k) => (seqOf.get(k) === null || seqOf.get(k) === undefined ? null : "#/episode/" + state.key + "/seq/" + seqOf.get(k)) })),
    ];
  }
  function renderRanking(rk) {
    return [
      el("h3", {}, "Submitted ranking ", seqLink(rk.seq)),
      el("p", {}, "positive: " + rk.positive + (rk.positive_title ? " (" + rk.positive_title + ")" : "") + " · " + (rk.rank ? "ranked " + rk.rank : "not in the list") + " · a trial passes within the top " + rk.pass_k),
      rk.items.length ? el("ol", { class: "ranking" }, rk.items.map((i) => el("li", { class: i.positive ? "positive" : null }, i.id + (i.title ? " · " + i.title : "") + (i.positive ? "  ★ positive" : "")))) : el("p", { class: "fail" }, "no ranking submitted"),
    ];
  }
  function renderActs(entry) {
    if (!entry.acts || !entry.acts.length) return null;
    return el("div", { class: "acts" }, el("span", { class: "muted" }, "acts" + (entry.acts_by ? " (" + entry.acts_by + ")" : "") + ":"), entry.acts.map((a) =>
      el("span", { class: "act" }, [a.intent, a.slot ? a.slot + (a.value !== null && a.value !== undefined ? (/^[=<>!]/.test(String(a.value)) ? " " : "=") + a.value : "") : null, a.items && a.items.length ? "[" + a.items.join(", ") + "]" : null].filter(Boolean).join(" "))));
  }
  // a model call, folded: who called which model, tokens and time; unfolded, every
  // message sent (from the run's prompt store) and the completion
  function renderModel(e, store) {
    const u = e.usage || {};
    const head = ["seq " + e.seq, "model call: " + (e.caller || "?") + " → " + (e.model || "?"),
      u.prompt_tokens !== undefined ? fmt(u.prompt_tokens) + " in / " + fmt(u.completion_tokens) + " out tokens" : null,
      typeof e.latency_ms === "number" ? fmt(e.latency_ms, 0) + " ms" : null,
      typeof u.cost_usd === "number" ? "$" + fmt(u.cost_usd, 5) : null,
      e.cache_hit ? "cached" : null, e.error ? "error" : null, e.detail ? "not logged" : null,
      e.not_kept ? "messages not kept" : null].filter(Boolean).join(" · ");
    const sent = e.withheld ? [el("p", { class: "muted" }, "withheld while the task is live (this prompt holds the task)")]
      : e.input ? e.input.map((h) => storedMessage(h, store))
      : [el("p", { class: "muted" }, e.prompt ? "the messages are not in the prompt store" : "no messages logged")];
    return el("details", { class: "model" + (e.error || e.detail || e.not_kept ? " error" : ""), id: "ev-" + e.seq },
      el("summary", {}, head),
      e.detail ? el("p", { class: "why" }, e.detail) : null,
      e.not_kept ? el("p", { class: "fail not-kept" }, "messages not kept: " + e.not_kept) : null,
      e.error ? el("p", { class: "fail" }, "error: " + e.error) : null,
      e.purpose ? el("div", { class: "muted" }, "purpose: " + e.purpose) : null,
      e.settings ? el("div", {}, "settings", el("pre", {}, json(e.settings))) : null,
      el("div", { class: "sent" }, "sent: " + (e.input_messages === undefined ? "?" : e.input_messages) + " messages", sent),
      e.tools ? el("details", { class: "msg-in" }, el("summary", {}, "tools offered"), el("pre", {}, store[e.tools] ? json(store[e.tools]) : "(not in the prompt store)")) : null,
      e.output ? el("div", { class: "completion" }, "completion", messageBody(e.output)) : null);
  }
  function storedMessage(digest, store) {
    const m = store[digest];
    if (m === null || m === undefined) return el("p", { class: "fail" }, "a message not in the prompt store, or altered (sha256 " + digest.slice(0, 12) + "…)");
    const text = typeof m.content === "string" ? m.content : "";
    const gist = (m.role || "?") + ": " + (text.length > 100 ? text.slice(0, 100) + "…" : text || (m.tool_calls ? "(tool calls)" : ""));
    return el("details", { class: "msg-in" }, el("summary", {}, gist), messageBody(m));
  }
  function messageBody(m) {
    const text = typeof m.content === "string" ? m.content : m.content === null || m.content === undefined ? "" : json(m.content);
    return [text ? el("pre", {}, text) : null, m.tool_calls ? el("pre", {}, json(m.tool_calls)) : null];
  }
  function renderEntry(e) {
    if (e.role === "tool") {
      const res = e.result;
      const args = Object.entries(e.arguments || {}).map(([k, v]) => k + "=" + JSON.stringify(v)).join(", ");
      const node = el("details", { class: "tool" + (res && res.is_error ? " error" : ""), id: "ev-" + e.seq },
        el("summary", {}, "seq " + e.seq + " · " + e.name + "(" + (args.length > 90 ? args.slice(0, 90) + "…" : args) + ")" + (res ? (res.is_error ? " → error" : " → result") + (typeof res.ms === "number" ? " · " + fmt(res.ms, res.ms < 10 ? 1 : 0) + " ms" : "") : " → no result")),
        el("div", {}, "arguments", el("pre", {}, json(e.arguments))),
        res ? el("div", { id: "ev-" + res.seq }, "result (seq " + res.seq + ")" + (res.is_error ? ", an error" : ""), el("pre", {}, typeof res.content === "string" ? res.content : json(res.content))) : null);
      return node;
    }
    if (e.role === "end") {
      return el("div", { class: "msg end", id: "ev-" + e.seq }, el("div", { class: "who" }, "seq " + e.seq + " · end"), el("div", { class: "text" }, "ended: " + e.reason + (e.item_id ? " · item " + e.item_id : "") + (e.detail ? " · " + e.detail : "")));
    }
    const cls = "msg " + e.role + (e.delivered === false ? " undelivered" : "");
    const who = e.role === "user" ? "user" : "agent" + (e.delivered === false ? " (not sent to the user)" : "");
    return el("div", { class: cls, id: "ev-" + e.seq }, el("div", { class: "who" }, "seq " + e.seq + " · " + who + (e.left ? " · left" : "")), el("div", { class: "text" }, e.text), renderActs(e));
  }

  let typing = null;
  $("#search").addEventListener("input", (e) => {
    clearTimeout(typing);
    typing = setTimeout(() => { state.search = e.target.value.trim(); fetchWords(); renderList(); }, 150);
  });

  fetchEpisodes();
  if (!BUNDLE) setInterval(fetchEpisodes, POLL_MS);
})();
