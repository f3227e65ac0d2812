// The filter of the index: as one types, only the conversations whose title,
// first prompt or project hold every word stay shown, and a fold of sessions
// with no prompt opens while it holds a match. When it leaves few rows, it
// offers to search every conversation's text for the same words, on the
// search page (search.html?q=…). A classic script, so that it also runs from
// file://; the list is whole without it.
(function () {
  var form = document.querySelector('form.filter');
  var filter = document.getElementById('filter');
  var shown = document.getElementById('shown');
  var none = document.getElementById('none');
  var offer = document.getElementById('search-offer');
  var list = document.getElementById('conversations');
  if (!form || !filter || !list) return;
  // At most this many rows left is few: the words may be in what was said rather than in a title.
  var FEW = 3;
  var offerLink = offer && offer.querySelector('a');
  form.hidden = false;
  form.addEventListener('submit', function (event) { event.preventDefault(); });
  var sections = Array.prototype.map.call(list.querySelectorAll('section.project'), function (section) {
    var project = section.querySelector('.project-path').textContent;
    return {
      element: section,
      fold: section.querySelector('details.without-turns'),
      foldOpen: Boolean(section.querySelector('details.without-turns[open]')),
      rows: Array.prototype.map.call(section.querySelectorAll('li.conversation'), function (row) {
        var prompt = row.querySelector('.prompt');
        return { element: row, text: (row.querySelector('.title').textContent + ' ' + (prompt ? prompt.textContent : '') + ' ' + project).toLowerCase() };
      }),
    };
  });
  var total = sections.reduce(function (sum, section) { return sum + section.rows.length; }, 0);
  function apply() {
    var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    var count = 0;
    sections.forEach(function (section) {
      var visible = 0;
      var folded = 0;
      section.rows.forEach(function (row) {
        var match = words.every(function (word) { return row.text.indexOf(word) >= 0; });
        row.element.hidden = !match;
        if (match) visible++;
        if (match && section.fold && section.fold.contains(row.element)) folded++;
      });
      if (section.fold) {
        section.fold.hidden = words.length > 0 && folded === 0;
        section.fold.open = words.length > 0 ? folded > 0 : section.foldOpen;
      }
      section.element.hidden = visible === 0;
      count += visible;
    });
    shown.textContent = words.length === 0 ? '' : count + ' of ' + total + ' shown';
    none.hidden = count > 0;
    if (offerLink) {
      var typed = filter.value.trim().replace(/\s+/g, ' ');
      offer.hidden = words.length === 0 || count > FEW;
      offerLink.href = 'search.html?q=' + encodeURIComponent(typed);
      offerLink.textContent = 'Search conversations for \u201c' + typed + '\u201d';
    }
  }
  filter.addEventListener('input', apply);
  apply();
})();
