// Draco: clicking (or Enter on) a dragon shows its rider and position in the info line.
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
  document.addEventListener("keydown", function (event) {
    if (event.key === "Enter" || event.key === " ") {
      var el = dragonOf(event.target);
      if (el) {
        event.preventDefault();
        show(el);
      }
    }
  });
})();
