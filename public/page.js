// On a conversation, branch or stream page: the fold that holds the step a
// link points to (#anchor) is opened, with every fold around it (and a long
// prompt's own fold, when the step is that prompt), and the
// step scrolled into view; on load and whenever the anchor changes. Without
// JavaScript the page reads the same, its folds closed. Nothing opens a fold
// for printing: a page prints as the screen shows it.
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
})();
