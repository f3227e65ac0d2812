// Sorting and filtering of the conversation table: an enhancement only, a
// classic script so that it also runs from file://. The table is whole without it.
(function () {
  var table = document.getElementById('conversations');
  var filter = document.getElementById('filter');
  if (!table || !filter) return;
  filter.parentNode.parentNode.hidden = false;
  var body = table.tBodies[0];
  filter.addEventListener('input', function () {
    var words = filter.value.toLowerCase();
    Array.prototype.forEach.call(body.rows, function (row) {
      row.hidden = words !== '' && row.textContent.toLowerCase().indexOf(words) < 0;
    });
  });
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell, column) {
    cell.setAttribute('data-sortable', '');
    var ascending = true;
    cell.addEventListener('click', function () {
      var numeric = cell.getAttribute('data-type') === 'number';
      var key = function (row) {
        var target = row.cells[column];
        var value = target.getAttribute('data-value') || target.textContent;
        return numeric ? Number(value) : value.toLowerCase();
      };
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1);
      });
      ascending = !ascending;
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
})();
