// Live updates for this tab: the board area, the clock, the chat and the header's badges.
// The stream is shared by all tabs of the site through static/js/live-worker.js; where a
// browser has no SharedWorker, the tab keeps a stream of its own while it is visible (hidden
// tabs let theirs go and catch up when shown again), so open tabs never use up the six
// HTTP/1.1 connections a browser allows per host.
(function () {
  "use strict";

  var HIDDEN_GRACE_MS = 10000;
  var PING_MS = 20000;
  var hiddenSince = null;
  var shared = false;

  function topics() {
    var matches = [];
    document.querySelectorAll("[data-live-match]").forEach(function (el) {
      matches.push(el.getAttribute("data-live-match"));
    });
    var user = document.body.getAttribute("data-user") || "";
    return { type: "topics", matches: matches, me: user !== "", user: user };
  }

  function csrf() {
    return document.body.getAttribute("data-csrf") || "";
  }

  // Pushed fragments are shared by every tab and session of one seat: they carry no CSRF
  // token, and each page puts its own into their forms (board.js does so for the area).
  function withToken(root) {
    root.querySelectorAll('input[name="csrf_token"]').forEach(function (input) {
      if (!input.value) {
        input.value = csrf();
      }
    });
  }

  function shownVersion(matchId) {
    var area = document.getElementById("match-area");
    if (!area || area.getAttribute("data-match") !== String(matchId)) {
      return null;
    }
    return parseInt(area.getAttribute("data-version"), 10);
  }

  function refreshArea() {
    if (window.Drachenhort && window.Drachenhort.refreshArea) {
      window.Drachenhort.refreshArea();
    }
  }

  function onArea(data) {
    var shown = shownVersion(data.match);
    if (shown === null || data.version <= shown || !window.Drachenhort) {
      return;
    }
    var applied = window.Drachenhort.applyArea(data.area);
    if (!applied) {
      return;
    }
    var clock = document.getElementById("clock-slot");
    if (clock && data.clock) {
      clock.innerHTML = data.clock;
      withToken(clock);
      if (window.htmx) {
        window.htmx.process(clock);
      }
    }
  }

  function onHello(versions) {
    var area = document.getElementById("match-area");
    if (!area) {
      return;
    }
    var id = area.getAttribute("data-match");
    if (versions[id] !== undefined && versions[id] > shownVersion(id)) {
      refreshArea();
    }
  }

  function onMe(data) {
    var turn = document.getElementById("turn-badge");
    var unread = document.getElementById("unread-badge");
    if (turn && data.turn !== undefined) {
      turn.innerHTML = data.turn;
    }
    if (unread && data.unread !== undefined) {
      unread.innerHTML = data.unread;
    }
    document.body.dispatchEvent(new CustomEvent("drachenhort:me", { bubbles: true }));
  }

  function onChat() {
    var chat = document.getElementById("chat");
    if (chat && window.htmx) {
      window.htmx.trigger(chat, "drachenhort:chat");
    }
  }

  function handle(name, data) {
    if (name === "hello") {
      onHello(data);
    } else if (name === "area") {
      onArea(data);
    } else if (name === "me") {
      onMe(data);
    } else if (name === "chat") {
      onChat();
    } else if (name === "stale") {
      refreshArea();
    }
  }

  var wanted = topics();
  if (!wanted.matches.length && !wanted.me) {
    return;
  }

  function viaWorker() {
    var worker = new SharedWorker("/static/js/live-worker.js", { name: "drachenhort-live" });
    var port = worker.port;
    port.addEventListener("message", function (message) {
      var data = message.data || {};
      if (data.type === "event") {
        handle(data.name, data.data);
      }
    });
    port.start();
    port.postMessage(topics());
    setInterval(function () { port.postMessage({ type: "ping" }); }, PING_MS);
    window.addEventListener("pagehide", function () { port.postMessage({ type: "bye" }); });
    window.addEventListener("pageshow", function (event) {
      if (event.persisted) {
        port.postMessage(topics()); // back from the back-forward cache
      }
    });
  }

  function viaOwnStream() {
    var source = null;
    var closing = null;
    function open() {
      if (source) {
        return;
      }
      var query = wanted.matches.map(function (id) { return "m=" + encodeURIComponent(id); });
      if (wanted.me) {
        query.push("me=1");
      }
      source = new EventSource("/sse/live?" + query.join("&"));
      ["hello", "area", "me", "chat", "stale"].forEach(function (name) {
        source.addEventListener(name, function (event) {
          try {
            handle(name, JSON.parse(event.data));
          } catch (error) {
            // a malformed event is dropped; the next hello catches up
          }
        });
      });
    }
    function close() {
      if (source) {
        source.close();
        source = null;
      }
    }
    document.addEventListener("visibilitychange", function () {
      if (document.hidden) {
        closing = setTimeout(close, HIDDEN_GRACE_MS);
      } else {
        clearTimeout(closing);
        open(); // its hello tells whether this tab missed something
      }
    });
    if (!document.hidden) {
      open();
    }
    window.addEventListener("pagehide", close);
  }

  // A tab the browser froze while hidden may have missed events: look again when it is shown.
  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      hiddenSince = Date.now();
    } else if (shared && hiddenSince !== null && Date.now() - hiddenSince > HIDDEN_GRACE_MS) {
      hiddenSince = null;
      refreshArea();
      onChat();
      document.querySelectorAll("[data-live-refresh]").forEach(function (el) {
        if (window.htmx) {
          window.htmx.trigger(el, "drachenhort:refresh");
        }
      });
    }
  });

  if (typeof SharedWorker === "function") {
    try {
      viaWorker();
      shared = true;
      return;
    } catch (error) {
      // fall through: a stream of this tab's own
    }
  }
  viaOwnStream();
})();
