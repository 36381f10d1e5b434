// The query page's plan graph: fragments as boxes (with their instances
// per backend and operators), exchanges as arrows labelled with their kind
// and estimated vs measured rows and bytes, laid out by dagre. A running
// query's counters are polled from /ui/api/query/{id} and redrawn.
(function () {
  "use strict";
  const svgNS = "http://www.w3.org/2000/svg";
  const charW = 7.2, lineH = 15;

  function human(n) {
    if (n < 0) return "?";
    if (n < 1024) return n + " B";
    let f = n, i = -1;
    while (f >= 1024 && i < 4) { f /= 1024; i++; }
    return f.toFixed(1) + " " + "KMGTP"[i] + "B";
  }
  const est = (n) => (n < 0 ? "?" : String(n));

  function fragmentLines(f) {
    const lines = ["Fragment " + f.id + "  " + f.partition];
    for (const i of f.instances || []) lines.push("  " + i.backend + ": " + i.count + " instance" + (i.count === 1 ? "" : "s"));
    if (!(f.instances || []).length) lines.push("  (no instance reported yet)");
    for (const n of f.nodes) {
      let l = n.id + ":" + n.label;
      if (n.join) l += " [" + n.join.distribution + "]";
      lines.push(l + "  rows=" + n.rows + "  " + n.time_ms.toFixed(1) + " ms");
    }
    return lines;
  }

  function exchangeLabel(x) {
    return x.kind + " · est " + est(x.est_rows) + " rows / " + human(x.est_bytes) + " → " + x.rows + " rows / " + human(x.bytes);
  }

  function el(name, attrs, text) {
    const e = document.createElementNS(svgNS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function draw(q) {
    if (!q.fragments || !q.fragments.length) return; // a statement without a drawn plan
    const g = new dagre.graphlib.Graph();
    g.setGraph({ rankdir: "BT", nodesep: 40, ranksep: 80, marginx: 12, marginy: 12 });
    g.setDefaultEdgeLabel(() => ({}));
    for (const f of q.fragments) {
      const lines = fragmentLines(f);
      const w = Math.max(...lines.map((l) => l.length)) * charW + 24;
      g.setNode("f" + f.id, { width: w, height: lines.length * lineH + 16, lines: lines, f: f });
    }
    for (const f of q.fragments) {
      if (!f.exchange) continue;
      const label = exchangeLabel(f.exchange);
      g.setEdge("f" + f.id, "f" + f.exchange.to, { label: label, width: label.length * charW, height: lineH, labelpos: "c", xch: f.exchange });
    }
    dagre.layout(g);
    const svg = document.getElementById("plan-graph");
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute("width", Math.ceil(g.graph().width));
    svg.setAttribute("height", Math.ceil(g.graph().height));
    const defs = el("defs", {});
    const marker = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 8, markerHeight: 8, orient: "auto" });
    marker.appendChild(el("path", { d: "M0,0 L10,5 L0,10 z" }));
    defs.appendChild(marker);
    svg.appendChild(defs);
    for (const e of g.edges()) {
      const ed = g.edge(e); // dagre sets the label's centre as ed.x, ed.y
      const d = ed.points.map((p, i) => (i ? "L" : "M") + p.x + "," + p.y).join(" ");
      const grp = el("g", { class: "exchange-edge kind-" + ed.xch.kind.replace(/ /g, "-"), "data-exchange": ed.xch.id });
      grp.appendChild(el("path", { d: d, "marker-end": "url(#arrow)" }));
      grp.appendChild(el("text", { class: "edge-label", x: ed.x, y: ed.y + 4, "text-anchor": "middle" }, ed.label));
      svg.appendChild(grp);
    }
    for (const id of g.nodes()) {
      const n = g.node(id);
      const grp = el("g", { class: "fragment-box", "data-fragment": n.f.id, transform: "translate(" + (n.x - n.width / 2) + "," + (n.y - n.height / 2) + ")" });
      grp.appendChild(el("rect", { width: n.width, height: n.height, rx: 6 }));
      n.lines.forEach((l, i) => grp.appendChild(el("text", { x: 10, y: 20 + i * lineH, class: i ? "line" : "title" }, l)));
      svg.appendChild(grp);
    }
  }
  // live copies a polled query's counters into the page's cells.
  function live(q) {
    const vals = { state: q.query.state, time_ms: q.query.time_ms, rows: q.query.rows, bytes: human(q.query.bytes) };
    for (const f of q.fragments || []) {
      const x = f.exchange;
      if (x) {
        vals["x" + x.id + ".rows"] = x.rows;
        vals["x" + x.id + ".bytes"] = human(x.bytes);
        vals["x" + x.id + ".wire_bytes"] = human(x.wire_bytes);
        vals["x" + x.id + ".blocked_ms"] = x.blocked_ms.toFixed(1);
      }
      for (const n of f.nodes) {
        vals["n" + n.id + ".rows"] = n.rows;
        vals["n" + n.id + ".time_ms"] = n.time_ms.toFixed(1);
        vals["n" + n.id + ".peak_mem"] = human(n.peak_mem);
        vals["n" + n.id + ".instances"] = n.instances;
      }
      const body = document.querySelector('[data-live-instances="' + f.id + '"]');
      if (body && (f.instances || []).length) {
        body.innerHTML = "";
        for (const i of f.instances) {
          const tr = document.createElement("tr");
          for (const v of [i.backend, i.count, i.wall_ms.toFixed(1), i.rows, human(i.bytes)]) {
            const td = document.createElement("td");
            td.textContent = v;
            tr.appendChild(td);
          }
          body.appendChild(tr);
        }
      }
    }
    for (const cell of document.querySelectorAll("[data-live]")) {
      const v = vals[cell.dataset.live];
      if (v !== undefined) cell.textContent = v;
    }
  }

  function poll(q) {
    if (q.query.state !== "RUNNING") return;
    setTimeout(() => {
      fetch("/ui/api/query/" + encodeURIComponent(q.query.query_id), { credentials: "same-origin" })
        .then((r) => (r.ok ? r.json() : Promise.reject(r.status)))
        .then((next) => { draw(next); live(next); poll(next); })
        .catch(() => setTimeout(() => poll(q), 2000));
    }, 1000);
  }

  draw(window.QUERY);
  poll(window.QUERY);
})();
