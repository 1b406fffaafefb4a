// The log box shows whole lines only (issue 20.11). A scrolling list cuts the line at its edge
// in two; that half line is made transparent (kept for screen readers, not drawn), so a line is
// either shown whole or not at all, at any scroll position and width, whatever its length.
(function () {
  "use strict";

  var EDGE = 1; // px a line may stick out (sub-pixel rounding) and still count as whole

  function markCutLines(list) {
    var box = list.getBoundingClientRect();
    // Within the borders: the client rect is where the list draws its content.
    var top = box.top + list.clientTop - EDGE;
    var bottom = box.top + list.clientTop + list.clientHeight + EDGE;
    var lines = list.children;
    for (var i = 0; i < lines.length; i++) {
      var line = lines[i].getBoundingClientRect();
      var cut = line.bottom > top && line.top < bottom && (line.top < top || line.bottom > bottom);
      lines[i].classList.toggle("cut", cut);
    }
  }

  var queued = false;
  function markAll() {
    if (queued) {
      return;
    }
    queued = true;
    window.requestAnimationFrame(function () {
      queued = false;
      document.querySelectorAll(".log-list").forEach(markCutLines);
    });
  }

  // Scroll events do not bubble; caught on the way down, they come from any log list.
  document.addEventListener("scroll", function (event) {
    if (event.target instanceof Element && event.target.classList.contains("log-list")) {
      markAll();
    }
  }, true);
  window.addEventListener("resize", markAll);
  // Lines come and go (a move, an undo, earlier moves, a replay step): new lines, new edges.
  new MutationObserver(markAll).observe(document.body, { childList: true, subtree: true });
  markAll();
})();
