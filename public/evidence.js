// On an evidence page (site/generator/evidence-pages.ts): its rows, held in
// the page as landed, compressed with zstd and written in base64, are
// expanded by the zstd decoder (fzstd.js, loaded before this) and shown
// pretty-printed, each in the list item that anchors it, so the row a link
// names (#row-N) stays the page's target, marked by evidence.css and
// scrolled into view. A row's text goes in as text (textContent), never as
// markup: nothing from a transcript is parsed or run. Should anything fail,
// the page stays as it reads without JavaScript, and says why.
(function (scope) {
  // A JSON string (its escapes taken whole), a string left open at the end of
  // the line, a bracket or separator, or a run of anything else; the white
  // space between them (what \s matches) is the only thing not kept.
  var TOKEN = /"[^"\\]*(?:\\[\s\S][^"\\]*)*"|"[\s\S]*|[{}[\],:]|[^\s{}[\],:"]+/g;

  // A line of JSON pretty-printed by re-indenting its text, not by parsing and
  // printing it again: every string, number and key order stays as landed (a
  // number past 2^53 keeps its digits), and a line that is not JSON still
  // shows every character but the white space between its tokens. Two spaces
  // a level, one member or element a line, {} and [] kept whole, ': ' after a key.
  function prettyJson(text) {
    var out = [];
    var indents = [''];
    var depth = 0;
    var opened = false;
    var found;
    function newLine() {
      while (indents.length <= depth) indents.push(indents[indents.length - 1] + '  ');
      out.push('\n', indents[depth]);
    }
    TOKEN.lastIndex = 0;
    while ((found = TOKEN.exec(text)) !== null) {
      var token = found[0];
      var closing = token === '}' || token === ']';
      if (opened) {
        opened = false;
        if (closing) {
          depth--;
          out.push(token);
          continue;
        }
        newLine();
      }
      if (token === '{' || token === '[') {
        out.push(token);
        depth++;
        opened = true;
      } else if (closing) {
        depth = Math.max(0, depth - 1);
        newLine();
        out.push(token);
      } else if (token === ',') {
        out.push(token);
        newLine();
      } else if (token === ':') out.push(': ');
      else out.push(token);
    }
    return out.join('');
  }

  // A size in bytes in words, as the site's pages say it (data/sizes.ts).
  function sizeText(count) {
    if (count < 1024) return count + ' B';
    if (count < 1024 * 1024) return (count / 1024).toFixed(1) + ' KB';
    return (count / 1024 / 1024).toFixed(1) + ' MB';
  }

  // The lines of the landed bytes, each without its newline: the page holds whole lines, each ended by one.
  function linesOf(bytes) {
    var lines = [];
    var start = 0;
    for (var at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, start)) {
      lines.push(bytes.subarray(start, at));
      start = at + 1;
    }
    if (start !== bytes.length) throw new Error('the rows end inside a line');
    return lines;
  }

  // The landed bytes the page holds: base64 text, then a zstd frame.
  function landedBytes(base64) {
    var binary = scope.atob(base64);
    var compressed = new Uint8Array(binary.length);
    for (var index = 0; index < binary.length; index++) compressed[index] = binary.charCodeAt(index);
    return scope.fzstd.decompress(compressed);
  }

  scope.SESSIONIZER_EVIDENCE = { prettyJson: prettyJson, sizeText: sizeText, linesOf: linesOf, landedBytes: landedBytes };
  if (typeof document === 'undefined') return;

  function element(name, className, text) {
    var made = document.createElement(name);
    if (className) made.className = className;
    if (text !== undefined) made.textContent = text;
    return made;
  }

  var list = document.querySelector('ol.row-anchors');
  var data = document.querySelector('.evidence-data');
  if (!list || !data) return;
  try {
    if (!scope.fzstd) throw new Error('the zstd decoder (fzstd.js) did not load');
    var anchors = list.children;
    var lines = linesOf(landedBytes(data.textContent));
    if (lines.length !== anchors.length) throw new Error('the page holds ' + lines.length + ' rows for ' + anchors.length + ' anchors');
    // A line that is not UTF-8 is shown with each invalid sequence replaced; a byte order mark is kept.
    var decoder = new TextDecoder('utf-8', { ignoreBOM: true });
    var seq = list.getAttribute('data-seq');
    for (var index = 0; index < lines.length; index++) {
      var item = anchors[index];
      var row = Number(item.id.slice('row-'.length));
      var label = element('p', 'row-label');
      var self = element('a', '', '{seq ' + seq + ', row ' + row + '}' + (row === 0 ? ': the file’s header' : ''));
      self.setAttribute('href', '#' + item.id);
      label.append(self, ' ', element('span', 'row-size', 'line ' + (row + 1) + ', ' + sizeText(lines[index].length)));
      item.className = 'evidence-row';
      item.replaceChildren(label, element('pre', 'evidence-json', prettyJson(decoder.decode(lines[index]))));
    }
    list.className = 'evidence-rows';
    var note = document.querySelector('.no-script');
    if (note) note.remove();
    // A row's anchor is ASCII, named in the address as it is.
    var target = location.hash.length > 1 ? document.getElementById(location.hash.slice(1)) : null;
    if (target && list.contains(target)) target.scrollIntoView();
  } catch (error) {
    list.before(element('p', 'no-script', 'The rows could not be shown here: ' + error.message + '. The landed file linked above holds them.'));
  }
})(this);
