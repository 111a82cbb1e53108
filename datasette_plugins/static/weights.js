// "Your own weights" (/-/weights): re-rank the published components in the browser as the
// weights change, show how far each repository moved against the published rank, and keep the
// weights in the page's address so it can be shared. Repository names are set as text, never HTML.
(function () {
  var source = document.getElementById("ar-weights-data");
  if (!source) return;
  var data = JSON.parse(source.textContent);
  var names = data.names;
  var rows = data.rows; // [rank, full_name, stars, category_name, ...components]
  var list = document.getElementById("ar-weights-list");
  var link = document.getElementById("ar-weights-link");
  var base = list.querySelector("a.ar-weights-name");
  var pagePrefix = base ? base.getAttribute("href").slice(0, base.getAttribute("href").indexOf("/-/agent/")) : "";

  function weights() {
    var out = {};
    names.forEach(function (name) {
      var value = parseFloat(document.getElementById("w-" + name).value);
      out[name] = isFinite(value) && value > 0 ? Math.min(value, 100) : 0;
    });
    return out;
  }

  function agentHref(fullName) {
    return pagePrefix + "/-/agent/" + fullName.split("/").map(encodeURIComponent).join("/");
  }

  function fmt(n) {
    return n.toLocaleString("en-US");
  }

  var note = document.getElementById("ar-weights-note");

  function render() {
    var w = weights();
    var total = names.reduce(function (sum, name) { return sum + w[name]; }, 0);
    var ranking = w;
    if (note) {
      // every weight at 0 ranks nothing: the list keeps the published weights and says so
      note.hidden = total > 0;
      note.textContent = total > 0 ? "" : "Every weight is 0, which ranks nothing: the published weights are used.";
    }
    if (!(total > 0)) {
      ranking = {};
      names.forEach(function (name, i) { ranking[name] = data.published[i]; });
      total = data.published.reduce(function (sum, value) { return sum + value; }, 0);
    }
    var scored = rows.map(function (r) {
      var score = 0;
      names.forEach(function (name, i) { score += (ranking[name] / total) * (r[4 + i] || 0); });
      return { rank: r[0], name: r[1], stars: r[2], score: score };
    });
    scored.sort(function (a, b) {
      var d = Math.round(b.score * 1e9) - Math.round(a.score * 1e9);
      if (d) return d;
      if (b.stars !== a.stars) return b.stars - a.stars;
      return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    });
    var fragment = document.createDocumentFragment();
    scored.slice(0, data.shown).forEach(function (r, index) {
      var mine = index + 1;
      var moved = r.rank - mine;
      var li = document.createElement("li");
      li.className = "ar-weights-row";
      li.dataset.name = r.name;
      var rank = document.createElement("span");
      rank.className = "ar-weights-rank";
      rank.textContent = "#" + fmt(mine);
      var a = document.createElement("a");
      a.className = "ar-weights-name";
      a.href = agentHref(r.name);
      a.textContent = r.name;
      var score = document.createElement("span");
      score.className = "ar-weights-score";
      // one decimal, halves up, as the published score is shown (scoring.score.shown)
      score.textContent = (Math.floor(r.score * 10 + 0.5 + 1e-9) / 10).toFixed(1);
      var move = document.createElement("span");
      move.className = "ar-weights-moved";
      move.textContent = moved > 0 ? "▲ " + fmt(moved) + " (published #" + fmt(r.rank) + ")"
        : moved < 0 ? "▼ " + fmt(-moved) + " (published #" + fmt(r.rank) + ")"
        : "= published #" + fmt(r.rank);
      li.append(rank, " ", a, " ", score, " ", move);
      fragment.appendChild(li);
    });
    list.replaceChildren(fragment);
    var query = names.map(function (name) { return name + "=" + encodeURIComponent(String(w[name])); }).join("&");
    var url = location.pathname + "?" + query;
    history.replaceState(null, "", url);
    if (link) link.href = url;
  }

  names.forEach(function (name) {
    var number = document.getElementById("w-" + name);
    var range = document.getElementById("r-" + name);
    number.addEventListener("input", function () { range.value = number.value; render(); });
    range.addEventListener("input", function () { number.value = range.value; render(); });
  });
})();
