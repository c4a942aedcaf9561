// The orders page's and the live page's feed: new and changed orders arrive by
// server-sent events, a batch a poll, and are put into the table without a
// reload. Rows are
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
  const has = (k) => !!(words && words.content.querySelector('[data-word="' + k + '"]'));
  const say = (k) => {
    if (status && has(k) && !status.querySelector("[data-live-reload]")) status.textContent = word(k);
  };
  if (status && !status.textContent.trim()) status.textContent = word("new-orders");

  // A method by its payers' name, the code in its tooltip, as the page
  // shows it.
  const methodName = (m) => {
    const e = words && words.content.querySelector('[data-method="' + m + '"]');
    return e ? e.textContent : m;
  };
  function method(td, m) {
    const s = document.createElement("span");
    s.title = m;
    s.dataset.method = m;
    s.textContent = methodName(m);
    td.replaceChildren(s);
  }
  // A time (the feed's UTC "2026-11-28 10:42:05") in the viewer's zone, as
  // the frame's helper writes it: "2026-11-28 18:42:05 GMT+8".
  const zone = table.dataset.zone || "UTC";
  function when(td, s) {
    const d = new Date(String(s).replace(" ", "T") + "Z");
    if (!s || isNaN(d)) {
      td.textContent = s || "";
      return;
    }
    let parts;
    try {
      parts = new Intl.DateTimeFormat("en-US", {timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit",
        day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "shortOffset"}).formatToParts(d);
    } catch (e) {
      td.textContent = s + " UTC";
      return;
    }
    const p = {};
    parts.forEach((x) => { p[x.type] = x.value; });
    const off = p.timeZoneName === "GMT" ? "UTC" : p.timeZoneName;
    const t = document.createElement("time");
    t.dateTime = d.toISOString().replace(".000Z", "Z");
    t.title = zone;
    t.textContent = p.year + "-" + p.month + "-" + p.day + " " + p.hour + ":" + p.minute + ":" + p.second + " " + off;
    td.replaceChildren(t);
  }
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
    when(cell(row, undefined, "c-created"), o.created);
    const a = document.createElement("a");
    a.href = base + encodeURIComponent(o.id);
    a.title = o.id;
    const code = document.createElement("code");
    code.className = "oneline";
    code.textContent = o.id;
    a.appendChild(code);
    cell(row, undefined, "c-id").appendChild(a);
    cell(row, o.clientOrderId, "c-client");
    cell(row, o.amount + " " + o.currency, "num c-amount");
    method(cell(row, undefined, "c-method"), o.method);
    const st = cell(row, undefined, "c-status");
    st.dataset.status = "";
    st.appendChild(badge(o.status));
    return row;
  }
  // One message a poll: the latest state of each order that changed,
  // oldest first, so each new order put on top leaves the newest on top.
  function apply(o) {
    const row = Array.from(body.rows).find((r) => r.dataset.id === o.id);
    if (row) {
      const st = row.querySelector("[data-status]");
      // The feed carries no refunded amount: a paid order keeps the refund
      // state its badge already reads.
      const refundState = st.querySelector(".badge.partially_refunded, .badge.refunded");
      if (!(o.status === "paid" && refundState)) st.replaceChildren(badge(o.status));
      const m = row.querySelector(".c-method");
      if (m && o.method) method(m, o.method);
      row.classList.add("changed");
      return;
    }
    if (!prepend || !o.new) return;
    const empty = body.querySelector("[data-empty]");
    if (empty) empty.remove();
    const r = newRow(o);
    r.classList.add("changed");
    body.insertBefore(r, body.firstChild);
    while (body.rows.length > limit) body.deleteRow(body.rows.length - 1);
    count();
  }
  // The pager counts the rows the page shows: a new order on top is one
  // more row of one more in all.
  const rows = document.querySelector("[data-rows]");
  function count() {
    if (!rows) return;
    const total = Number(rows.dataset.total) + 1;
    const shown = body.querySelectorAll("tr[data-id]").length;
    rows.dataset.total = String(total);
    rows.dataset.from = shown > 0 ? "1" : "0";
    rows.dataset.to = String(shown);
    rows.textContent = rows.dataset.format.replace("{From}", rows.dataset.from).replace("{To}", rows.dataset.to).replace("{Total}", total);
  }
  // The message did not carry every change (more than a page, or this
  // browser fell behind): the table may be stale, and the person is
  // offered a reload rather than having the page move under them.
  function askReload() {
    if (!status || status.querySelector("[data-live-reload]")) return;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "btn secondary";
    b.dataset.liveReload = "";
    b.textContent = word("reload");
    b.addEventListener("click", () => location.reload());
    status.replaceChildren(word("reload-hint") + " ", b);
  }
  const feed = new EventSource(table.dataset.liveUrl);
  feed.addEventListener("orders", (ev) => {
    const msg = JSON.parse(ev.data);
    (msg.orders || []).forEach(apply);
    if (msg.reload) askReload();
  });
  // A closed feed is a session that ended (the server answers 204): the
  // reload goes to the login page and back here after it.
  // data-live-open says the server holds this page's subscription: an
  // order made from then on reaches the table.
  feed.onopen = () => {
    if (status) status.dataset.liveOpen = "";
    say("new-orders");
  };
  feed.onerror = () => {
    if (status) delete status.dataset.liveOpen;
    if (feed.readyState === EventSource.CLOSED) location.reload();
    else say("lost"); // the browser reconnects by itself
  };
})();
