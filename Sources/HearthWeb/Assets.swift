import Foundation
import HearthHTTP

/// The stylesheet and the script, embedded in the binary: no build step, no framework,
/// nothing fetched from elsewhere (the Content-Security-Policy allows this server alone).
enum Assets {
  static func response(_ name: String) -> HTTPResponse {
    switch name {
    case "app.css": .text(200, css, type: "text/css; charset=utf-8")
    case "app.js": .text(200, script, type: "text/javascript; charset=utf-8")
    case "favicon.ico": .body(status: 204, headers: [], body: Data())
    default: .text(404, "no such file\n")
    }
  }

  static let css = """
    :root { --ink: #1d1d1f; --muted: #6e6e73; --line: #d2d2d7; --accent: #b4451f; --new: #fff4d6; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: var(--ink); background: #fbfbfa; }
    header { display: flex; justify-content: space-between; align-items: center; padding: .6rem 1.2rem;
      border-bottom: 1px solid var(--line); background: #fff; position: sticky; top: 0; }
    nav a { margin-right: 1rem; color: var(--ink); text-decoration: none; }
    nav a.brand { font-weight: 700; color: var(--accent); }
    main { padding: 1rem 1.2rem 3rem; max-width: 90rem; }
    h1 { font-size: 1.5rem; margin: .4rem 0 1rem; }
    h2 { font-size: 1.15rem; margin-top: 2rem; }
    table { border-collapse: collapse; margin: .5rem 0; }
    th, td { text-align: left; padding: .25rem .7rem .25rem 0; border-bottom: 1px solid var(--line);
      vertical-align: top; }
    th a { color: var(--ink); }
    td.n { text-align: right; }
    table.rows td { max-width: 22rem; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    table.facts th { color: var(--muted); font-weight: normal; padding-right: 1.5rem; }
    .live { font-size: .85rem; color: var(--muted); }
    .live.on::before { content: "● "; color: #2e8b57; }
    .live.off::before { content: "● "; color: var(--accent); }
    .up { color: #2e8b57; font-weight: 600; }
    .down, .error { color: var(--accent); font-weight: 600; }
    .null, .blob { color: var(--muted); font-style: italic; }
    .key-revoked { color: var(--accent); }
    tr.new, li.new { background: var(--new); transition: background 2s; }
    tr.gone { text-decoration: line-through; color: var(--muted); }
    ol.feed { list-style: none; padding: 0; }
    ol.feed > li { padding: .3rem 0; border-bottom: 1px solid var(--line); }
    ol.feed ul { margin: .1rem 0 0 1.5rem; padding: 0; }
    .seq { font-variant-numeric: tabular-nums; color: var(--muted); }
    .plugin { font-weight: 600; }
    meter { width: 10rem; vertical-align: middle; }
    form.search input { width: 20rem; padding: .25rem; }
    code { background: #f0f0ee; padding: 0 .25rem; }
    """

  /// One stream per page (`/events`), resumed by the browser with `Last-Event-ID`; events
  /// gathered and applied once per animation frame; every value set as text, never as HTML.
  static let script = """
    "use strict";
    (function () {
      const body = document.body;
      const page = body.dataset.page;
      const live = document.getElementById("live");
      if (!["hub", "feed", "table"].includes(page)) {
        if (live) live.textContent = "";
        return;
      }
      const table = body.dataset.table;
      let url = "/events?since=" + encodeURIComponent(body.dataset.seq || "0");
      if (page === "table") url += "&table=" + encodeURIComponent(table);
      const source = new EventSource(url);
      const queue = [];
      let scheduled = false;
      const arrivals = [];

      source.onopen = function () { live.textContent = "live"; live.className = "live on"; };
      source.onerror = function () { live.textContent = "reconnecting…"; live.className = "live off"; };
      source.addEventListener("commit", function (message) {
        queue.push(JSON.parse(message.data));
        if (!scheduled) { scheduled = true; requestAnimationFrame(flush); }
      });
      source.addEventListener("reload", function () { location.reload(); });

      function flush() {
        scheduled = false;
        const batch = queue.splice(0, queue.length);
        for (const event of batch) {
          if (page === "table") applyRows(event); else addCommit(event);
        }
        if (batch.length && page === "hub") updateHub(batch[batch.length - 1]);
      }

      function element(tag, text, className) {
        const node = document.createElement(tag);
        if (text !== undefined) node.textContent = text;
        if (className) node.className = className;
        return node;
      }

      function addCommit(event) {
        const list = document.getElementById("feed");
        if (!list || list.querySelector('li[data-seq="' + event.seq + '"]')) return;
        const item = element("li", undefined, "new");
        item.dataset.seq = event.seq;
        item.dataset.at = event.at;
        item.append(element("span", "#" + event.seq, "seq"), " ",
          element("time", new Date(event.at).toLocaleString()), " ",
          element("span", event.plugin, "plugin"));
        const tables = element("ul");
        for (const name of Object.keys(event.tables).sort()) {
          const entry = event.tables[name];
          const line = element("li");
          const link = element("a", name);
          link.href = "/tables/" + encodeURIComponent(name);
          const counts = ["inserted", "updated", "deleted"].filter(function (kind) { return entry[kind] > 0; })
            .map(function (kind) { return entry[kind] + " " + kind; }).join(", ");
          line.append(link, " " + counts + (entry.columns ? " (" + entry.columns.join(", ") + ")" : ""));
          tables.append(line);
        }
        item.append(tables);
        list.prepend(item);
        const limit = page === "hub" ? 20 : 5000;
        while (list.children.length > limit) list.lastElementChild.remove();
      }

      function updateHub(event) {
        const seq = document.getElementById("seq");
        if (seq) seq.textContent = String(event.seq);
        const now = Date.now();
        arrivals.push(now);
        while (arrivals.length && arrivals[0] < now - 10000) arrivals.shift();
        const rate = document.getElementById("rate");
        if (rate) rate.textContent = (arrivals.length / 10).toFixed(1) + " a second (last 10 s, live)";
      }

      function cell(value) {
        const td = element("td");
        if (value === null) td.append(element("span", "NULL", "null"));
        else if (typeof value === "object") td.append(element("span", "blob, " + value.blob + " bytes", "blob"));
        else {
          const text = String(value);
          td.textContent = text.length > 120 ? text.slice(0, 119) + "…" : text;
        }
        return td;
      }

      // A row of the table: its key as a link to its page, then its values.
      function rowElement(row) {
        const tr = element("tr");
        tr.dataset.key = row.key;
        const first = element("td");
        const link = element("a", row.key);
        link.href = "/tables/" + encodeURIComponent(table) + "/" + row.key;
        first.append(link);
        tr.append(first);
        for (const value of row.values) tr.append(cell(value));
        return tr;
      }

      function applyRows(event) {
        const rows = document.getElementById("rows");
        if (!rows) return;
        if (event.refetch) { refetch(); return; }
        for (const key of event.deleted || []) {
          const gone = rows.querySelector('tr[data-key="' + CSS.escape(key) + '"]');
          if (gone) gone.remove();
        }
        for (const row of (event.rows || []).slice().reverse()) {
          const tr = rowElement(row);
          tr.dataset.seq = event.seq;
          tr.dataset.at = event.at;
          const existing = rows.querySelector('tr[data-key="' + CSS.escape(row.key) + '"]');
          if (existing) existing.replaceWith(tr);
          else { tr.className = "new"; rows.prepend(tr); }
        }
      }

      let refetching = false;
      function refetch() {
        if (refetching) return;
        refetching = true;
        fetch(location.pathname + ".json" + location.search, { credentials: "same-origin" })
          .then(function (response) { return response.json(); })
          .then(function (data) {
            const fresh = document.createDocumentFragment();
            for (const row of data.rows) fresh.append(rowElement(row));
            document.getElementById("rows").replaceChildren(fresh);
          })
          .finally(function () { refetching = false; });
      }
    })();
    """
}
