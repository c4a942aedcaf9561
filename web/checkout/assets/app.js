// The payer pages' only script: status polling, copy buttons, the USDT
// countdown and the USDT review's reload. Every page works without it (a
// payer reloads by hand) except for those.
(function () {
  "use strict";
  var main = document.getElementById("main");
  if (!main) { return; }

  function show(state) {
    var live = document.querySelectorAll("[data-state=live], [data-live-only]");
    for (var i = 0; i < live.length; i++) { live[i].hidden = state !== "live"; }
    var blocks = document.querySelectorAll("[data-state]");
    for (var j = 0; j < blocks.length; j++) {
      var s = blocks[j].getAttribute("data-state");
      if (s !== "live") { blocks[j].hidden = s !== state; }
    }
  }

  function goAfter(url, ms) {
    if (url) { window.setTimeout(function () { window.location.assign(url); }, ms); }
  }

  // Just after the payer's choice, straight on to the provider's page.
  var autogo = document.querySelector("a[data-autogo]");
  if (autogo) { window.location.assign(autogo.href); return; }

  var redirectMs = parseInt(main.getAttribute("data-redirect-ms") || "1000", 10);

  // A page made for an order paid already goes back to the merchant too.
  var done = document.querySelector("[data-return-now]");
  if (done) { goAfter(done.getAttribute("data-return-now"), redirectMs); }

  var url = main.getAttribute("data-status-url");
  if (url) {
    var every = parseInt(main.getAttribute("data-poll-ms"), 10) || 4000;
    var timeout = parseInt(main.getAttribute("data-timeout-ms"), 10) || 180000;
    var started, timer = null, current = null;

    var poll = function () {
      if (Date.now() - started >= timeout) { stop(); timedOut(); return; }
      fetch(url, { headers: { "Accept": "application/json" }, cache: "no-store", credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (s) { if (s) { seen(s); } })
        .catch(function () { /* the next turn asks again */ });
    };
    // The payment interface stays: the payer may still pay, then check again.
    var timedOut = function () {
      var note = document.querySelector("[data-state=timeout]");
      if (note) { note.hidden = false; }
      var spin = document.querySelector(".poll");
      if (spin) { spin.hidden = true; }
    };
    var stop = function () { if (timer) { window.clearInterval(timer); timer = null; } };
    var start = function () {
      stop(); started = Date.now(); show("live");
      timer = window.setInterval(poll, every);
    };
    var seen = function (s) {
      if (s.status_str === current) { return; }
      current = s.status_str;
      if (s.status_str === "paid" || s.status_str === "failed" || s.status_str === "cancelled") {
        stop(); show(s.status_str);
        var badge = document.querySelector("[data-status-badge]");
        if (badge) { badge.hidden = true; }
        if (s.status_str === "paid") { goAfter(s.next, redirectMs); }
      }
    };
    var again = document.querySelector("[data-check-again]");
    if (again) {
      again.addEventListener("click", function (e) { e.preventDefault(); current = null; start(); poll(); });
    }
    start();
  }

  var copies = document.querySelectorAll("[data-copy]");
  for (var k = 0; k < copies.length; k++) {
    (function (b) {
      if (!navigator.clipboard) { return; }
      b.hidden = false;
      var label = b.textContent;
      b.addEventListener("click", function () {
        navigator.clipboard.writeText(b.getAttribute("data-copy")).then(function () {
          b.textContent = b.getAttribute("data-copied");
          window.setTimeout(function () { b.textContent = label; }, 1500);
        }, function () { /* the value stays selectable on the page */ });
      });
    })(copies[k]);
  }

  // A USDT review under way: look again just after the reviewer's next
  // check, so the payer reads where it stands without reloading by hand.
  var rv = document.querySelector("[data-review-reload]");
  if (rv) {
    window.setTimeout(function () { window.location.reload(); }, parseInt(rv.getAttribute("data-review-reload"), 10) || 15000);
  }

  var cd = document.querySelector("[data-countdown]");
  if (cd) {
    var end = parseInt(cd.getAttribute("data-countdown"), 10);
    var tick = function () {
      var left = Math.max(0, Math.floor((end - Date.now()) / 1000));
      if (left === 0) { cd.textContent = cd.getAttribute("data-expired"); return; }
      var m = Math.floor(left / 60), s = left % 60;
      cd.textContent = m + ":" + (s < 10 ? "0" : "") + s;
      window.setTimeout(tick, 1000);
    };
    tick();
  }
})();
