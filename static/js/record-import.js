// The import page: a refused record's line is selected in the text area and scrolled into view.
(function () {
  "use strict";
  var area = document.getElementById("record-text");
  var line = area ? parseInt(area.getAttribute("data-error-line") || "", 10) : NaN;
  if (!area || !(line > 0)) {
    return;
  }
  var lines = area.value.split("\n");
  var start = 0;
  for (var i = 0; i < line - 1 && i < lines.length; i += 1) {
    start += lines[i].length + 1;
  }
  var end = start + (lines[line - 1] || "").length;
  area.focus();
  area.setSelectionRange(start, end);
  var height = area.scrollHeight / Math.max(lines.length, 1);
  area.scrollTop = Math.max(0, height * (line - 3));
})();
