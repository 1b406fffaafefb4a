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

  // Versions only grow for a viewer. A board answer older than the one shown (a live push
  // overtaken by the answer to the player's next decision) must not put the old board back.
  function versionOf(root) {
    var el = root && root.querySelector ? root.querySelector("#match-area") : null;
    return el ? parseInt(el.getAttribute("data-version"), 10) : NaN;
  }

  // The log: the page keeps the list it has and adds what an answer brings. Committed lines
  // carry their decision's seq (data-seq); an answer's list holds the lines after its
  // data-log-after, then the acting seat's pending lines (which replace the shown ones).
  function lastSeq(list) {
    var newest = list ? list.querySelector("li[data-seq]:not(.pending)") : null;
    return newest ? parseInt(newest.getAttribute("data-seq"), 10) : 0;
  }

  function mergeLog(kept, fresh) {
    var after = parseInt(fresh.getAttribute("data-log-after"), 10) || 0;
    var last = lastSeq(kept);
    if (after > last) {
      return false; // the answer starts beyond what the page has: fetch what is missing
    }
    kept.querySelectorAll("li.pending, li.empty").forEach(function (li) { li.remove(); });
    var newer = Array.prototype.filter.call(fresh.children, function (li) {
      return li.classList.contains("pending") || parseInt(li.getAttribute("data-seq"), 10) > last;
    });
    if (!newer.length && !kept.querySelector("li")) {
      newer = Array.prototype.slice.call(fresh.children); // "nothing has happened yet"
    }
    var first = kept.firstChild;
    newer.forEach(function (li) { kept.insertBefore(li, first); });
    return true;
  }

  // Put an area answer (or a live push) in place; false when it is older than the shown one
  // or its log does not join the page's (then the page fetches the area with the gap).
  // ``anew``: the answer's log replaces the page's (the page was too far behind).
  function applyArea(html, focusMove, anew) {
    var target = live();
    if (!target) {
      return false;
    }
    var incoming = document.createElement("template");
    incoming.innerHTML = html;
    var shown = area();
    if (shown && versionOf(incoming.content) < parseInt(shown.getAttribute("data-version"), 10)) {
      return false;
    }
    // Pieces are measured where they stand now, so that they can move to their new places.
    document.dispatchEvent(new CustomEvent("drachenhort:before-swap"));
    var kept = document.getElementById("log-list");
    var fresh = incoming.content.querySelector("#log-list");
    if (kept && fresh && !anew) {
      if (!mergeLog(kept, fresh)) {
        refreshArea();
        return false;
      }
      // The page's own list (and its "show earlier" button) stay; the answer's go.
      var freshSection = fresh.closest("section");
      var earlier = kept.closest("section").querySelector("[data-log-before]");
      freshSection.replaceChild(kept, fresh);
      freshSection.querySelectorAll("[data-log-before]").forEach(function (b) { b.remove(); });
      if (earlier) {
        freshSection.appendChild(earlier);
      }
    }
    target.replaceChildren(incoming.content);
    // An area is rendered once for every viewer of its seat (answers and pushes alike): its
    // forms carry no CSRF token, and the page puts its own in.
    target.querySelectorAll('input[name="csrf_token"]').forEach(function (input) {
      if (!input.value) {
        input.value = csrf();
      }
    });
    if (window.htmx) {
      window.htmx.process(target);
    }
    var next = null;
    if (focusMove) {
      next = target.querySelector('[data-move="' + CSS.escape(focusMove) + '"]');
    }
    // With nothing left to choose, Confirm takes the focus (not Undo: a second Enter would take
    // back the decision just made).
    next = next || target.querySelector("[data-move]") ||
      target.querySelector("[data-match-action=confirm]:not([disabled])") ||
      target.querySelector("[data-match-action]:not([disabled])") || target.querySelector("[data-match-action]");
    if (focusMove !== undefined && next && typeof next.focus === "function") {
      next.focus({ preventScroll: true });
    }
    document.dispatchEvent(new CustomEvent("drachenhort:area-swapped"));
    return true;
  }

  // Fetch the area with every line after the page's newest (after a gap, a reconnect, or for
  // a tab shown again); at most one such request at a time.
  var refreshing = false;
  function refreshArea() {
    var a = area();
    if (!a || refreshing) {
      return;
    }
    refreshing = true;
    var url = "/matches/" + a.getAttribute("data-match") + "/area?log_after=" + lastSeq(document.getElementById("log-list"));
    fetch(url, { credentials: "same-origin", headers: { "HX-Request": "true" } }).then(function (response) {
      return response.ok ? response.text() : null;
    }).then(function (html) {
      if (html !== null) {
        var incoming = document.createElement("template");
        incoming.innerHTML = html;
        var fresh = incoming.content.querySelector("#log-list");
        var after = fresh ? parseInt(fresh.getAttribute("data-log-after"), 10) || 0 : 0;
        // Further behind than the server keeps lines for: the newest part, with "show earlier".
        applyArea(html, undefined, after > lastSeq(document.getElementById("log-list")));
      }
    }).catch(function () {
      // the next push or a later look tries again
    }).then(function () {
      refreshing = false;
    });
  }

  window.Drachenhort = { applyArea: applyArea, refreshArea: refreshArea };

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
    body.set("log_after", String(lastSeq(document.getElementById("log-list"))));
    var url = "/matches/" + a.getAttribute("data-match") + "/" + act.path;
    fetch(url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRF-Token": csrf() }
    }).then(function (response) {
      return response.text().then(function (text) {
        if (response.ok || response.status === 409) {
          applyArea(text, act.move || "");
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

  // "Show earlier moves": the page before the oldest line shown, added at the bottom.
  function loadEarlier(button) {
    var a = area();
    var log = document.getElementById("log-list");
    if (!a || !log || button.disabled) {
      return;
    }
    button.disabled = true;
    var url = "/matches/" + a.getAttribute("data-match") + "/log?before=" + button.getAttribute("data-log-before");
    fetch(url, { credentials: "same-origin", headers: { "HX-Request": "true" } }).then(function (response) {
      return response.ok ? response.text() : null;
    }).then(function (html) {
      button.disabled = false;
      if (html === null) {
        return;
      }
      var page = document.createElement("template");
      page.innerHTML = html;
      var list = page.content.querySelector("ol");
      Array.prototype.slice.call(list.children).forEach(function (li) { log.appendChild(li); });
      var after = parseInt(list.getAttribute("data-log-after"), 10) || 0;
      if (after > 0) {
        button.setAttribute("data-log-before", String(after + 1));
      } else {
        button.remove();
      }
    }).catch(function () {
      button.disabled = false;
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target instanceof Element ? event.target.closest("[data-log-before]") : null;
    if (button) {
      event.preventDefault();
      loadEarlier(button);
    }
  });

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
  // A push or a decision swaps the board under a lit line (the log list stays): light its
  // pieces again on the new board.
  document.addEventListener("drachenhort:area-swapped", function () {
    document.querySelectorAll(".log-entry.active[data-pieces]").forEach(function (entry) {
      highlight(entry, true);
    });
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
