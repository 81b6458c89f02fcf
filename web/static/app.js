// Progressive touches only: every page works without this file (no build step, no dependencies).
(function () {
  "use strict";
  var $ = function (sel, root) { return (root || document).querySelector(sel); };
  var $$ = function (sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); };
  var typing = function (t) { return t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)); };
  var el = function (tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  };
  var plain = function (segs) { return (segs || []).map(function (s) { return s[0]; }).join(""); };
  var clip = function (s, n) { s = (s || "").replace(/\s+/g, " ").trim(); return s.length > n ? s.slice(0, n - 1) + "…" : s; };

  // -- keyboard: "/" search, ←/→ previous/next page, j/k next/previous clause on the page ---------
  var subIndex = -1;
  function moveSub(step) {
    var subs = $$(".subs .sub");
    if (!subs.length) return false;
    if (subIndex < 0 && location.hash) subIndex = subs.findIndex(function (s) { return "#" + s.id === location.hash; });
    subIndex = Math.max(0, Math.min(subs.length - 1, subIndex + step));
    subs.forEach(function (s) { s.classList.remove("kbd"); });
    var target = subs[subIndex];
    target.classList.add("kbd");
    target.setAttribute("tabindex", "-1");
    target.focus({ preventScroll: true });
    target.scrollIntoView({ block: "start" });
    history.replaceState(null, "", "#" + target.id);
    return true;
  }
  function follow(rel) {
    var a = $('link[rel="' + rel + '"]') || $('a[rel="' + rel + '"]');
    if (a) location.href = a.href;
  }
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    if (e.key === "/") {
      var box = $("main input[type=search]") || $("header input[type=search]");
      if (box) { e.preventDefault(); box.focus(); box.select(); }
    } else if (e.key === "ArrowRight" && !e.shiftKey) { follow("next"); }
    else if (e.key === "ArrowLeft" && !e.shiftKey) { follow("prev"); }
    else if (e.key === "j") { if (!moveSub(1)) follow("next"); }
    else if (e.key === "k") { if (!moveSub(-1)) follow("prev"); }
  });

  // -- filter selects submit their form at once --------------------------------------------------------
  $$("form.search select").forEach(function (sel) {
    sel.addEventListener("change", function () { if (sel.form.q && sel.form.q.value) sel.form.submit(); });
  });

  // -- diff picker: offer only the versions of the chosen game and language ---------------------------
  var pick = $("form.pick");
  if (pick && pick.game && pick.lang) {
    var sync = function (changed) {
      var enabled = [];
      ["old", "new"].forEach(function (name) {
        var list = [];
        Array.prototype.forEach.call(pick[name].options, function (o) {
          var ok = o.dataset.game === pick.game.value && o.dataset.lang === pick.lang.value;
          o.hidden = !ok; o.disabled = !ok;
          if (ok) list.push(o.value);
        });
        enabled = list;
      });
      var bad = function (sel) { return !sel.selectedOptions.length || sel.selectedOptions[0].disabled; };
      if (enabled.length && (changed || bad(pick.old) || bad(pick.new))) {
        pick.new.value = enabled[enabled.length - 1];  // the newest update by default
        pick.old.value = enabled[Math.max(0, enabled.length - 2)];
      }
    };
    pick.game.addEventListener("change", function () { sync(true); });
    pick.lang.addEventListener("change", function () { sync(true); });
    sync(false);
  }

  // -- suggestions as you type, from the search JSON -------------------------------------------------
  var boxes = 0;
  $$('form[role=search] input[name=q][type=search]').forEach(function (input) {
    var id = "suggest-" + (++boxes), list = el("ul", "suggest"), timer = 0, seq = 0, items = [], active = -1, ctl = null;
    list.id = id; list.setAttribute("role", "listbox"); list.setAttribute("aria-label", "候補"); list.hidden = true;
    input.parentNode.appendChild(list);
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-controls", id);
    input.setAttribute("aria-expanded", "false");
    var close = function () {
      list.hidden = true; active = -1; input.setAttribute("aria-expanded", "false"); input.removeAttribute("aria-activedescendant");
    };
    var mark = function (i) {
      active = i;
      $$("li", list).forEach(function (li, k) { li.setAttribute("aria-selected", k === i ? "true" : "false"); });
      if (i >= 0) input.setAttribute("aria-activedescendant", id + "-" + i); else input.removeAttribute("aria-activedescendant");
    };
    var show = function (data) {
      items = [];
      if (data.jump) items.push({ url: data.jump, head: (data.query || "") + " へ移動", meta: "ルール番号" });
      // Nothing but guesses is no suggestion (the server already gives one row per clause).
      (data.confidence === "low" ? [] : data.results || []).forEach(function (r) {
        items.push({ url: r.url, head: ((r.rule || "") + " " + (r.title || "")).trim() || clip(plain(r.segments), 40),
                     meta: r.game + "/" + r.lang + " " + (r.version || "") + " · " + clip(plain(r.segments), 60) });
      });
      list.textContent = "";
      items.forEach(function (it, k) {
        var li = el("li"); li.id = id + "-" + k; li.setAttribute("role", "option"); li.setAttribute("aria-selected", "false");
        li.appendChild(el("span", "s-head", it.head)); li.appendChild(el("span", "s-meta", it.meta));
        li.addEventListener("mousedown", function (e) { e.preventDefault(); location.href = it.url; });
        list.appendChild(li);
      });
      if (items.length) { list.hidden = false; input.setAttribute("aria-expanded", "true"); mark(-1); } else close();
    };
    var ask = function () {
      var q = input.value.trim(), mine = ++seq;
      if (q.length < 2) { close(); return; }
      if (ctl) ctl.abort();
      ctl = window.AbortController ? new AbortController() : null;
      fetch("/api/search?" + new URLSearchParams({ q: q, per_page: "6" }), { signal: ctl && ctl.signal })
        .then(function (r) { return r.ok ? r.json() : { results: [] }; })
        .then(function (data) { if (mine === seq && document.activeElement === input) show(data); })
        .catch(function () {});
    };
    input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(ask, 200); });
    input.addEventListener("blur", function () { setTimeout(close, 100); });
    input.addEventListener("keydown", function (e) {
      if (list.hidden) return;
      if (e.key === "ArrowDown") { e.preventDefault(); mark(Math.min(items.length - 1, active + 1)); }
      else if (e.key === "ArrowUp") { e.preventDefault(); mark(Math.max(-1, active - 1)); }
      else if (e.key === "Escape") { close(); }
      else if (e.key === "Enter" && active >= 0) { e.preventDefault(); location.href = items[active].url; }
    });
  });

  // -- hover or focus preview of a cited rule, from the clause's JSON twin ---------------------------
  var tip = null, tipFor = null, tipTimer = 0, cache = {};
  var hideTip = function () {
    clearTimeout(tipTimer);
    if (tip) tip.remove();
    if (tipFor) tipFor.removeAttribute("aria-describedby");
    tip = null; tipFor = null;
  };
  var showTip = function (a, data) {
    hideTip();
    tip = el("div", "preview"); tip.id = "preview"; tip.setAttribute("role", "tooltip");
    tip.lang = data.lang || "";
    var term = !data.rule && data.term;  // a defined term: its glossary entry
    var head = term ? data.term + (data.counterpart ? " / " + data.counterpart : "") + " — 用語集"
      : data.rule + (data.title ? " " + data.title : "") + " (" + (data.version && data.version.version || "") + ")";
    tip.appendChild(el("div", "p-head", head));
    var body = term ? data.definition : data.text || (data.descendants || []).map(function (d) { return d.rule + " " + (d.text || d.title); }).join(" ");
    if (body) tip.appendChild(el("p", "p-text", clip(body, 420)));
    document.body.appendChild(tip);
    var r = a.getBoundingClientRect(), w = tip.offsetWidth;
    tip.style.top = (window.scrollY + r.bottom + 6) + "px";
    tip.style.left = Math.max(4, Math.min(window.scrollX + r.left, window.scrollX + document.documentElement.clientWidth - w - 4)) + "px";
    a.setAttribute("aria-describedby", "preview");
    tipFor = a;
  };
  var wantTip = function (a) {
    clearTimeout(tipTimer);
    tipTimer = setTimeout(function () {
      var url = new URL(a.href, location.href);
      if (url.origin !== location.origin) return;
      var key = "/api" + url.pathname;
      var got = cache[key] || (cache[key] = fetch(key).then(function (r) { return r.ok ? r.json() : null; }).catch(function () { return null; }));
      got.then(function (data) { if (data && (data.rule || data.term) && (a.matches(":hover") || a === document.activeElement)) showTip(a, data); });
    }, 150);
  };
  var refOf = function (t) { return t && t.closest ? t.closest("a.ref[data-rule], a[data-rule], a.term[data-term]") : null; };
  document.addEventListener("mouseover", function (e) { var a = refOf(e.target); if (a) wantTip(a); });
  document.addEventListener("mouseout", function (e) { if (refOf(e.target)) hideTip(); });
  document.addEventListener("focusin", function (e) { var a = refOf(e.target); if (a) wantTip(a); else hideTip(); });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") hideTip(); });

  // -- copy the permalink or the citation -----------------------------------------------------------
  var copy = function (text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    var t = el("textarea"); t.value = text; document.body.appendChild(t); t.select();
    try { document.execCommand("copy"); } finally { t.remove(); }
    return Promise.resolve();
  };
  $$("[data-copy-url], [data-copy-text]").forEach(function (b) {
    b.hidden = false;
    b.addEventListener("click", function () {
      var text = b.dataset.copyUrl ? new URL(b.dataset.copyUrl, location.href).href : b.dataset.copyText;
      var said = b.parentNode.querySelector(".copied");
      copy(text).then(function () { if (said) said.textContent = "コピーしました: " + text; });
    });
  });

  // -- contents: filter as you type, open or close everything ----------------------------------------
  var filter = $("[data-toc-filter]"), toc = $("ul.toc");
  if (filter && toc) {
    var entries = [], texts = [], count = $("[data-toc-count]"), whole = null;
    var fold = window.rulekbFold || function (s) { return s.toLowerCase(); };  // static/fold.js
    var index = function () {
      entries = $$("li[data-rule]", toc);
      texts = entries.map(function (li) { var a = li.querySelector("a, summary"); return fold(a ? a.textContent : ""); });
    };
    // A contents folded by section (a whole edition) holds its sections only: the first filter or "open all"
    // fetches the whole list once (?part=all) and works on it as on any contents.
    var unfold = function () {
      if (!("folded" in toc.dataset)) return Promise.resolve();
      whole = whole || fetch(filter.form.action + "?part=all").then(function (r) { return r.text(); }).then(function (html) {
        var list = new DOMParser().parseFromString(html, "text/html").querySelector("ul.toc");
        if (!list) throw new Error("no contents");
        toc.textContent = "";
        Array.prototype.slice.call(list.children).forEach(function (li) { toc.appendChild(document.importNode(li, true)); });
        delete toc.dataset.folded;
        index();
      });
      return whole;
    };
    var apply = function () {
      var q = fold(filter.value.trim()), shown = 0;
      entries.forEach(function (li, i) {
        var hit = !q || li.dataset.rule.indexOf(q) === 0 || texts[i].indexOf(q) >= 0;
        li.dataset.hit = hit ? "1" : "";
      });
      entries.slice().reverse().forEach(function (li) {  // a match keeps its ancestors visible and open
        var keep = !q || li.dataset.hit === "1" || !!li.querySelector('li[data-hit="1"]');
        li.hidden = !keep;
        if (keep && q && li.dataset.hit) shown++;
        var d = li.querySelector(":scope > details");
        if (d && q) d.open = keep && !!li.querySelector('li[data-hit="1"]');
      });
      if (count) count.textContent = q ? shown + " 件" : "";
    };
    var filtered = function () {  // the whole list could not be fetched: the server filters (the form)
      unfold().then(apply, function () { whole = null; filter.form.submit(); });
    };
    index();
    var t = 0;
    filter.addEventListener("input", function () { clearTimeout(t); t = setTimeout(filtered, 120); });
    filter.form.addEventListener("submit", function (e) { if (entries.length) { e.preventDefault(); filtered(); } });
    $$("[data-toc]").forEach(function (b) {
      b.hidden = false;
      b.addEventListener("click", function () {
        unfold().then(function () { $$("details", toc).forEach(function (d) { d.open = b.dataset.toc === "open"; }); },
          function () { whole = null; });
      });
    });
  }

  // -- large diffs: load a section's changes when it is opened ---------------------------------------
  $$("details.part[data-src]").forEach(function (d) {
    d.addEventListener("toggle", function () {
      if (!d.open || d.dataset.loaded) return;
      d.dataset.loaded = "1";
      var body = $(".part-body", d);
      body.textContent = ""; body.appendChild(el("p", "loading", "読み込み中…"));
      fetch(d.dataset.src).then(function (r) { return r.text(); }).then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html"), part = doc.getElementById("changes");
        var list = doc.querySelector("ul.toc");
        if (!part && list) {  // a part of the contents: its entries, under the summary already shown here
          part = (list.children.length === 1 && list.querySelector(":scope > li > details > ul")) || list;
        }
        body.textContent = "";
        if (part) {  // the part's own ids would repeat on this page
          part.removeAttribute("id"); $$("[id]", part).forEach(function (e) { e.removeAttribute("id"); });
          body.appendChild(document.importNode(part, true));
        }
        else body.appendChild(el("p", "error", "読み込めませんでした。"));
      }).catch(function () { body.textContent = "読み込めませんでした。"; delete d.dataset.loaded; });
    });
  });

  // -- a rule page in parts (702): an anchor to a clause of another part opens that part ---------------
  var ranges = $$("nav.parts a[data-first]");
  if (ranges.length && location.hash.length > 1) {
    var wanted = decodeURIComponent(location.hash.slice(1));
    var order = function (a, b) {  // clause ids in rules order: 702.9 < 702.19 < 702.19b < 702.19z < 702.19aa
      var x = a.match(/\d+|[a-z]+/g) || [], y = b.match(/\d+|[a-z]+/g) || [];
      for (var i = 0; i < Math.min(x.length, y.length); i++) {
        var nx = /^\d/.test(x[i]), ny = /^\d/.test(y[i]);
        var d = nx && ny ? +x[i] - +y[i] : nx !== ny ? (nx ? -1 : 1) : x[i].length - y[i].length || (x[i] < y[i] ? -1 : x[i] > y[i] ? 1 : 0);
        if (d) return d;
      }
      return x.length - y.length;
    };
    if (!document.getElementById(wanted)) {
      var home = ranges.filter(function (a) { return order(a.dataset.first, wanted) <= 0 && order(wanted, a.dataset.last) <= 0; })[0];
      if (home) location.replace(home.href.split("#")[0] + "#" + encodeURIComponent(wanted));
    }
  }

  // -- print everything, folded parts included ---------------------------------------------------------
  var closed = [];
  window.addEventListener("beforeprint", function () {
    closed = $$("details:not([open])"); closed.forEach(function (d) { d.open = true; });
  });
  window.addEventListener("afterprint", function () { closed.forEach(function (d) { d.open = false; }); closed = []; });
})();
