// The orders page's live feed: new and changed orders arrive by
// server-sent events and are put into the table without a reload. Rows are
// built with DOM calls (textContent), never from HTML strings.
"use strict";
(function () {
  const table = document.querySelector("table[data-live-url]");
  if (!table || !window.EventSource) return;
  const body = table.tBodies[0];
  const status = document.querySelector("[data-live-status]");
  const words = document.getElementById("status-words");
  const word = (k) => {
    const e = words && words.content.querySelector('[data-word="' + k + '"]');
    return e ? e.textContent : k;
  };
  const prepend = table.dataset.livePrepend === "1";
  const base = table.dataset.orderBase;
  const limit = body.rows.length > 0 ? Math.max(body.rows.length, 25) : 25;
  if (status) status.textContent = word("new-orders");

  function badge(st) {
    const b = document.createElement("span");
    b.className = "badge " + st;
    b.textContent = word(st);
    return b;
  }
  const labels = Array.from(table.tHead.rows[0].cells).map((th) => th.textContent);
  function cell(row, text, cls) {
    const td = row.insertCell();
    td.dataset.label = labels[td.cellIndex] || "";
    if (cls) td.className = cls;
    if (text !== undefined) td.textContent = text;
    return td;
  }
  function newRow(o) {
    const row = document.createElement("tr");
    row.dataset.id = o.id;
    cell(row, o.created);
    const a = document.createElement("a");
    a.href = base + encodeURIComponent(o.id);
    const code = document.createElement("code");
    code.textContent = o.id;
    a.appendChild(code);
    cell(row).appendChild(a);
    cell(row, o.clientOrderId);
    cell(row, o.amount + " " + o.currency, "num");
    cell(row, o.method);
    const st = cell(row);
    st.dataset.status = "";
    st.appendChild(badge(o.status));
    return row;
  }
  const feed = new EventSource(table.dataset.liveUrl);
  feed.addEventListener("order", (ev) => {
    const o = JSON.parse(ev.data);
    const row = Array.from(body.rows).find((r) => r.dataset.id === o.id);
    if (row) {
      const st = row.querySelector("[data-status]");
      st.replaceChildren(badge(o.status));
      row.classList.add("changed");
      return;
    }
    if (!prepend || o.event !== "created") return;
    const empty = body.querySelector("[data-empty]");
    if (empty) empty.remove();
    const r = newRow(o);
    r.classList.add("changed");
    body.insertBefore(r, body.firstChild);
    while (body.rows.length > limit) body.deleteRow(body.rows.length - 1);
  });
  // A closed feed is a session that ended (the server answers 204): the
  // reload goes to the login page and back here after it.
  feed.onerror = () => {
    if (feed.readyState === EventSource.CLOSED) location.reload();
  };
})();
