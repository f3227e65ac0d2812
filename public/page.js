// On a conversation, branch or stream page: the fold that holds the step a
// link points to (#anchor) is opened, with every fold around it (and a long
// prompt's own fold, when the step is that prompt), and the
// step scrolled into view; on load and whenever the anchor changes. Without
// JavaScript the page reads the same, its folds closed.
(function () {
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id) return;
    var target = document.getElementById(id);
    if (!target) return;
    for (var at = target; at; at = at.parentElement) if (at.tagName === 'DETAILS') at.open = true;
    // A long prompt linked to is shown whole.
    var prompt = target.querySelector(':scope > details.prompt-long');
    if (prompt) prompt.open = true;
    target.scrollIntoView({ block: 'start' });
  }
  window.addEventListener('hashchange', openTarget);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', openTarget);
  else openTarget();
  // Printing opens every fold, and closes again what it opened.
  var opened = [];
  window.addEventListener('beforeprint', function () {
    document.querySelectorAll('details:not([open])').forEach(function (fold) {
      fold.open = true;
      opened.push(fold);
    });
  });
  window.addEventListener('afterprint', function () {
    opened.forEach(function (fold) {
      fold.open = false;
    });
    opened = [];
  });
})();
