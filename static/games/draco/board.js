// Draco: clicking a dragon shows its rider and position in the info line; hovering or focusing a
// hand card shows where its dragon would land (the ring of the same move, the way there, the dragon).
// Moves are posted by the platform's board.js; this file only shows information.
(function () {
  "use strict";

  function show(el) {
    var board = el.closest(".draco");
    var line = board && board.querySelector(".draco-info");
    if (line) {
      line.textContent = el.getAttribute("data-info") || "";
    }
  }

  function dragonOf(target) {
    return target instanceof Element ? target.closest(".draco .dragon[data-info]") : null;
  }

  document.addEventListener("click", function (event) {
    var el = dragonOf(event.target);
    if (el) {
      show(el);
    }
  });

  // A hand card or a target ring that plays a card.
  function playOf(target) {
    return target instanceof Element ? target.closest(".draco .dcard.play[data-move], .draco .target[data-move]") : null;
  }

  function preview(el, on) {
    var board = el.closest(".draco");
    var move = el.getAttribute("data-move");
    if (!board || !move) {
      return;
    }
    var dragon = move.split(":")[1];
    var which = '[data-move="' + CSS.escape(move) + '"].target, [data-trail="' + CSS.escape(move) + '"], .dragon-' + CSS.escape(dragon);
    board.querySelectorAll(which).forEach(function (shown) {
      shown.classList.toggle("preview", on);
    });
  }

  ["mouseover", "focusin"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var el = playOf(event.target);
      if (el) {
        preview(el, true);
      }
    });
  });
  ["mouseout", "focusout"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var el = playOf(event.target);
      if (!el || (event.relatedTarget instanceof Node && el.contains(event.relatedTarget))) {
        return;
      }
      // Hover and focus each show it: it goes when neither is left.
      var still = type === "mouseout" ? document.activeElement === el : el.matches(":hover");
      if (!still) {
        preview(el, false);
      }
    });
  });
})();
