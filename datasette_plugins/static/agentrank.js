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
