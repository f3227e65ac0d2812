// On a conversation, branch or stream page: the fold that holds the step a
// link points to (#anchor) is opened, with every fold around it (and a long
// prompt's own fold, when the step is that prompt), and the
// step scrolled into view; on load and whenever the anchor changes. A link
// from search also marks its words in the step (land). The evidence switch
// shows or hides every step's evidence fold, and is remembered for the next
// page; the thinking switch opens or closes every thought. Without
// JavaScript the page reads the same, its folds closed, its evidence shown
// by the switch's link to #evidence (site.css).
// Code is left plain by the export and highlighted when a block is first
// shown, on the screen or about to be, by code/highlight.js, loaded then
// (src/site/generator/browser-highlight.ts): a block in a closed fold once
// the fold is opened. Without JavaScript it reads the same, plain.
// Nothing opens a fold for printing: a page prints as the screen shows it.
(function () {
  var root = document.documentElement;
  var scriptFolder = document.currentScript ? document.currentScript.src.replace(/[^/]*$/, '') : '';
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
  // Landing first: the folds it opens are shown, and their code with them.
  function ready() {
    land();
    highlightWhenShown();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready);
  else ready();

  // A search result's link carries its words (search.html → page.html?q=words#step):
  // on arrival every match in the step is marked, the folds that hold one
  // are opened, and the first is scrolled into view. The words are only
  // ever matched and the marks made of the page's own text nodes: nothing of
  // the address is put into the page.
  function searchWords() {
    return (new URLSearchParams(location.search).get('q') || '').split(/\s+/).filter(Boolean);
  }
  function land() {
    openTarget();
    var words = searchWords();
    var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (words.length === 0 || !target) return;
    var marks = markWords(target, words);
    marks.forEach(function (mark) {
      for (var at = mark.parentElement; at && at !== target; at = at.parentElement) if (at.tagName === 'DETAILS') at.open = true;
    });
    var firstShown = function () {
      return Array.prototype.filter.call(target.querySelectorAll('mark.found'), function (mark) { return mark.getClientRects().length > 0; })[0];
    };
    var first = firstShown();
    if (!first) return;
    first.scrollIntoView({ block: 'center' });
    // The browser may scroll to the anchor once the page has loaded: the first
    // match stays in view, found again, as highlighting its code made new marks.
    window.addEventListener('load', function () {
      var again = firstShown();
      if (again) again.scrollIntoView({ block: 'center' });
    }, { once: true });
  }

  var highlighter;
  function loadHighlighter() {
    if (!highlighter) {
      highlighter = new Promise(function (resolve, reject) {
        var script = document.createElement('script');
        script.src = scriptFolder + 'code/highlight.js';
        script.onload = function () {
          if (window.SESSIONIZER_HIGHLIGHT) resolve(window.SESSIONIZER_HIGHLIGHT);
          else reject(new Error(script.src + ' gave no highlighter'));
        };
        script.onerror = function () { reject(new Error(script.src + ' did not load')); };
        document.head.appendChild(script);
      });
    }
    return highlighter;
  }
  // A block is shown once the browser lays it out near the screen: one in a
  // closed fold is not laid out, and is met when the fold opens. A screen's
  // height ahead, so that the reader seldom sees it plain; words a search
  // marked in one are marked again.
  function highlightWhenShown() {
    var blocks = document.querySelectorAll('pre[data-highlight="when-shown"]');
    if (blocks.length === 0 || !window.IntersectionObserver) return;
    var watcher = new IntersectionObserver(function (entries) {
      var shown = entries.filter(function (entry) { return entry.isIntersecting; }).map(function (entry) { return entry.target; });
      if (shown.length === 0) return;
      shown.forEach(function (block) { watcher.unobserve(block); });
      loadHighlighter().then(function (highlight) {
        shown.forEach(function (block) {
          var marked = block.querySelector('mark.found') !== null;
          highlight(block).then(function () {
            if (marked) markWords(block, searchWords());
          }, function () {
            // A grammar that did not load leaves its block plain.
          });
        });
      }, function () {
        // Without its highlighter the code reads the same, plain.
      });
    }, { rootMargin: '100% 0px' });
    blocks.forEach(function (block) { watcher.observe(block); });
  }

  // Wraps every match of the words within `root` in <mark class="found">, a
  // match spread over several text nodes (highlighted code) in one mark per
  // node; the evidence folds are left as they are. Returns the marks in order.
  function markWords(root, words) {
    var pattern = new RegExp(words.map(function (word) { return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }).join('|'), 'gi');
    var nodes = [];
    var starts = [];
    var text = '';
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: function (node) { return node.parentElement && node.parentElement.closest('.ev, script, style') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT; },
    });
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      starts.push(text.length);
      nodes.push(node);
      text += node.data;
    }
    var matches = [];
    for (var match = pattern.exec(text); match; match = pattern.exec(text)) {
      if (match[0] === '') pattern.lastIndex++;
      else matches.push([match.index, match.index + match[0].length]);
    }
    // Each node's pieces, last first, so that splitting a node leaves the offsets before it as they were.
    var marks = [];
    for (var index = nodes.length - 1; index >= 0; index--) {
      var from = starts[index];
      var to = from + nodes[index].data.length;
      for (var each = matches.length - 1; each >= 0; each--) {
        var start = Math.max(matches[each][0], from);
        var end = Math.min(matches[each][1], to);
        if (start >= end) continue;
        nodes[index].splitText(end - from);
        var piece = nodes[index].splitText(start - from);
        var mark = document.createElement('mark');
        mark.className = 'found';
        piece.parentNode.replaceChild(mark, piece);
        mark.appendChild(piece);
        marks.push(mark);
      }
    }
    return marks.reverse();
  }
})();
