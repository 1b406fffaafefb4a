// Small page helpers: submit a select on change, replay keyboard navigation.
(function () {
  "use strict";

  // With scripts on, the language select submits itself: its button is for pages without them.
  document.documentElement.classList.add("js");

  document.addEventListener("change", function (event) {
    var el = event.target;
    if (el instanceof Element && el.hasAttribute("data-autosubmit") && el.form) {
      el.form.requestSubmit();
    }
  });

  // A sent chat message clears its input.
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.target;
    if (form instanceof HTMLFormElement && form.classList.contains("chat-form") && event.detail.successful) {
      form.reset();
    }
  });

  // Replay: arrow keys step, Home/End jump (unless typing in a field).
  document.addEventListener("keydown", function (event) {
    var nav = document.querySelector("[data-replay-nav]");
    if (!nav || event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    var tag = event.target instanceof Element ? event.target.tagName : "";
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") {
      return;
    }
    var keys = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
    var which = keys[event.key];
    if (!which) {
      return;
    }
    var link = nav.querySelector('[data-replay="' + which + '"]');
    if (link && link.getAttribute("href")) {
      event.preventDefault();
      window.location.assign(link.getAttribute("href"));
    }
  });
})();
