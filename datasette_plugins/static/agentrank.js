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
