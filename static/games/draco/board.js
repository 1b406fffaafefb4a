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

  function cardOf(target) {
    return target instanceof Element ? target.closest(".draco .dcard.play[data-move]") : null;
  }

  function preview(card, on) {
    var board = card.closest(".draco");
    var move = card.getAttribute("data-move");
    if (!board || !move) {
      return;
    }
    var dragon = move.split(":")[1];
    board.querySelectorAll('.target[data-move="' + CSS.escape(move) + '"], .dragon-' + CSS.escape(dragon)).forEach(
      function (el) {
        el.classList.toggle("preview", on);
      }
    );
  }

  ["mouseover", "focusin"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var card = cardOf(event.target);
      if (card) {
        preview(card, true);
      }
    });
  });
  ["mouseout", "focusout"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var card = cardOf(event.target);
      if (!card || (event.relatedTarget instanceof Node && card.contains(event.relatedTarget))) {
        return;
      }
      // Hover and focus each show it: it goes when neither is left.
      var still = type === "mouseout" ? document.activeElement === card : card.matches(":hover");
      if (!still) {
        preview(card, false);
      }
    });
  });
})();
