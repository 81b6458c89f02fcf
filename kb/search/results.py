"""The parts of a result page around the ranking: rule numbers that name nothing here or a clause of
both games, and the order readers expect at the head of a page (kb.search.ranking.arrange). Functions of a
kb.search.searcher.Searcher (``self``), kept apart so the searcher stays readable."""

from __future__ import annotations

from collections.abc import Iterable

from whoosh.query import And, Term

from kb import ruleid
from kb.analysis import title_key
from kb.search.bounded import whoosh_search
from kb.search.ranking import (
    alternatives,
    arrange,
    coins,
    defines,
    mentions,
    name_of,
    names_it,
    nearest_rules,
    obsolete,
    only_kind,
    see_entry,
    today_of,
)
from kb.versions import history
from kb.versions.order import english_label

GAME_NAMES = {"mtg": "Magic", "dm": "Duel Masters"}
# The first hit's English text comes second only when the query named that hit (a rule number or a name):
# below a weaker first hit the second place goes to another clause (dev MRR@10 0.887 -> 0.895).
PAIR_TIER = 2.6
DEEP = 4  # name hits whose whole subtree is read for the clause defining them
SCANNED = 6  # a rule heading's first clauses read for one saying what its name is


def rule_docs(s, rule: str, **want: str) -> list[int]:
    """Documents of clause ``rule`` whose stored fields hold ``want`` (game, lang, kind, hash), in
    document order. Reads the postings of the rule term alone: asking Whoosh for ``game=mtg`` and
    ``kind=rule`` as well walked posting lists of every document (most of a cold search's time)."""
    reader = s.reader()
    if ("rule", rule) not in reader:
        return []
    fields = s.stored_fields
    # The posting list itself: document_numbers() builds and runs a query per call (a term's
    # defining clause looks at up to 40 clauses).
    return [d for d in reader.postings("rule", rule).all_ids() if all(fields(d).get(k) == v for k, v in want.items())]


def other_game(self, text: str, games: set[str], lang: str | None, hits: list[dict]) -> list[str]:
    """A rule number today's texts of one game hold and the other game's older editions held
    (507.1b): offer that clause too, from the newest edition holding it, with where it went."""
    rule = ruleid.normalize(text)
    notes = []
    s = self.full_searcher()
    for game in sorted(set(GAME_NAMES) - games):
        row = self.store.newest_holding(rule, game, lang)
        if row is None:
            continue
        label, vlang, h = row
        found = rule_docs(s, rule, game=game, lang=vlang, hash=h)
        if not found:
            continue
        hit = self.hit(s, found[0], 2.95, label, [])
        hit["why"] = [f"rule number in {GAME_NAMES[game]}'s edition {label}"]
        hits.insert(1 if hits else 0, hit)
        where = ""
        if games:
            gone = history.successor(self.store, game, vlang, rule, label)
            where = f" until {label}" + (
                f" (now {gone[-1][0]})" if gone and gone[-1][0] else " (removed)" if gone else ""
            )
        notes.append(f"{rule} is a rule number of both games: {GAME_NAMES[game]}'s{where} is shown too")
    return notes


def rule_notes(self, s, text: str, exact: list[int], docs, scored: dict) -> list[str]:
    """Say when a rule number names nothing here (and offer the nearest), or a clause of both games."""
    rule = ruleid.normalize(text)
    if exact:
        games = {s.stored_fields(d)["game"] for d in exact}
        if len(games) > 1:
            return [f"{rule} is a rule of both games: " + " and ".join(GAME_NAMES.get(g, g) for g in sorted(games))]
        return []
    ids = [r for r in s.reader().field_terms("rule") if ruleid.parse(r) is not None]
    near = nearest_rules(rule, ids)
    for i, r in enumerate(near):
        for d in self.exact(s, r, docs)[:3]:
            scored.setdefault(d, (2.9, 100.0 - i))
    if not near:
        return [f"no rule {rule} here"]
    return [f"no rule {rule} here; nearest: {', '.join(near)}"]


def arrange_page(
    self, s, ranked, scored: dict, docs: set[int] | None, want: int, lang_first: str | None = None
) -> None:
    """Defining clause above the name hits, one hit per clause, the first hit's pair second (kb.search.ranking.arrange).
    With ``lang_first`` (a Japanese query), a defining clause found through an English name is shown
    in that language when its text holds the same clause number."""
    page = _Page(self, s, scored, docs, lang_first)
    ranked.order = arrange(ranked.order, s.stored_fields, page.defining, page.pair, window=want + 5)
    # Scores shown stay monotonic: a defining clause takes the score of the name hit it now precedes,
    # a pair the score of the hit it follows, and every other hit at most the score above it.
    head = ranked.order[: want + 5]
    for c, d in page.named_by.items():
        ranked.score[c] = max(ranked.score.get(c, 0.0), ranked.score.get(d, 0.0))
    notes = page.notes
    prev = None
    for d in head:
        own = ranked.score.get(d, prev if prev is not None else 0.0)
        ranked.score[d] = own if prev is None else (prev if d in notes and notes[d].endswith(")") else min(own, prev))
        if d in notes:
            ranked.why[d] = ranked.why.get(d, []) + [notes[d]]
        prev = ranked.score[d]


class _Page:
    """What arranging one result page looks up: defining clauses of the name hits, and pairs."""

    def __init__(self, searcher, s, scored: dict, docs: set[int] | None, lang_first: str | None) -> None:
        self.searcher, self.s, self.scored, self.docs, self.lang_first = searcher, s, scored, docs, lang_first
        self.fields = s.stored_fields
        self.notes: dict[int, str] = {}
        self.named_by: dict[int, int] = {}  # defining clause -> the heading or term hit it is put above
        self.scanned: list[int] = []  # name hits looked at so far
        # The default scope's documents of one game and language (cached by the searcher): a clause's
        # postings are filtered on them before any stored fields are read.
        self.current = s is searcher._searcher(True) and searcher.ix_current is not None

    def text_of(self, d: int) -> str:
        return self.searcher.text_of(self.fields(d))

    def find(self, game: str, lang: str, rule: str, dver: str | None = None) -> int | None:
        reader = self.s.reader()
        if ("rule", rule) not in reader:
            return None
        ids = reader.postings("rule", rule).all_ids()
        if self.current:
            held = self.searcher._scope(game, lang, None)[1]
            ids = [d for d in ids if d in held]
        for d in ids:
            f = self.fields(d)
            if (
                f["kind"] == "rule"
                and f["game"] == game
                and f["lang"] == lang
                and (self.docs is None or d in self.docs)
                and (dver is None or f.get("dver") == dver)
            ):
                return d
        return None

    def defining(self, d: int) -> int | None:
        if not 2.6 <= self.scored.get(d, (0.0,))[0] < 2.9:  # a heading or term the query names, not a number
            return None
        f = self.fields(d)
        if f["kind"] == "rule":
            rule, name = f["rule"], name_of(self.searcher.title_of(f))
        else:
            rule, name = f.get("rule") or "", self.searcher.title_of(f).split(" / ")[0]
            if not rule and not obsolete(self.text_of(d)):
                rule = self.entry_rule(f["game"], f["lang"], see_entry(self.text_of(d)))  # "メイン・フェイズ 参照。"
        if not name:
            return None
        place, named = (f["game"], f["lang"]), f["kind"] == "rule"
        self.scanned.append(d)
        deep = len(self.scanned) <= DEEP  # the clauses below a heading are read for the first few names only
        if f["kind"] == "term" and obsolete(self.text_of(d)):
            c, why = self.today(f["game"], f["lang"], self.text_of(d)), f"today's rule for {name}"
        else:
            # a glossary entry naming several forms (統率、統率領域): the first form a clause is found for
            names = [name] + (sorted(alternatives(name), key=len, reverse=True) if f["kind"] == "term" else [])
            found = ((n, self.definer(*place, rule, n, deep, named)) for n in dict.fromkeys(names))
            name, c = next(((n, c) for n, c in found if c is not None), (name, None))
            why = f"defines {name}"
            if c is not None and self.fields(c).get("rule") == f"{rule}.1" and not defines(self.text_of(c), name):
                why = f"opens {name}"  # a heading's first clause, naming it (404.1 for 墓地)
        if c is not None and self.lang_first and f["lang"] != self.lang_first:
            c = self.find(f["game"], self.lang_first, self.fields(c)["rule"]) or c
        if c is None or c == d:
            return None
        self.notes.setdefault(c, why)
        self.named_by.setdefault(c, d)
        return c

    def definer(self, game: str, lang: str, rule: str, name: str, deep: bool = True, named: bool = True) -> int | None:
        """The clause a judge cites for ``name`` at ``rule``, put above the heading or entry the query names.

        - A rule heading named ``name`` (404 墓地, 504 ドロー・ステップ): a clause among its first few that
          says what the name is (606.2 …は忠誠度能力である。), else its first sub-clause (404.1
          プレイヤーの墓地とは…; 504.1 まず、アクティブ・プレイヤーはカード1枚を引く).
        - The rule a glossary entry points to (``named`` False: Blocked Creature → 509): the same, when
          its first sub-clause names it.
        - A keyword's heading (701.14 Fight): its "a" when that names it, or the "b" when the "a" only
          says what kind of ability it is (702.2a 接死は常在型能力である。 → 702.2b, what it does).
        - Else, below the rule, a clause that coins the name (「X／x」, "becomes a X") or, below a
          clause, defines it; else the clause itself when it names it."""
        if not rule:
            return None
        if "." not in rule:
            first = self.find(game, lang, f"{rule}.1")
            if first is not None and (named or mentions(self.text_of(first), name)):
                # unless a clause a little further down says what the name is (606.2 …は忠誠度能力である。)
                for r in self.first_below(rule, SCANNED):
                    c = self.find(game, lang, r)
                    if c is not None and names_it(self.text_of(c), name):  # not "Xは…": many a clause opens so
                        return c
                return first
        own = self.find(game, lang, rule) if "." in rule else None
        if own is not None and not self.text_of(own):  # a heading without words of its own
            first = self.find(game, lang, f"{rule}a")
            if first is not None and mentions(self.text_of(first), name):
                return self.what_it_does(game, lang, f"{rule}a", first, name)
        if not deep:
            return own if own is not None and mentions(self.text_of(own), name) else None
        below = self.first_below(rule, 40)
        if own is not None and (coins(self.text_of(own), name) or defines(self.text_of(own), name)):
            return own
        for r in below:
            c = self.find(game, lang, r)
            if c is None:
                continue
            text = self.text_of(c)
            # Below a heading only a clause coining the name: "スタックは…" opens many a later sub-clause.
            if text and (coins(text, name) or ("." in rule and defines(text, name))):
                return self.what_it_does(game, lang, r, c, name)
        return own if own is not None and mentions(self.text_of(own), name) else None

    def entry_rule(self, game: str, lang: str, entry: str | None) -> str:
        """The rule the glossary entry named ``entry`` cites ("" when there is none)."""
        for d in self.s.document_numbers(tk=title_key(entry)) if entry else ():
            f = self.fields(d)
            if f["kind"] == "term" and f["game"] == game and f["lang"] == lang and f.get("rule"):
                return f["rule"]
        return ""

    def first_below(self, rule: str, n: int) -> list[str]:
        """The first ``n`` ids below ``rule``, in the rules' order."""
        ids = (b.decode() for b in self.s.reader().expand_prefix("rule", rule))
        return sorted((r for r in ids if rule in ruleid.ancestors(r)), key=ruleid.sort_key)[:n]

    def what_it_does(self, game: str, lang: str, rule: str, c: int, name: str) -> int:
        """``c`` (at ``rule``), or its next sibling when ``c`` only says what kind of ability ``name`` is."""
        if only_kind(self.text_of(c), name) and rule[-1] in ruleid.SUB_LETTERS[:-1]:
            letters = ruleid.SUB_LETTERS
            after = self.find(game, lang, rule[:-1] + letters[letters.index(rule[-1]) + 1])
            if after is not None:
                return after
        return c

    def today(self, game: str, lang: str, definition: str) -> int | None:
        """The clause an obsolete term's reader wants today: the one defining today's name, else the rule it cites."""
        rule, new = today_of(definition)
        if new:
            for d in self.s.document_numbers(tk=title_key(new)):
                f = self.fields(d)
                if f["game"] == game and f["lang"] == lang and f.get("rule") and (self.docs is None or d in self.docs):
                    c = self.find(game, lang, f["rule"])
                    if c is not None:
                        return self.definer(game, lang, f["rule"], new, named=f["kind"] == "rule") or c
        return self.find(game, lang, rule) if rule else None

    def pair(self, d: int) -> int | None:
        named = self.named_by.get(d, d)  # a defining clause stands for the heading or term the query named
        if max(self.scored.get(d, (0.0,))[0], self.scored.get(named, (0.0,))[0]) < PAIR_TIER:
            return None
        f = self.fields(d)
        if f["kind"] != "rule" or f["lang"] != "ja" or not f.get("dver") or "." not in f["rule"]:
            return None  # a Japanese clause's English text (a heading's English title adds nothing)
        label = english_label(f["dver"])
        if not label:
            return None
        found = None
        for c in rule_docs(self.s, f["rule"], game=f["game"], lang="en", kind="rule"):
            dver = self.fields(c).get("dver") or ""
            if (self.docs is None or c in self.docs) and dver == label:
                found = c
        if found is not None:
            self.notes[found] = f"English text of the first hit ({label})"
        return found


NAMED = ("exact name", "translated name", "name prefix")  # the tiers of a hit the query names


def one_row_per_clause(order: Iterable[int], clause_of, want: int) -> list[tuple[int, int | None]]:
    """The first ``want`` rows of a page as (document, other-language document or None), one row per
    clause: the clause's text in the other language (the English edition a Japanese hit renders, or
    the translation of an English hit) rides on its first row instead of taking a row of its own.
    ``clause_of(doc)`` is ((game, rule), lang) for a clause that may pair, None for anything else (an
    article, a glossary entry, a clause of the 2008 private translation: an older numbering's)."""
    rows: list[list] = []
    first: dict[tuple[str, str], tuple[list, str]] = {}
    for d in order:
        if len(rows) >= want:
            break
        clause = clause_of(d)
        if clause is not None:
            key, lang = clause
            if key in first:
                row, row_lang = first[key]
                if row_lang != lang:
                    if row[1] is None:
                        row[1] = d
                    continue  # the same clause again: its row already holds it
            else:
                first[key] = ([d, None], lang)
                rows.append(first[key][0])
                continue
        rows.append([d, None])
    return [(d, other) for d, other in rows]


BESIDE = ("lang", "version", "title", "text", "snippet", "provenance")  # what a row shows of its other text


def removed_rules(self, hits: list[dict], lits: list[str]) -> None:
    """Above an obsolete glossary entry the query names, for a removed rule (マナ・バーン, "this rule
    no longer exists"), put the clause of an old text that defined it (one search over old versions)."""
    for i, hit in enumerate(hits[:3]):
        if hit["kind"] != "term" or not hit["why"] or hit["why"][0] not in NAMED:
            continue
        if not obsolete(hit["text"]) or any(today_of(hit["text"])):
            continue
        name = hit["title"].split(" / ")[0]
        q = self.builder.phrase(name)
        olds = {
            label: vid
            for (g, lang, label), (vid, _date) in self.superseded_ids.items()
            if g == hit["game"] and lang == hit["lang"]
        }
        if q is None or not olds:
            continue
        s = self.full_searcher()
        # A removed rule's name is rare: its few clauses are checked against the versions holding them
        # (a filter of every old version's documents costs half a second to read).
        for h in whoosh_search(s, And([q, Term("game", hit["game"]), Term("lang", hit["lang"])]), limit=10):
            f = h.fields()
            label = newest_holding(self.store, f["hash"], set(olds.values())) if f.get("hash") else None
            if label and f["kind"] == "rule" and coins(self.text_of(f), name):
                old = self.hit(s, h.docnum, hit["score"], label, lits)
                old["why"] = [f"defined {name} in {label} (removed since)"]
                hits.insert(i, old)
                return


def newest_holding(store, h: str, vids: set[int]) -> str | None:
    """The label of the newest of versions ``vids`` holding the text with content hash ``h``."""
    return next((label for vid, label in store.versions_with_text(h) if vid in vids), None)
