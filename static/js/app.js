// Small page helpers: submit a select on change, confirmation dialogs, copying invite links.
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

  // The create form offers as many invite fields as the chosen number of seats has others
  // (without scripts every field shows; the server refuses more names than seats).
  function inviteFields(select) {
    var form = select.form;
    var seats = parseInt(select.value, 10);
    if (!form || !seats) {
      return;
    }
    form.querySelectorAll("[data-invite-seat]").forEach(function (label) {
      var shown = parseInt(label.getAttribute("data-invite-seat"), 10) <= seats;
      label.hidden = !shown;
      label.querySelectorAll("input").forEach(function (input) { input.disabled = !shown; });
    });
  }
  document.addEventListener("change", function (event) {
    if (event.target instanceof HTMLSelectElement && event.target.hasAttribute("data-invite-seats")) {
      inviteFields(event.target);
    }
  });
  function allInviteFields() {
    document.querySelectorAll("select[data-invite-seats]").forEach(inviteFields);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", allInviteFields);
  } else {
    allInviteFields();
  }

  // A friend's button in the create form fills the first empty invite field: one click.
  document.addEventListener("click", function (event) {
    var button = event.target instanceof Element ? event.target.closest("[data-invite-friend]") : null;
    if (!button || !button.form) {
      return;
    }
    var name = button.getAttribute("data-invite-friend");
    var fields = Array.prototype.slice.call(button.form.querySelectorAll("input[name=invite]"))
      .filter(function (input) { return !input.disabled; });
    if (fields.some(function (input) { return input.value.trim() === name; })) {
      return;
    }
    var empty = fields.find(function (input) { return !input.value.trim(); });
    if (empty) {
      empty.value = name;
      button.setAttribute("aria-pressed", "true");
    }
  });

  // The header's menu closes on a click elsewhere and on Escape (a <details> alone stays open).
  document.addEventListener("click", function (event) {
    document.querySelectorAll("details.menu[open]").forEach(function (menu) {
      if (!(event.target instanceof Node) || !menu.contains(event.target)) {
        menu.removeAttribute("open");
      }
    });
  });
  document.addEventListener("keydown", function (event) {
    var menu = document.querySelector("details.menu[open]");
    if (event.key === "Escape" && menu) {
      menu.removeAttribute("open");
      menu.querySelector("summary").focus();
    }
  });

  // A sent chat message clears its input.
  // A refusal lands in #flash at the top of the page; when the control that caused it (the
  // chat at the bottom, a phone's long board) has scrolled that out of sight, bring it back.
  document.addEventListener("htmx:afterSwap", function (event) {
    var flash = event.detail && event.detail.target;
    if (!(flash instanceof HTMLElement) || flash.id !== "flash" || !flash.textContent.trim()) {
      return;
    }
    var box = flash.getBoundingClientRect();
    if (box.bottom <= 0 || box.top >= window.innerHeight) {
      flash.scrollIntoView({ block: "nearest" });
    }
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.target;
    if (form instanceof HTMLFormElement && form.classList.contains("chat-form") && event.detail.successful) {
      form.reset();
    }
  });

  // Resign, leave, cancel, abort: the link leads to a page that asks first; with scripts the
  // same question (the page's partial) opens in a dialog over the page instead.
  var dialog = document.getElementById("confirm-dialog");
  document.addEventListener("click", function (event) {
    var link = event.target instanceof Element ? event.target.closest("a[data-confirm]") : null;
    if (!link || !dialog || typeof dialog.showModal !== "function") {
      return;
    }
    event.preventDefault();
    fetch(link.getAttribute("href"), { credentials: "same-origin", headers: { "HX-Request": "true" } })
      .then(function (response) {
        return response.text().then(function (html) {
          if (!response.ok) {
            var flash = document.getElementById("flash");
            if (flash) {
              flash.innerHTML = html;
            }
            return;
          }
          dialog.innerHTML = html;
          dialog.showModal();
          var go = dialog.querySelector("[data-close-dialog]");
          if (go) {
            go.focus();  // the safe choice has the focus: Enter does not end the match
          }
        });
      })
      .catch(function () {
        window.location.assign(link.getAttribute("href"));
      });
  });
  document.addEventListener("click", function (event) {
    var back = event.target instanceof Element ? event.target.closest("[data-close-dialog]") : null;
    if (back && dialog && dialog.open && dialog.contains(back)) {
      event.preventDefault();
      dialog.close();
    }
  });

  // Invite links: the copy button copies, the field selects itself when focused.
  document.addEventListener("click", function (event) {
    var button = event.target instanceof Element ? event.target.closest("[data-copy]") : null;
    var field = button ? document.querySelector(button.getAttribute("data-copy")) : null;
    if (!field) {
      return;
    }
    var status = document.getElementById("copy-status");
    function done() {
      if (status) {
        status.textContent = button.getAttribute("data-copied") || "";
      }
    }
    field.select();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, function () {
        document.execCommand("copy");
        done();
      });
    } else {
      // Plain http on another machine is not a secure context: the older command still works.
      document.execCommand("copy");
      done();
    }
  });
  document.addEventListener("focusin", function (event) {
    var field = event.target;
    if (field instanceof HTMLInputElement && field.hasAttribute("data-select-on-focus")) {
      field.select();
    }
  });
  // A table that starts while its page is open gets its board live; its Replay link shows then too.
  document.addEventListener("drachenhort:area-swapped", function () {
    var area = document.getElementById("match-area");
    var replay = document.querySelector("[data-replay-link]");
    if (area && replay) {
      replay.hidden = area.getAttribute("data-status") === "open";
    }
  });
  // The rules beside the board: htmx puts the rules page's article in the panel, this shows it.
  document.addEventListener("htmx:afterSwap", function (event) {
    var panel = document.getElementById("rules-panel");
    if (panel && event.target && event.target.id === "rules-panel-body") {
      panel.hidden = false;
      var close = panel.querySelector("[data-rules-close]");
      if (close) {
        close.focus();
      }
    }
  });
  document.addEventListener("click", function (event) {
    var close = event.target instanceof Element ? event.target.closest("[data-rules-close]") : null;
    var panel = document.getElementById("rules-panel");
    if (close && panel) {
      panel.hidden = true;
      document.getElementById("rules-panel-body").innerHTML = ""; // one page heading again
      var link = document.querySelector("[data-rules-link]");
      if (link) {
        link.focus();
      }
    }
  });
})();
