// Offline search over window.SESSIONIZER_SEARCH, one array of entries per
// conversation (search/<conversation>.js): every word of the query must
// appear. Results are built with textContent, never HTML.
(function () {
  var entries = [];
  (window.SESSIONIZER_SEARCH || []).forEach(function (part) {
    for (var index = 0; index < part.length; index++) entries.push(part[index]);
  });
  var query = document.getElementById('query');
  var results = document.getElementById('results');
  var status = document.getElementById('status');
  var lower = entries.map(function (entry) { return (entry.w + ' ' + entry.x).toLowerCase(); });
  function run() {
    var words = query.value.toLowerCase().split(/\s+/).filter(Boolean);
    results.textContent = '';
    if (words.length === 0) { status.textContent = entries.length + ' talks indexed.'; return; }
    var found = 0;
    for (var index = 0; index < entries.length && found < 200; index++) {
      var text = lower[index];
      if (!words.every(function (word) { return text.indexOf(word) >= 0; })) continue;
      found++;
      var item = document.createElement('li');
      var link = document.createElement('a');
      link.href = entries[index].u;
      link.textContent = entries[index].w;
      var excerpt = document.createElement('div');
      var at = Math.max(0, text.indexOf(words[0]) - 80);
      excerpt.textContent = entries[index].x.slice(at, at + 240);
      item.appendChild(link);
      item.appendChild(excerpt);
      results.appendChild(item);
    }
    status.textContent = found + (found === 200 ? '+' : '') + ' talks match.';
  }
  query.addEventListener('input', run);
  var given = new URLSearchParams(location.search).get('q');
  if (given) query.value = given;
  run();
})();
