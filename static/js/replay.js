// The replay page: stepping swaps the frame (board, the step's lines, the newest page of its log)
// without a page load; each step costs the same whatever its number (app/services/replays.py).
// Buttons, the slider, arrow keys and autoplay all end in show(step); the address bar keeps
// ?step=N so that the link can be shared. Without scripts the links and the form still work.
(function () {
  "use strict";

  var nav = document.querySelector("[data-replay-nav]");
  var frame = document.querySelector("[data-replay-frame]");
  if (!nav || !frame) {
    return;
  }
  var match = nav.getAttribute("data-match");
  var slider = nav.querySelector("#replay-step");
  var count = nav.querySelector("[data-replay-count]");
  var play = nav.querySelector("[data-replay-play]");
  var speed = nav.querySelector("[data-replay-speed]");
  var shown = parseInt(slider.value, 10);
  var steps = parseInt(slider.max, 10);
  var wanted = null;
  var loading = false;
  var fetching = 0;
  var timer = null;

  function href(step) {
    return "/matches/" + match + "/replay?step=" + step;
  }

  function setLink(which, step, enabled) {
    var link = nav.querySelector('[data-replay="' + which + '"]');
    if (enabled) {
      link.setAttribute("href", href(step));
      link.removeAttribute("aria-disabled");
    } else {
      link.removeAttribute("href");
      link.setAttribute("aria-disabled", "true");
    }
  }

  function update(grid) {
    shown = parseInt(grid.getAttribute("data-step"), 10);
    steps = parseInt(grid.getAttribute("data-steps"), 10);
    slider.max = String(steps);
    slider.value = String(shown);
    count.textContent = grid.getAttribute("data-count");
    setLink("first", 0, shown > 0);
    setLink("prev", shown - 1, shown > 0);
    setLink("next", shown + 1, shown < steps);
    setLink("last", steps, shown < steps);
    window.history.replaceState(null, "", href(shown));
  }

  // The step the page is heading to: a key pressed again before the frame arrives counts
  // from there (six quick presses of the right arrow go six steps, not one).
  function heading() {
    return wanted !== null ? wanted : loading ? fetching : shown;
  }

  // One request at a time; while one runs, only the newest wish waits (a dragged slider).
  function show(step) {
    wanted = Math.max(0, Math.min(step, steps));
    if (loading) {
      return;
    }
    var step_ = wanted;
    wanted = null;
    loading = true;
    fetching = step_;
    fetch("/matches/" + match + "/replay/frame?step=" + step_, { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) {
          throw new Error(String(response.status));
        }
        return response.text();
      })
      .then(function (html) {
        document.dispatchEvent(new CustomEvent("drachenhort:before-swap"));
        frame.innerHTML = html;
        var grid = frame.querySelector("[data-step]");
        if (grid) {
          update(grid);
        }
        document.dispatchEvent(new CustomEvent("drachenhort:area-swapped"));
      })
      .catch(function () {
        window.location.assign(href(step_));
      })
      .then(function () {
        loading = false;
        if (wanted !== null && wanted !== shown) {
          show(wanted);
        } else {
          wanted = null;
          schedule();
        }
      });
  }

  nav.addEventListener("click", function (event) {
    var link = event.target instanceof Element ? event.target.closest("[data-replay]") : null;
    if (!link) {
      return;
    }
    event.preventDefault();
    if (!link.hasAttribute("href")) {
      return;
    }
    stop();
    var target = { first: 0, prev: heading() - 1, next: heading() + 1, last: steps }[link.getAttribute("data-replay")];
    show(target);
  });

  // The slider steps as it moves and keeps the focus (nothing around it is replaced);
  // "change" must not reach app.js, which would submit the form.
  slider.addEventListener("input", function () {
    stop();
    show(parseInt(slider.value, 10));
  });
  slider.addEventListener("change", function (event) {
    event.stopPropagation();
  });
  nav.querySelector(".slider-form").addEventListener("submit", function (event) {
    event.preventDefault();
    show(parseInt(slider.value, 10));
  });

  // Autoplay: one step per chosen interval, until the end or a pause.
  function playing() {
    return play.getAttribute("aria-pressed") === "true";
  }

  function schedule() {
    window.clearTimeout(timer);
    if (!playing()) {
      return;
    }
    if (shown >= steps) {
      stop();
      return;
    }
    timer = window.setTimeout(function () {
      show(shown + 1);
    }, parseFloat(speed.value) * 1000);
  }

  function stop() {
    window.clearTimeout(timer);
    play.setAttribute("aria-pressed", "false");
    play.textContent = play.getAttribute("data-label-play");
  }

  play.addEventListener("click", function () {
    if (playing()) {
      stop();
      return;
    }
    play.setAttribute("aria-pressed", "true");
    play.textContent = play.getAttribute("data-label-pause");
    if (shown >= steps) {
      show(0);  // from the start again
    } else {
      schedule();
    }
  });
  speed.addEventListener("change", function (event) {
    event.stopPropagation();
    schedule();
  });

  // A step of the analysis graph (a link for a page without scripts): show it in place.
  frame.addEventListener("click", function (event) {
    var link = event.target instanceof Element ? event.target.closest("[data-graph-step]") : null;
    if (!link) {
      return;
    }
    event.preventDefault();
    stop();
    show(parseInt(link.getAttribute("data-graph-step"), 10));
  });

  // "Show earlier moves": a step's frame holds the newest page of its log; earlier pages come
  // from the match's log (the decisions before the oldest one shown) and go below.
  frame.addEventListener("click", function (event) {
    var button = event.target instanceof Element ? event.target.closest("[data-replay-earlier]") : null;
    var list = frame.querySelector("[data-replay-log]");
    if (!button || !list || button.disabled) {
      return;
    }
    button.disabled = true;
    var url = "/matches/" + match + "/log?before=" + button.getAttribute("data-replay-earlier");
    fetch(url, { credentials: "same-origin" })
      .then(function (response) {
        return response.ok ? response.text() : null;
      })
      .then(function (html) {
        button.disabled = false;
        if (html === null || !list.isConnected) {
          return;
        }
        var page = document.createElement("template");
        page.innerHTML = html;
        var lines = page.content.querySelector("ol");
        Array.prototype.slice.call(lines.children).forEach(function (li) { list.appendChild(li); });
        var after = parseInt(lines.getAttribute("data-log-after"), 10) || 0;
        if (after > 0) {
          button.setAttribute("data-replay-earlier", String(after + 1));
        } else {
          button.remove();
        }
      })
      .catch(function () {
        button.disabled = false;
      });
  });

  // Arrow keys step, Home/End jump (unless typing in a field; the slider has its own keys).
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    var tag = event.target instanceof Element ? event.target.tagName : "";
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") {
      return;
    }
    var keys = { ArrowLeft: heading() - 1, ArrowRight: heading() + 1, Home: 0, End: steps };
    if (!(event.key in keys)) {
      return;
    }
    event.preventDefault();
    stop();
    show(keys[event.key]);
  });
})();
