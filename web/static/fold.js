// How the contents filter compares what you type with the entries: the same as web/toc.py's fold()
// (tests/test_browser_japanese.py runs both over the same strings). NFKC makes full-width letters and
// digits narrow and half-width katakana full; hiragana becomes katakana (ぶろっく finds ブロック); middle
// dots and spaces are dropped (ブロッククリーチャー finds ブロック・クリーチャー); letters are lower-cased.
(function () {
  "use strict";
  window.rulekbFold = function (s) {
    s = String(s || "").normalize("NFKC").toLowerCase();
    s = s.replace(/[\u3041-\u3096]/g, function (c) { return String.fromCharCode(c.charCodeAt(0) + 0x60); });
    return s.replace(/[\u30fb\s]/g, "");
  };
})();
