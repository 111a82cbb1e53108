// Datasette 0.65 lists every column description above a table; fold the list so the rows come first.
document.querySelectorAll("dl.column-descriptions").forEach(function (list) {
  var details = document.createElement("details");
  var summary = document.createElement("summary");
  summary.textContent = "What the columns mean";
  details.className = "agentrank-columns";
  list.parentNode.insertBefore(details, list);
  details.appendChild(summary);
  details.appendChild(list);
});

// Datasette 0.65's own forms (the table filters, the SQL editor) have controls without a label
// (axe: label, select-name, critical): name each one for screen readers.
var unlabelled = [
  ["select[name=_filter_column]", "Filter column"],
  ["select[name=_filter_op]", "Filter operator"],
  ["input.filter-value", "Filter value"],
  ["select[name=_sort]", "Sort by column"],
  ["select[name^=_filter_column_]", "Filter column"],
  ["select[name^=_filter_op_]", "Filter operator"],
  ["form.sql textarea, textarea#sql-editor, textarea[name=sql]", "SQL query"],
  [".CodeMirror textarea", "SQL query"],
];
function labelControls() {
  unlabelled.forEach(function (pair) {
    document.querySelectorAll(pair[0]).forEach(function (control) {
      if (!control.getAttribute("aria-label") && !(control.labels && control.labels.length)) {
        control.setAttribute("aria-label", pair[1]);
      }
    });
  });
}
labelControls();
window.addEventListener("load", labelControls); // the SQL editor (CodeMirror) is built after this script

// Tables of class ar-cards show every column where they fit; where they do not (a phone, a narrow
// window, a very long name) each row becomes a card of labelled lines (agentrank.css, ar-as-cards),
// so the page never scrolls sideways. Measured again when the window changes size.
function fitTables(paper) {
  var page = document.documentElement.clientWidth;
  document.querySelectorAll("table.ar-cards").forEach(function (table) {
    table.classList.remove("ar-as-cards");
    var box = table.parentElement ? table.parentElement.getBoundingClientRect() : null;
    var own = table.getBoundingClientRect();
    // (below 760 px, without this class, the table scrolls in its own box: its scrollWidth says so;
    // `paper`: the width of a printed page, measured before the print layout exists)
    if (own.right > page + 0.5 || (box && own.width > box.width + 0.5) || table.scrollWidth > table.clientWidth + 1 ||
        (paper && own.width > paper)) {
      table.classList.add("ar-as-cards");
    }
  });
}
fitTables();
// A printed page is about 700 CSS px wide: a table wider than that prints as cards, not cut off.
window.addEventListener("beforeprint", function () { fitTables(680); });
window.addEventListener("afterprint", function () { fitTables(); });
var fitting = null;
window.addEventListener("resize", function () {
  clearTimeout(fitting);
  fitting = setTimeout(fitTables, 100);
});
