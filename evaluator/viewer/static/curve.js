// Learning curves of stream (BIEL) episodes for the viewer: a stream is read as its regret
// episode by episode (0 = the best item), not as pass/fail. The numbers match
// `evaluator score`: the average regret over every episode of every stream, and the
// least-squares slope of the mean regret on the episode index (negative: it learns).
// Drawn as small inline SVG, built from DOM nodes (no markup strings, nothing fetched).
"use strict";

(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const REGRET = /^regret@(\d+)$/;

  // [[episode index, regret], ...] of one list row, in episode order ([] when withheld)
  function regrets(row) {
    return Object.entries(row.metrics || {})
      .map(([name, value]) => [REGRET.exec(name), value])
      .filter(([m, value]) => m && typeof value === "number")
      .map(([m, value]) => [Number(m[1]), value])
      .sort((a, b) => a[0] - b[0]);
  }
  const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

  // the mean regret at each episode index over streams: [[index, mean], ...]
  function meanCurve(streams) {
    const at = new Map();
    for (const points of streams) for (const [k, r] of points) at.set(k, [...(at.get(k) || []), r]);
    return [...at.keys()].sort((a, b) => a - b).map((k) => [k, mean(at.get(k))]);
  }
  // ordinary least squares slope of y on x; null under two points
  function slope(points) {
    if (points.length < 2) return null;
    const mx = mean(points.map((p) => p[0])), my = mean(points.map((p) => p[1]));
    const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
    return sxx ? points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / sxx : null;
  }
  // a group of stream rows: how many have regrets, their average, slope and mean curve
  function summary(rows) {
    const streams = rows.map(regrets).filter((s) => s.length);
    const curve = meanCurve(streams);
    return { streams: streams.length, avg: mean(streams.flat().map((p) => p[1])), slope: slope(curve), curve };
  }

  function node(tag, attrs, text) {
    const n = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
    if (text !== undefined) n.textContent = text;
    return n;
  }
  // A curve of [[index, regret], ...] as an SVG of `width` x `height` px. `opts.axes`:
  // label the regret scale and the episodes; `opts.href(index)`: each point links there.
  function draw(points, width, height, opts) {
    opts = opts || {};
    const pad = opts.axes ? { l: 34, r: 8, t: 8, b: 18 } : { l: 2, r: 2, t: 2, b: 2 };
    const svg = node("svg", { class: "curve", width, height, viewBox: `0 0 ${width} ${height}`, role: "img" });
    const label = opts.title || "regret by episode: " + points.map(([k, r]) => k + ": " + fmt(r)).join(", ");
    svg.append(node("title", {}, label));
    if (!points.length) return svg;
    const top = Math.max(...points.map((p) => p[1]), 1e-9);
    const first = points[0][0], last = points[points.length - 1][0];
    const x = (k) => pad.l + (last === first ? 0.5 : (k - first) / (last - first)) * (width - pad.l - pad.r);
    const y = (r) => pad.t + (1 - r / top) * (height - pad.t - pad.b);
    svg.append(node("line", { class: "zero", x1: pad.l, x2: width - pad.r, y1: y(0), y2: y(0) }));
    if (opts.axes) {
      svg.append(node("text", { x: pad.l - 4, y: y(top) + 4, "text-anchor": "end" }, fmt(Number(top.toPrecision(3)))));
      svg.append(node("text", { x: pad.l - 4, y: y(0), "text-anchor": "end" }, "0"));
      svg.append(node("text", { x: pad.l, y: height - 3 }, "episode " + first));
      svg.append(node("text", { x: width - pad.r, y: height - 3, "text-anchor": "end" }, String(last)));
    }
    svg.append(node("polyline", { points: points.map(([k, r]) => x(k) + "," + y(r)).join(" ") }));
    for (const [k, r] of points) {
      const dot = node("circle", { cx: x(k), cy: y(r), r: opts.axes ? 3.5 : 1.8 });
      dot.append(node("title", {}, "episode " + k + ": regret " + fmt(r)));
      const target = opts.href && opts.href(k);
      if (target) {
        const link = node("a", { href: target });
        link.append(dot);
        svg.append(link);
      } else svg.append(dot);
    }
    return svg;
  }
  function fmt(v) { return v === null || v === undefined ? "–" : Number.isInteger(v) ? String(v) : v.toFixed(2); }

  window.taurecCurve = { regrets, mean, meanCurve, slope, summary, draw, fmt };
})();
