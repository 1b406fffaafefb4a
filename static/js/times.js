// Times in the reader's own zone and language (issue 20.10). The server renders every moment as
// <time datetime="…" data-moment="calendar|relative"> in the zone from the settings or from the
// "tz" cookie this script writes; here each one is written again in the browser's zone, relative
// ones ("in 2 days") and the seats' countdowns are kept current, and the whole moment shows on
// hover. Without scripts the server's text stands.
(function () {
  "use strict";

  var lang = document.documentElement.lang || "en";
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  var MINUTE = 60000;
  var HOUR = 60 * MINUTE;
  var DAY = 24 * HOUR;

  // The server renders the next page in this zone (unless the settings name another).
  if (document.cookie.split("; ").indexOf("tz=" + encodeURIComponent(zone)) < 0) {
    document.cookie = "tz=" + encodeURIComponent(zone) + "; path=/; max-age=31536000; samesite=lax";
  }

  var days = new Intl.RelativeTimeFormat(lang, { numeric: "auto" }); // "heute", "gestern"
  var spans = new Intl.RelativeTimeFormat(lang, { numeric: "always" }); // "in 2 Tagen", as the server says
  var clock = new Intl.DateTimeFormat(lang, { hour: "2-digit", minute: "2-digit" });
  var dated = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" });
  // (dateStyle and timeStyle cannot be combined with timeZoneName: the parts are named.)
  var whole = new Intl.DateTimeFormat(lang, {
    weekday: "long", year: "numeric", month: "long", day: "numeric",
    hour: "2-digit", minute: "2-digit", timeZoneName: "short"
  });

  function dayNumber(date) {
    return Math.floor(Date.UTC(date.getFullYear(), date.getMonth(), date.getDate()) / DAY);
  }

  function calendar(date, now) {
    var apart = dayNumber(date) - dayNumber(now);
    if (apart >= -1 && apart <= 1) {
      return days.format(apart, "day") + " " + clock.format(date);
    }
    return dated.format(date);
  }

  function relative(date, now) {
    var ms = date - now;
    var size = Math.abs(ms);
    if (size >= DAY) {
      return spans.format(Math.round(ms / DAY), "day");
    }
    if (size >= HOUR) {
      return spans.format(Math.round(ms / HOUR), "hour");
    }
    return spans.format(Math.round(ms / MINUTE), "minute");
  }

  function unit(value, name) {
    return new Intl.NumberFormat(lang, { style: "unit", unit: name, unitDisplay: "narrow" }).format(value);
  }

  // Time left, two units at most: "2d 4h", "3h 12m", "9m"; nothing left reads "0m".
  function remaining(ms) {
    var left = Math.max(0, ms);
    var d = Math.floor(left / DAY);
    var h = Math.floor((left % DAY) / HOUR);
    var m = Math.floor((left % HOUR) / MINUTE);
    if (d > 0) {
      return unit(d, "day") + " " + unit(h, "hour");
    }
    if (h > 0) {
      return unit(h, "hour") + " " + unit(m, "minute");
    }
    return unit(m, "minute");
  }

  // A seat's countdown: its turn began at data-since and lasts the match's days per move
  // (the clock panel's data-days-per-move), or until the panel's deadline when that is later
  // (a vacation day was spent).
  function countdowns(now) {
    var panel = document.getElementById("clock-panel");
    var perMove = panel ? parseInt(panel.getAttribute("data-days-per-move") || "", 10) : NaN;
    var deadline = panel && panel.getAttribute("data-deadline") ? new Date(panel.getAttribute("data-deadline")) : null;
    document.querySelectorAll("[data-seat-clock]").forEach(function (el) {
      if (!perMove) {
        el.hidden = true;
        return;
      }
      var ends = new Date(new Date(el.getAttribute("data-since")).getTime() + perMove * DAY);
      if (deadline && deadline > ends) {
        ends = deadline;
      }
      el.hidden = false;
      el.textContent = remaining(ends - now);
      el.title = whole.format(ends);
      el.classList.toggle("late", ends - now < HOUR);
    });
  }

  function render() {
    var now = new Date();
    document.querySelectorAll("time[data-moment]").forEach(function (el) {
      var date = new Date(el.getAttribute("datetime"));
      if (isNaN(date)) {
        return;
      }
      el.textContent = el.getAttribute("data-moment") === "relative" ? relative(date, now) : calendar(date, now);
      el.title = whole.format(date);
    });
    countdowns(now);
  }

  // The settings' "this browser's zone" choice names the zone (the server learns it only from the cookie).
  document.querySelectorAll("[data-browser-zone]").forEach(function (el) {
    el.textContent = el.getAttribute("data-browser-zone").replace("{zone}", zone);
  });

  render();
  document.addEventListener("htmx:afterSettle", render);
  // After the live area's swap its clock panel is put in place too (static/js/live.js).
  document.addEventListener("drachenhort:area-swapped", function () { setTimeout(render, 0); });
  setInterval(render, 30000);
})();
