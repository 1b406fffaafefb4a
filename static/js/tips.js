// Explanations beside card options and tiles (issue 20.15). A host names its tooltip in
// data-tip (and aria-describedby, for screen readers); the tooltip shows while the mouse is
// over the host or the host has the keyboard focus, and after a long press on a touch screen.
// A long press only explains: the tap it ends in does not play the card or tile.
(function () {
  "use strict";

  var LONG_PRESS_MS = 450;
  var SLOP_PX = 10; // a finger that moves further is scrolling, not pressing
  var GAP_PX = 6;

  var shown = null; // { host, tip }

  function tipOf(host) {
    var id = host.getAttribute("data-tip");
    return id ? document.getElementById(id) : null;
  }

  function hostAt(target) {
    return target instanceof Element ? target.closest("[data-tip]") : null;
  }

  function hide() {
    if (shown) {
      shown.tip.hidden = true;
      shown.tip.classList.remove("tip-open");
      shown = null;
    }
  }

  // Below the host, or above it when the window has no room below; never past a window edge.
  function place(host, tip) {
    var r = host.getBoundingClientRect();
    var w = tip.offsetWidth;
    var h = tip.offsetHeight;
    var left = Math.min(Math.max(GAP_PX, r.left + r.width / 2 - w / 2), window.innerWidth - w - GAP_PX);
    var top = r.bottom + GAP_PX;
    if (top + h > window.innerHeight - GAP_PX && r.top - GAP_PX - h >= GAP_PX) {
      top = r.top - GAP_PX - h;
    }
    tip.style.left = Math.max(GAP_PX, left) + "px";
    tip.style.top = Math.max(GAP_PX, top) + "px";
  }

  function show(host) {
    var tip = tipOf(host);
    if (!tip || (shown && shown.tip === tip)) {
      return;
    }
    hide();
    tip.hidden = false;
    tip.classList.add("tip-open");
    place(host, tip);
    shown = { host: host, tip: tip };
  }

  // The mouse (touch screens also send mouse events after a tap: those do not count).
  document.addEventListener("pointerover", function (event) {
    var host = hostAt(event.target);
    if (event.pointerType === "mouse" && host) {
      show(host);
    }
  });
  document.addEventListener("pointerout", function (event) {
    if (event.pointerType === "mouse" && shown && hostAt(event.target) === shown.host &&
        !(event.relatedTarget instanceof Node && shown.host.contains(event.relatedTarget))) {
      hide();
    }
  });
  // The keyboard.
  document.addEventListener("focusin", function (event) {
    var host = hostAt(event.target);
    if (host && event.target === host) {
      show(host);
    }
  });
  document.addEventListener("focusout", function (event) {
    if (shown && event.target === shown.host) {
      hide();
    }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") {
      hide();
    }
  });

  // Touch: a finger held still on a host shows its tooltip; lifting it then is no tap.
  var press = null; // { host, x, y, timer, long }
  var swallowClickUntil = 0;
  document.addEventListener("touchstart", function (event) {
    swallowClickUntil = 0; // a new touch: whatever click comes now belongs to it
    var host = hostAt(event.target);
    if (!host || event.touches.length !== 1) {
      press = null;
      hide();
      return;
    }
    if (shown && shown.host !== host) {
      hide();
    }
    var touch = event.touches[0];
    var current = { host: host, x: touch.clientX, y: touch.clientY, long: false, timer: 0 };
    current.timer = window.setTimeout(function () {
      current.long = true;
      show(host);
    }, LONG_PRESS_MS);
    press = current;
  }, { passive: true });
  document.addEventListener("touchmove", function (event) {
    if (!press) {
      return;
    }
    var touch = event.touches[0];
    if (Math.abs(touch.clientX - press.x) > SLOP_PX || Math.abs(touch.clientY - press.y) > SLOP_PX) {
      window.clearTimeout(press.timer);
      press = null;
    }
  }, { passive: true });
  document.addEventListener("touchend", function (event) {
    if (!press) {
      return;
    }
    window.clearTimeout(press.timer);
    if (press.long) {
      event.preventDefault(); // no click from this touch: it explained, it did not choose
      swallowClickUntil = Date.now() + 800;
    }
    press = null;
  }, { passive: false });
  document.addEventListener("touchcancel", function () {
    if (press) {
      window.clearTimeout(press.timer);
      press = null;
    }
  });
  // Should a browser still send the click (or a context menu) for a long press, it stops here,
  // before the board's own click handler sees it.
  document.addEventListener("click", function (event) {
    if (Date.now() < swallowClickUntil) {
      swallowClickUntil = 0;
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);
  document.addEventListener("contextmenu", function (event) {
    if (hostAt(event.target)) {
      event.preventDefault();
    }
  });

  // Scrolling or a new board ends an explanation (a touch elsewhere does, above).
  window.addEventListener("scroll", hide, true);
  window.addEventListener("resize", function () {
    if (shown) {
      place(shown.host, shown.tip); // the window turned or changed size: the box stays beside its host
    }
  });
  document.addEventListener("drachenhort:area-swapped", hide);
})();
