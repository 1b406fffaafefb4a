// Posting moves from any board, and highlighting the pieces a log line names.
// Loaded by the match page; no inline scripts (the Content-Security-Policy forbids them).
(function () {
  "use strict";

  var busy = false;

  function area() {
    return document.getElementById("match-area");
  }

  function live() {
    return document.getElementById("match-live");
  }

  function requestId() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }

  function csrf() {
    return document.body.getAttribute("data-csrf") || "";
  }

  function flash(html) {
    var box = document.getElementById("flash");
    if (box) {
      box.innerHTML = html;
    }
  }

  function actionOf(el) {
    if (el.hasAttribute("data-move")) {
      return { path: "moves", move: el.getAttribute("data-move") };
    }
    return { path: el.getAttribute("data-match-action"), move: null };
  }

  // Versions only grow for a viewer. A board answer older than the one shown (an SSE refresh
  // overtaken by the answer to the player's next decision) must not put the old board back.
  function isStale(html) {
    var a = area();
    var incoming = /id="match-area"[^>]*data-version="(\d+)"/.exec(html || "");
    var shown = a ? parseInt(a.getAttribute("data-version"), 10) : NaN;
    return incoming !== null && !isNaN(shown) && parseInt(incoming[1], 10) < shown;
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.target === live() && isStale(event.detail.serverResponse)) {
      event.detail.shouldSwap = false;
    }
  });

  function swapArea(html, focusMove) {
    var target = live();
    if (!target || isStale(html)) {
      return;
    }
    target.innerHTML = html;
    if (window.htmx) {
      window.htmx.process(target);
    }
    var next = null;
    if (focusMove) {
      next = target.querySelector('[data-move="' + CSS.escape(focusMove) + '"]');
    }
    next = next || target.querySelector("[data-move]") || target.querySelector("[data-match-action]");
    if (next && typeof next.focus === "function") {
      next.focus({ preventScroll: true });
    }
    document.dispatchEvent(new CustomEvent("drachenhort:area-swapped"));
  }

  function post(el) {
    var a = area();
    if (busy || !a || el.getAttribute("aria-disabled") === "true" || el.disabled) {
      return;
    }
    var act = actionOf(el);
    if (!act.path) {
      return;
    }
    busy = true;
    a.setAttribute("aria-busy", "true");
    var body = new URLSearchParams();
    if (act.move !== null) {
      body.set("move", act.move);
    }
    body.set("expected_version", a.getAttribute("data-version"));
    body.set("request_id", requestId());
    body.set("csrf_token", csrf());
    var url = "/matches/" + a.getAttribute("data-match") + "/" + act.path;
    fetch(url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRF-Token": csrf() }
    }).then(function (response) {
      return response.text().then(function (text) {
        if (response.ok || response.status === 409) {
          swapArea(text, act.move);
          if (response.ok) {
            flash("");
          }
        } else {
          flash(text);
        }
      });
    }).catch(function () {
      flash('<p class="flash error" role="alert">' + (a.getAttribute("data-msg-network") || "Network error") + "</p>");
    }).then(function () {
      busy = false;
      var now = area();
      if (now) {
        now.removeAttribute("aria-busy");
      }
    });
  }

  function actionable(target) {
    if (!(target instanceof Element)) {
      return null;
    }
    var el = target.closest("[data-move], [data-match-action]");
    if (!el || !el.closest("#match-area")) {
      return null;
    }
    return el;
  }

  document.addEventListener("click", function (event) {
    var el = actionable(event.target);
    if (el) {
      event.preventDefault();
      // The second click of a double click (detail 2) may land on the fresh board: it is not
      // a second decision. Keyboard activation has detail 0.
      if (event.detail <= 1) {
        post(el);
      }
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" && event.key !== " ") {
      return;
    }
    var el = actionable(event.target);
    // Buttons and links activate themselves (a click event follows): posting here too would post twice.
    if (el && el.tagName !== "BUTTON" && el.tagName !== "A" && el.tagName !== "INPUT") {
      event.preventDefault();
      post(el);
    }
  });

  // Log lines name pieces in data-pieces; hovering, focusing or clicking one highlights them.
  // A board element may carry several names in its data-piece (space-separated).
  var pinned = null;

  function pieces(entry) {
    return (entry.getAttribute("data-pieces") || "").split(/\s+/).filter(Boolean);
  }

  function highlight(entry, on) {
    pieces(entry).forEach(function (piece) {
      document.querySelectorAll('[data-piece~="' + CSS.escape(piece) + '"]').forEach(function (el) {
        el.classList.toggle("highlight", on);
      });
    });
    entry.classList.toggle("active", on);
  }

  function logEntry(target) {
    return target instanceof Element ? target.closest("[data-pieces]") : null;
  }

  document.addEventListener("mouseover", function (event) {
    var entry = logEntry(event.target);
    if (entry && entry !== pinned) {
      highlight(entry, true);
    }
  });
  document.addEventListener("mouseout", function (event) {
    var entry = logEntry(event.target);
    if (entry && entry !== pinned && !entry.contains(event.relatedTarget)) {
      highlight(entry, false);
    }
  });
  document.addEventListener("focusin", function (event) {
    var entry = logEntry(event.target);
    if (entry) {
      highlight(entry, true);
    }
  });
  document.addEventListener("focusout", function (event) {
    var entry = logEntry(event.target);
    if (entry && entry !== pinned) {
      highlight(entry, false);
    }
  });
  document.addEventListener("click", function (event) {
    var entry = logEntry(event.target);
    if (!entry) {
      return;
    }
    if (pinned && pinned !== entry) {
      highlight(pinned, false);
    }
    pinned = pinned === entry ? null : entry;
    highlight(entry, pinned === entry);
  });
})();
