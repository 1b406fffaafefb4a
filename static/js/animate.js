// Moves that animate, for every game's board (issue 21). FLIP: just before a board is swapped
// (the answer to the player's decision, a live push of another seat's, a replay step) the place
// of every [data-piece] element is recorded ("drachenhort:before-swap"); after the swap
// ("drachenhort:area-swapped") each piece that exists in both and stands elsewhere now is moved
// back to its old place by a transform and animated to its new one. A piece with data-space
// (Draco's dragons) walks over the spaces in between. Pieces new in a [data-hand] list fly in
// from the piece its value names (the draw pile), and a [data-score] that grew shows its points
// rising from its [data-score-from] pieces. Transforms leave pointer events alone, so nothing
// blocks the next click; under prefers-reduced-motion: reduce nothing moves.
// Loaded after board-ui.js: its zoom is set up again on the same event, before this measures.
(function () {
  "use strict";

  var MOVE_MS = 320;
  var STEP_MS = 55;
  var MAX_MS = 400;
  var POP_MS = 1100;
  var reduced = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : { matches: false };
  var before = null;

  // Pieces by name; a name shown twice (a dragon on the board and in the players' panel) is told
  // apart by its place in document order.
  function pieces(root) {
    var seen = {};
    var out = new Map();
    root.querySelectorAll("[data-piece]").forEach(function (el) {
      var name = el.getAttribute("data-piece");
      var n = seen[name] || 0;
      seen[name] = n + 1;
      out.set(name + "#" + n, el);
    });
    return out;
  }

  // Where a piece stands, measured against what carries it (its drawing, or its list): a board
  // that moves as a whole (a panel opened above it) moves no piece.
  function frameOf(el) {
    return el.ownerSVGElement || el.parentElement || document.body;
  }

  function centre(el) {
    var b = el.getBoundingClientRect();
    return { x: b.left + b.width / 2, y: b.top + b.height / 2, w: b.width, h: b.height };
  }

  function place(el) {
    var c = centre(el);
    var f = frameOf(el).getBoundingClientRect();
    return { x: c.x - f.left, y: c.y - f.top, w: c.w, h: c.h, page: { x: c.x + window.scrollX, y: c.y + window.scrollY } };
  }

  function root() {
    return document.getElementById("match-live") || document.querySelector("[data-replay-frame]");
  }

  function record() {
    var r = root();
    if (!r || reduced.matches) {
      before = null;
      return;
    }
    var places = new Map();
    pieces(r).forEach(function (el, key) {
      var p = place(el);
      if (p.w || p.h) {
        p.space = el.getAttribute("data-space");
        places.set(key, p);
      }
    });
    var scores = new Map();
    r.querySelectorAll("[data-score]").forEach(function (el) {
      scores.set(el.getAttribute("data-score"), parseInt(el.getAttribute("data-value"), 10) || 0);
    });
    var hands = r.querySelectorAll("[data-hand]").length > 0;
    before = { places: places, scores: scores, hands: hands };
  }

  // A screen-space shift as a shift in the user units of an SVG element's parent.
  function userShift(el, dx, dy) {
    var m = el.parentNode && el.parentNode.getScreenCTM ? el.parentNode.getScreenCTM() : null;
    if (!m) {
      return { x: dx, y: dy };
    }
    var det = m.a * m.d - m.b * m.c;
    if (!det) {
      return { x: dx, y: dy };
    }
    return { x: (m.d * dx - m.c * dy) / det, y: (-m.b * dx + m.a * dy) / det };
  }

  // The transform the element has at rest, which the animation's frames keep.
  function rest(el) {
    if (el instanceof SVGGraphicsElement && el.transform) {
      var t = el.transform.baseVal.consolidate();
      if (!t) {
        return "";
      }
      var m = t.matrix;
      return " matrix(" + [m.a, m.b, m.c, m.d, m.e, m.f].join(",") + ")";
    }
    var css = window.getComputedStyle(el).transform;
    return css && css !== "none" ? " " + css : "";
  }

  function shifted(el, dx, dy, base) {
    var s = el instanceof SVGElement ? userShift(el, dx, dy) : { x: dx, y: dy };
    return "translate(" + s.x.toFixed(2) + "px, " + s.y.toFixed(2) + "px)" + base;
  }

  // The screen-space centres (relative to the drawing) of the spaces a walker passes.
  function waypoints(el, from, to) {
    var svg = el.ownerSVGElement;
    if (!svg || from === null || to === null || from === to) {
      return [];
    }
    var a = parseInt(from, 10);
    var b = parseInt(to, 10);
    if (isNaN(a) || isNaN(b) || Math.abs(b - a) < 2 || Math.abs(b - a) > 12) {
      return [];
    }
    var step = b > a ? 1 : -1;
    var points = [];
    for (var k = a + step; k !== b; k += step) {
      var space = svg.querySelector('[data-piece~="space-' + k + '"]');
      if (!space) {
        return [];
      }
      points.push(place(space));
    }
    return points;
  }

  function move(el, old, now) {
    var base = rest(el);
    var via = waypoints(el, old.space, el.getAttribute("data-space"));
    var frames = [{ transform: shifted(el, old.x - now.x, old.y - now.y, base) }];
    via.forEach(function (p) {
      frames.push({ transform: shifted(el, p.x - now.x, p.y - now.y, base) });
    });
    frames.push({ transform: base ? base.trim() : "none" });
    var duration = Math.min(MAX_MS, MOVE_MS + STEP_MS * Math.max(0, via.length - 2));
    el.animate(frames, { duration: duration, easing: via.length ? "linear" : "ease-in-out" });
  }

  function enter(el, now, from) {
    var base = rest(el);
    var dx = from ? from.page.x - now.page.x : 0;
    var dy = from ? from.page.y - now.page.y : -24;
    el.animate(
      [
        { transform: shifted(el, dx, dy, base), opacity: 0.2 },
        { transform: base ? base.trim() : "none", opacity: 1 }
      ],
      { duration: MOVE_MS, easing: "ease-out" }
    );
  }

  function pop(text, at) {
    var tag = document.createElement("span");
    tag.className = "score-pop";
    tag.setAttribute("aria-hidden", "true");
    tag.textContent = text;
    var s = tag.style;
    s.position = "absolute";
    s.left = at.x + "px";
    s.top = at.y + "px";
    s.zIndex = "30";
    s.pointerEvents = "none";
    s.font = "800 1.05rem system-ui, sans-serif";
    s.color = "#1f1b16";
    s.background = "#ffe9b0";
    s.border = "2px solid #1f1b16";
    s.borderRadius = "999px";
    s.padding = "0 0.35rem";
    s.whiteSpace = "nowrap";
    document.body.appendChild(tag);
    var a = tag.animate(
      [
        { transform: "translate(-50%, -50%)", opacity: 0 },
        { transform: "translate(-50%, -110%)", opacity: 1, offset: 0.2 },
        { transform: "translate(-50%, -260%)", opacity: 0 }
      ],
      { duration: POP_MS, easing: "ease-out", fill: "forwards" }
    );
    a.onfinish = function () { tag.remove(); };
    a.oncancel = a.onfinish;
  }

  function scorings(r, old) {
    r.querySelectorAll("[data-score]").forEach(function (el) {
      var key = el.getAttribute("data-score");
      if (!old.has(key)) {
        return;
      }
      var gain = (parseInt(el.getAttribute("data-value"), 10) || 0) - old.get(key);
      if (gain <= 0) {
        return;
      }
      var from = r.querySelectorAll('[data-score-from~="' + CSS.escape(key) + '"]');
      var at = from.length ? Array.prototype.slice.call(from) : [el];
      at.forEach(function (source) {
        pop("+" + gain, place(source).page);
      });
    });
  }

  function play() {
    var r = root();
    var was = before;
    before = null;
    if (!r || !was || reduced.matches) {
      return;
    }
    var now = pieces(r);
    var moved = [];
    var deferredEnter = [];
    now.forEach(function (el, key) {
      if (moved.some(function (m) { return m.contains(el); })) {
        return; // carried by a piece that moves already
      }
      var p = place(el);
      if (!p.w && !p.h) {
        return;
      }
      var old = was.places.get(key);
      if (old) {
        if (Math.abs(old.x - p.x) > 1 || Math.abs(old.y - p.y) > 1) {
          moved.push(el);
          move(el, old, p);
        }
      } else if (was.hands && el.parentElement && el.parentElement.closest("[data-hand]")) {
        deferredEnter.push([el, p]);
      }
    });
    deferredEnter.forEach(function (pair) {
      var hand = pair[0].parentElement.closest("[data-hand]");
      var name = hand.getAttribute("data-hand");
      var source = name ? r.querySelector('[data-piece~="' + CSS.escape(name) + '"]') : null;
      enter(pair[0], pair[1], source ? place(source) : null);
    });
    scorings(r, was.scores);
  }

  document.addEventListener("drachenhort:before-swap", record);
  document.addEventListener("drachenhort:area-swapped", play);
  window.DrachenhortAnimate = { record: record, play: play };
})();
