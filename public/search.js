// Offline search over every conversation's steps: a classic script, so that
// it runs from file://. Each conversation's steps are a script of their own
// (search/<conversation>.js) that hands them to window.SESSIONIZER_SEARCH;
// they are loaded one at a time as a query needs them, and kept while they
// fit within KEPT_CHARACTERS, so that a large export is never held whole.
// A step matches when it holds every word of the query, in any case.
// Conversations are ranked by how many of their steps match, then the newest
// first; a conversation's steps by how often the words occur in them, then
// the newest first. Each result links to its step with the words (?q=), which
// page.js marks there. Results are built with DOM methods and text nodes,
// never HTML.
(function () {
  var form = document.querySelector('form.search');
  var query = document.getElementById('query');
  var results = document.getElementById('results');
  var status = document.getElementById('status');
  var list = document.getElementById('search-scripts');
  if (!form || !query || !results || !status || !list) return;
  form.hidden = false;

  var KEPT_CHARACTERS = 64 * 1024 * 1024;
  var PER_CONVERSATION = 20;
  var MOST_RESULTS = 500;
  var BEFORE = 80;
  var AFTER = 180;

  var scripts = Array.prototype.map.call(list.querySelectorAll('li[data-script]'), function (item) { return item.getAttribute('data-script'); });
  var loaded = [];
  var order = [];
  var keptCharacters = 0;
  // What each script hands over, by the script's own address: a query typed
  // while another is still loading may have two scripts loading at once.
  var arrived = {};
  window.SESSIONIZER_SEARCH = { push: function (data) { if (document.currentScript) arrived[document.currentScript.getAttribute('src')] = data; } };

  function sizeOf(data) {
    var size = 0;
    for (var index = 0; index < data.s.length; index++) if (typeof data.s[index][3] === 'string') size += data.s[index][3].length;
    return size;
  }

  function load(number, done) {
    if (loaded[number]) { done(loaded[number]); return; }
    var element = document.createElement('script');
    element.src = scripts[number];
    element.onload = function () {
      var data = arrived[scripts[number]];
      delete arrived[scripts[number]];
      element.remove();
      // The same script loaded twice at once: the first load kept it.
      if (!data || loaded[number]) { done(loaded[number]); return; }
      data.size = sizeOf(data);
      loaded[number] = data;
      order.push(number);
      keptCharacters += data.size;
      while (keptCharacters > KEPT_CHARACTERS && order.length > 1) {
        var dropped = order.shift();
        keptCharacters -= loaded[dropped].size;
        loaded[dropped] = undefined;
      }
      done(data);
    };
    element.onerror = function () { element.remove(); done(undefined); };
    document.body.appendChild(element);
  }

  function escaped(word) { return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }

  function textOf(data, step) {
    var text = step[3];
    return typeof text === 'number' ? data.s[text][3] : text;
  }

  // The snippet around the first match of the first word, every word's
  // matches in it marked.
  function snippet(text, patterns, any) {
    var first = text.search(patterns[0]);
    var start = Math.max(0, first - BEFORE);
    var end = Math.min(text.length, first + AFTER);
    var shown = text.slice(start, end);
    var paragraph = document.createElement('p');
    paragraph.className = 'snippet';
    if (start > 0) paragraph.appendChild(document.createTextNode('…'));
    var at = 0;
    any.lastIndex = 0;
    for (var match = any.exec(shown); match; match = any.exec(shown)) {
      if (match[0] === '') { any.lastIndex++; continue; }
      paragraph.appendChild(document.createTextNode(shown.slice(at, match.index)));
      var mark = document.createElement('mark');
      mark.textContent = match[0];
      paragraph.appendChild(mark);
      at = match.index + match[0].length;
    }
    paragraph.appendChild(document.createTextNode(shown.slice(at)));
    if (end < text.length) paragraph.appendChild(document.createTextNode('…'));
    return paragraph;
  }

  // A time as the index shows it: UTC, to the minute (data/facts.ts, timeShown).
  function timeElement(iso) {
    var time = document.createElement('time');
    time.dateTime = iso;
    time.textContent = iso.slice(0, 10) + ' ' + iso.slice(11, 16) + ' UTC';
    return time;
  }

  // A step's time: its seconds after the conversation's start (search-text.ts).
  function timeOf(data, step) {
    var start = data.d ? Date.parse(data.d) : NaN;
    return typeof step[4] === 'number' && !isNaN(start) ? new Date(start + step[4] * 1000).toISOString() : undefined;
  }

  // The address of a step, with the words for its page to mark.
  function stepAddress(data, step, words) {
    return data.u[step[0]] + '?q=' + encodeURIComponent(words.join(' ')) + '#' + step[1];
  }

  function group(data, hits, more, patterns, any, words) {
    var item = document.createElement('li');
    item.className = 'hit-group';
    var heading = document.createElement('h2');
    var title = document.createElement('a');
    title.href = stepAddress(data, hits[0], words);
    title.className = 'title';
    title.textContent = data.t;
    heading.appendChild(title);
    if (data.p) {
      var project = document.createElement('span');
      project.className = 'project-path';
      project.textContent = data.p;
      heading.appendChild(document.createTextNode(' '));
      heading.appendChild(project);
    }
    if (data.d) {
      heading.appendChild(document.createTextNode(' '));
      heading.appendChild(timeElement(data.d));
    }
    item.appendChild(heading);
    var steps = document.createElement('ol');
    steps.className = 'hits';
    hits.forEach(function (step) {
      var hit = document.createElement('li');
      var link = document.createElement('a');
      link.href = stepAddress(data, step, words);
      link.textContent = step[2];
      hit.appendChild(link);
      var time = timeOf(data, step);
      if (time) {
        hit.appendChild(document.createTextNode(' '));
        hit.appendChild(timeElement(time));
      }
      hit.appendChild(snippet(textOf(data, step), patterns, any));
      steps.appendChild(hit);
    });
    item.appendChild(steps);
    if (more > 0) {
      var rest = document.createElement('p');
      rest.className = 'more';
      rest.textContent = 'and ' + more + ' more ' + (more === 1 ? 'step' : 'steps') + ' in this conversation';
      item.appendChild(rest);
    }
    return item;
  }

  // How many times the words occur in a text.
  function occurrences(text, any) {
    var count = 0;
    any.lastIndex = 0;
    for (var match = any.exec(text); match; match = any.exec(text)) {
      if (match[0] === '') any.lastIndex++;
      else count++;
    }
    return count;
  }

  // A conversation's results go before the first that has fewer matching steps, or as many and started earlier.
  function place(item) {
    var before = null;
    for (var other = results.firstElementChild; other && !before; other = other.nextElementSibling) {
      if (item.matched > other.matched || (item.matched === other.matched && item.started > other.started)) before = other;
    }
    results.insertBefore(item, before);
  }

  var generation = 0;
  function run() {
    var current = ++generation;
    var words = query.value.split(/\s+/).filter(Boolean);
    results.textContent = '';
    if (words.length === 0) { status.textContent = scripts.length + ' conversations to search.'; return; }
    var patterns = words.map(function (word) { return new RegExp(escaped(word), 'i'); });
    var any = new RegExp(words.map(escaped).join('|'), 'gi');
    var found = 0;
    var conversations = 0;
    var number = 0;
    // The page is given back to the reader every few milliseconds, not after
    // every conversation: most are small, and kept from the query before.
    var yielded = Date.now();
    function proceed() {
      if (Date.now() - yielded < 30) { next(); return; }
      yielded = Date.now();
      setTimeout(next, 0);
    }
    function next() {
      if (current !== generation) return;
      if (number >= scripts.length || found >= MOST_RESULTS) {
        status.textContent = found === 0 ? 'Nothing matches.' : found + (found >= MOST_RESULTS ? '+' : '') + ' matching steps in ' + conversations + (conversations === 1 ? ' conversation.' : ' conversations.');
        return;
      }
      status.textContent = 'Searching ' + (number + 1) + ' of ' + scripts.length + ' conversations…';
      load(number++, function (data) {
        if (current !== generation) return;
        if (data) {
          var hits = [];
          for (var index = 0; index < data.s.length; index++) {
            var text = textOf(data, data.s[index]);
            var every = true;
            for (var word = 0; word < patterns.length && every; word++) every = patterns[word].test(text);
            if (every) hits.push({ step: data.s[index], at: index, count: occurrences(text, any), seconds: typeof data.s[index][4] === 'number' ? data.s[index][4] : -Infinity });
          }
          if (hits.length > 0) {
            hits.sort(function (one, other) { return other.count - one.count || other.seconds - one.seconds || one.at - other.at; });
            found += hits.length;
            conversations++;
            var shown = hits.slice(0, PER_CONVERSATION).map(function (hit) { return hit.step; });
            var item = group(data, shown, hits.length - shown.length, patterns, any, words);
            item.matched = hits.length;
            item.started = data.d ? Date.parse(data.d) : -Infinity;
            place(item);
          }
        }
        proceed();
      });
    }
    next();
  }

  var waiting;
  query.addEventListener('input', function () {
    clearTimeout(waiting);
    waiting = setTimeout(function () {
      try { history.replaceState(null, '', query.value ? '?q=' + encodeURIComponent(query.value) : location.pathname); } catch (error) { /* a file:// page may refuse; the results stand */ }
      run();
    }, 200);
  });
  form.addEventListener('submit', function (event) { event.preventDefault(); clearTimeout(waiting); run(); });
  var given = new URLSearchParams(location.search).get('q');
  if (given) query.value = given;
  run();
})();
