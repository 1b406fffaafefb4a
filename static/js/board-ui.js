// The board's keyboard and display helpers, for every game: the skip link to the player's
// choices, arrow keys inside a group of choices (one Tab stop per group), and the zoom toggle.
// Posting moves and swapping the area are board.js's; this file only moves focus and classes.
(function () {
  "use strict";

  var ZOOM_KEY = "drachenhort:board-zoom";

  function choices(scope) {
    return Array.prototype.slice.call(scope.querySelectorAll("[data-move]")).filter(function (el) {
      return !el.disabled && (el.getAttribute("tabindex") !== "-1" || el.closest("[data-roving]") !== null);
    });
  }

  // The first thing a player can do: the board's first move with a Tab stop (boards put their
  // prompts and hands before repeated targets), else an enabled Undo/Confirm.
  function firstChoice() {
    var area = document.getElementById("match-area");
    var board = document.getElementById("board");
    if (!area || !board) {
      return null;
    }
    return choices(board)[0] || area.querySelector("[data-match-action]:not([disabled])");
  }

  document.addEventListener("click", function (event) {
    var link = event.target instanceof Element ? event.target.closest("[data-skip-to-move]") : null;
    if (!link) {
      return;
    }
    var el = firstChoice();
    if (el) {
      event.preventDefault();
      el.focus();
      el.scrollIntoView({ block: "nearest" });
    }
  });

  // Roving focus: inside [data-roving] only one choice is a Tab stop; arrow keys move between them.
  function members(group) {
    return Array.prototype.slice.call(group.querySelectorAll("[data-move]"));
  }

  function rove(group, current) {
    members(group).forEach(function (el) {
      el.setAttribute("tabindex", el === current ? "0" : "-1");
    });
  }

  function setUp() {
    document.querySelectorAll("[data-roving]").forEach(function (group) {
      var all = members(group);
      var focused = all.indexOf(document.activeElement) >= 0 ? document.activeElement : all[0];
      if (focused) {
        rove(group, focused);
      }
    });
    var board = document.getElementById("board");
    var zoom = document.querySelector("[data-board-zoom]");
    var on = window.sessionStorage && window.sessionStorage.getItem(ZOOM_KEY) === "1";
    if (board) {
      board.classList.toggle("zoomed", on);
    }
    if (zoom) {
      zoom.setAttribute("aria-pressed", on ? "true" : "false");
    }
    // A frame that pans (zoomed, or a board drawn wider than a phone) keeps its place.
    var frame = board ? board.querySelector("[data-zoom]") : null;
    if (frame && frame.scrollWidth > frame.clientWidth) {
      if (scrolled) {
        frame.scrollLeft = scrolled.left;
        frame.scrollTop = scrolled.top;
      } else {
        frame.scrollLeft = (frame.scrollWidth - frame.clientWidth) / 2;
      }
    }
  }

  // Where a panned board was scrolled to outlives the board: a decision or a push replaces
  // the board area, which would jump back to its left edge. Panned the first time, the board
  // opens at its middle.
  var scrolled = null;
  document.addEventListener(
    "scroll",
    function (event) {
      var el = event.target;
      if (el instanceof Element && el.hasAttribute("data-zoom")) {
        scrolled = { left: el.scrollLeft, top: el.scrollTop };
      }
    },
    true
  );

  var KEYS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

  document.addEventListener("keydown", function (event) {
    var el = event.target instanceof Element ? event.target : null;
    var group = el && el.closest("[data-roving]");
    if (!group || !el.hasAttribute("data-move") || event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    var all = members(group);
    var at = all.indexOf(el);
    var next = null;
    if (event.key in KEYS) {
      next = all[(at + KEYS[event.key] + all.length) % all.length];
    } else if (event.key === "Home") {
      next = all[0];
    } else if (event.key === "End") {
      next = all[all.length - 1];
    }
    if (next) {
      event.preventDefault();
      rove(group, next);
      next.focus();
    }
  });

  document.addEventListener("click", function (event) {
    var button = event.target instanceof Element ? event.target.closest("[data-board-zoom]") : null;
    if (!button) {
      return;
    }
    var on = button.getAttribute("aria-pressed") !== "true";
    if (window.sessionStorage) {
      window.sessionStorage.setItem(ZOOM_KEY, on ? "1" : "0");
    }
    // Drawn at another size, the board opens at its middle again.
    scrolled = null;
    setUp();
  });

  document.addEventListener("DOMContentLoaded", setUp);
  document.addEventListener("drachenhort:area-swapped", setUp);
  document.addEventListener("htmx:afterSettle", setUp);
})();
