// On a conversation, branch or stream page: the fold that holds the step a
// link points to (#anchor) is opened, with every fold around it (and a long
// prompt's own fold, when the step is that prompt), and the
// step scrolled into view; on load and whenever the anchor changes. The
// evidence switch shows or hides every step's evidence fold, and is
// remembered for the next page; the thinking switch opens or closes every
// thought. Without JavaScript the page reads the same, its folds closed, its
// evidence shown by the switch's link to #evidence (site.css).
(function () {
  var root = document.documentElement;
  root.classList.add('js');
  var KEY = 'sessionizer.evidence';

  function remembered() {
    try {
      return window.localStorage.getItem(KEY) === 'on';
    } catch (error) {
      // Storage can be refused (a private window, a policy): the switch then lasts for the page.
      return false;
    }
  }
  function showEvidence(on) {
    root.classList.toggle('evidence-on', on);
    document.querySelectorAll('.evidence-on-link, .evidence-off-link').forEach(function (link) {
      link.setAttribute('role', 'button');
      link.setAttribute('aria-pressed', on ? 'true' : 'false');
    });
    try {
      window.localStorage.setItem(KEY, on ? 'on' : 'off');
    } catch (error) {
      // As above: not remembered, still switched.
    }
  }
  showEvidence(remembered() || location.hash === '#evidence');
  document.addEventListener('click', function (event) {
    var link = event.target.closest && event.target.closest('a[href="#evidence"], a.evidence-off-link');
    if (!link) return;
    event.preventDefault();
    showEvidence(!link.classList.contains('evidence-off-link'));
  });

  var thinking = document.querySelectorAll('details.thinking');
  var thinkingSwitch = document.querySelector('.thinking-switch');
  if (thinkingSwitch && thinking.length > 0) {
    thinkingSwitch.hidden = false;
    thinkingSwitch.setAttribute('aria-pressed', 'false');
    thinkingSwitch.addEventListener('click', function () {
      var open = thinkingSwitch.getAttribute('aria-pressed') !== 'true';
      thinking.forEach(function (fold) {
        fold.open = open;
      });
      thinkingSwitch.setAttribute('aria-pressed', open ? 'true' : 'false');
      thinkingSwitch.textContent = open ? 'Close all thinking' : 'Open all thinking';
    });
  }

  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id) return;
    if (id === 'evidence') {
      showEvidence(true);
      return;
    }
    var target = document.getElementById(id);
    if (!target) return;
    // A link into the evidence (a step's fold, a withheld thought) shows it.
    if (target.closest('.ev, .ev-only')) showEvidence(true);
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
