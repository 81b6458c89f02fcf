// Progressive touches only: the site works without this file.
(function () {
  "use strict";
  // "/" focuses the search box, as on many documentation sites.
  document.addEventListener("keydown", function (e) {
    if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
    var box = document.querySelector("main input[type=search]") || document.querySelector("header input[type=search]");
    if (box) { e.preventDefault(); box.focus(); box.select(); }
  });
  // Filter selects submit their form at once.
  document.querySelectorAll("form.search select").forEach(function (sel) {
    sel.addEventListener("change", function () { if (sel.form.q && sel.form.q.value) sel.form.submit(); });
  });
  // Diff pickers: offer only the versions of the chosen game and language.
  var pick = document.querySelector("form.pick");
  if (pick && pick.game && pick.lang) {
    var sync = function () {
      ["old", "new"].forEach(function (name) {
        var sel = pick[name], first = null;
        Array.prototype.forEach.call(sel.options, function (o) {
          var ok = o.dataset.game === pick.game.value && o.dataset.lang === pick.lang.value;
          o.hidden = !ok; o.disabled = !ok;
          if (ok && first === null) first = o;
        });
        if (sel.selectedOptions.length && sel.selectedOptions[0].disabled && first) sel.value = first.value;
      });
      var opts = Array.prototype.filter.call(pick.new.options, function (o) { return !o.disabled; });
      if (opts.length && pick.new.value === pick.old.value) pick.new.value = opts[opts.length - 1].value;
    };
    pick.game.addEventListener("change", sync);
    pick.lang.addEventListener("change", sync);
    sync();
  }
})();
