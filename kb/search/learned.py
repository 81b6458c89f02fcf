"""The learned ranker: a LambdaMART model re-orders the head of each page's candidates.

The word tiers (kb.search.query) and the dense top-k (kb.search.semantic) find the candidates; the
model, trained by ``bench/train_ranker.py`` on queries made from the corpus (never from an evaluation
set), orders them by features of each (query, clause) pair: the word tier and its BM25 score, the
dense cosine of the clause and of its parent, how many of the query's words the clause (and the
clause with its parent) holds, weighted by rarity, and how close together, the clause's kind and
depth, language, game, edition and provenance, and whether it defines a word of the query.

Rule numbers and names the query spells exactly keep their direct jump: hits of those tiers stay on
top in their own order. The model ships in kb/data as LightGBM's JSON dump; it is evaluated here
with numpy, tree by tree over all candidates at once (lightgbm is needed only to train it).
"""

from __future__ import annotations

import json
import math
import re
import threading
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from kb import ruleid
from kb.analysis import sudachi_tokenizer, words
from kb.search.query import HAS_JA
from kb.search.ranking import defines

MODEL_FILE = Path(__file__).resolve().parents[1] / "data" / "ranker.json"
GUARD = 2.6  # hits of a tier at or above this (rule number, a name exact, translated, read alike or by prefix) stay
HEAD = 50  # candidates re-ordered per page (at least the page's depth plus a few)
CLAUSE_MAP_AFTER = 1000  # clause lookups after which a searcher maps the default scope's clauses at once
PAGE_DEPTH = 40  # every page up to this depth is ranked as the page of this depth is

_QUESTION = re.compile(
    r"[?？]\s*$|どうな|とは|でき|ですか|ますか|(?<=[ぁ-ん])か\s*$|いつ|なぜ|どう|何|\b(?:what|when|how|can|does|is)\b",
    re.I,
)
_PROVENANCE = {"official": 0, "official-translation": 1, "viewer": 2, "wiki-quote": 3, "private-translation": 4}
_KINDS = {"rule": 0, "term": 1, "article": 2}
_DEPTH = {"section": 0, "rule": 1, "clause": 2, "subclause": 3}

FEATURES = (
    "tier",
    "tier_score",
    "lex_rank",
    "fused_rank",
    "cos",
    "cos_gap",
    "cos_rank",
    "parent_cos",
    "kind",
    "depth",
    "text_len",
    "lang_ja",
    "query_ja",
    "lang_match",
    "game_pref",
    "game_dm",
    "superseded",
    "provenance",
    "nvers",
    "cov_ja",
    "wcov_ja",
    "cov_title",
    "cov_en",
    "wcov_en",
    "cov_parent",
    "wcov_parent",
    "span",
    "n_keys",
    "query_len",
    "question",
    "defines",
    "title_in_query",
    "cov_norm",
    "cov_norm_parent",
    "cov_syn",
    "bm25_ja",
    "bm25_jt",
    "bm25_jr",
    "bm25_jb",
    "bm25_en",
    "bm25_et",
    "pair_cos",
)


# -- Sudachi: normalised forms (置ける -> 置く, 生贄 -> 生け贄) and synonym groups (負け <-> 敗北) ----------------
_SUDACHI_KEEP = ("名詞", "動詞", "形容詞", "副詞", "形状詞")
_SUDACHI_STOP = frozenset(["為る", "有る", "居る", "成る", "出来る", "事", "物", "此の", "其の", "場合", "為"])
_sudachi_lock = threading.Lock()
_forms: OrderedDict[str, tuple[frozenset[str], frozenset[int]]] = OrderedDict()
_FORMS_CACHE = 50_000  # distinct texts: the default scope has about 9,000


def _sudachi():
    """This thread's Sudachi tokenizer (mode C) over the dictionary kb.analysis shares."""
    return sudachi_tokenizer("C")


def sudachi_forms(text: str) -> tuple[frozenset[str], frozenset[int]]:
    """The normalised forms of ``text``'s content words, and their synonym groups (cached per text)."""
    with _sudachi_lock:
        hit = _forms.get(text)
    if hit is not None:
        return hit
    forms: set[str] = set()
    groups: set[int] = set()
    norm = unicodedata.normalize("NFKC", text)[:4000]
    for m in _sudachi().tokenize(norm):
        pos = m.part_of_speech()
        form = m.normalized_form()
        if (
            pos[0] not in _SUDACHI_KEEP
            or pos[1] == "数詞"
            or form in _SUDACHI_STOP
            or len(form) < 2
            and not "\u4e00" <= form <= "\u9fff"
        ):
            continue
        forms.add(form)
        groups.update(m.synonym_group_ids())
    result = (frozenset(forms), frozenset(groups))
    with _sudachi_lock:
        _forms[text] = result
        while len(_forms) > _FORMS_CACHE:
            _forms.popitem(last=False)
    return result


def _norm_cover(query: tuple, text: tuple, syn: bool = False) -> float:
    """The share of the query's normalised forms in a text's (or, with ``syn``, of its synonym groups too)."""
    q_forms, _ = query
    if not q_forms:
        return 0.0
    forms, groups = text
    got = 0
    for f in q_forms:
        if f in forms or (syn and _group_of(f) & groups):
            got += 1
    return got / len(q_forms)


_NO_FORMS: tuple[frozenset[str], frozenset[int]] = (frozenset(), frozenset())
_groups_of_form: dict[str, frozenset[int]] = {}


def _group_of(form: str) -> frozenset[int]:
    if form not in _groups_of_form:
        _groups_of_form[form] = sudachi_forms(form)[1]
    return _groups_of_form[form]


@dataclass
class QueryFacts:
    """What the features need to know of one query, worked out once per search."""

    text: str
    ja_keys: list[str]
    en_keys: list[str]
    jr_keys: list[str] = field(default_factory=list)
    jb_keys: list[str] = field(default_factory=list)
    ja_idf: dict[str, float] = field(default_factory=dict)
    en_idf: dict[str, float] = field(default_factory=dict)
    question: bool = False
    japanese: bool = False
    prefer: str | None = None
    forms: tuple = _NO_FORMS


def query_facts(searcher, s, text: str, prefer: str | None) -> QueryFacts:
    """The word keys of ``text`` in the Japanese and English fields, with their rarity in ``s``."""
    ja_keys = list(dict.fromkeys(w.key for w in words(text, searcher.vocab)))
    schema = searcher.schema
    en_keys = list(dict.fromkeys(t.text for t in schema["en"].analyzer(text)))
    japanese = bool(HAS_JA.search(text))
    reader = s.reader()
    n = max(1, reader.doc_count_all())

    def idf(fieldname: str, key: str) -> float:
        return math.log(1 + n / (1 + reader.doc_frequency(fieldname, key)))

    return QueryFacts(
        text=text,
        ja_keys=ja_keys,
        en_keys=en_keys,
        ja_idf={k: idf("ja", k) for k in ja_keys},
        en_idf={k: idf("en", k) for k in en_keys},
        question=bool(_QUESTION.search(text)),
        japanese=japanese,
        prefer=prefer,
        jr_keys=list(dict.fromkeys(t.text for t in schema["jr"].analyzer(text))) if japanese else [],
        jb_keys=list(dict.fromkeys(t.text for t in schema["jb"].analyzer(text))) if japanese else [],
        forms=sudachi_forms(text) if HAS_JA.search(text) else _NO_FORMS,
    )


def _presence(
    s,
    fieldname: str,
    keys: list[str],
    docs: list[int],
    positions: bool = False,
    bm25: dict | None = None,
    postings=None,
) -> dict[str, dict]:
    """key -> {doc: positions (or True)} for the documents of ``docs`` (sorted) holding it in
    ``fieldname``; with ``bm25`` (a dict), each document's BM25 score of the keys is added to it.
    ``postings(s, field, key)`` gives a term's kept (documents, scores) arrays, or None.

    Given ``docs`` out of order (the candidates, for the et, jr and jb fields), a document is found only
    when it comes after every earlier one: that is how the matcher walk reads them, and the shipped
    model was trained on those values (read in document order and retrained, it was no better:
    docs/search.md, "A third frozen blind set, and a retrain not shipped")."""
    reader = s.reader()
    out: dict[str, dict] = {}
    for key in keys:
        held: dict[int, object] = {}
        kept = None if positions or postings is None else postings(s, fieldname, key)
        if kept is not None:
            # the term's (documents, scores) a word tier read: the same scores as its matcher's
            ids, scores = kept
            if ids is not None and ids.size and docs:
                at = ids.searchsorted(docs).tolist()
                reach = -1
                for d, i in zip(docs, at, strict=True):
                    # A matcher only moves forward: given ``docs`` out of order, it finds a document
                    # only past every earlier one (the ranker was trained on those values).
                    if d < reach:
                        continue
                    reach = d
                    if i < ids.size and ids[i] == d:
                        held[d] = True
                        if bm25 is not None:
                            bm25[d] = bm25.get(d, 0.0) + float(scores[i])
        elif (fieldname, key) in reader:
            m = s.postings(fieldname, key)
            for d in docs:
                if not m.is_active():
                    break
                if m.id() < d:
                    m.skip_to(d)
                    if not m.is_active():
                        break
                if m.id() == d:
                    held[d] = m.value_as("positions") if positions else True
                    if bm25 is not None:
                        bm25[d] = bm25.get(d, 0.0) + m.score()
        out[key] = held
    return out


def _span(pos_lists: list[list[int]]) -> int:
    """The fewest consecutive positions holding one of each list (the query's words close together)."""
    events = sorted((p, i) for i, ps in enumerate(pos_lists) for p in ps)
    need, have, best, left = len(pos_lists), {}, 1 << 30, 0
    for p, i in events:
        have[i] = have.get(i, 0) + 1
        while len(have) == need:
            q, j = events[left]
            best = min(best, p - q + 1)
            have[j] -= 1
            if not have[j]:
                del have[j]
            left += 1
    return best if best < 1 << 30 else 0


def features(
    searcher, s, facts: QueryFacts, docs: list[int], ranked, scored: dict, dense: list, qvec
) -> list[list[float]]:
    """One row of ``FEATURES`` per candidate document, in the order of ``docs``."""
    fields = [s.stored_fields(d) for d in docs]
    parents: dict[int, int] = {}
    for d, f in zip(docs, fields, strict=True):
        up = ruleid.parent(f["rule"]) if f.get("kind") == "rule" and f.get("rule") else None
        if up:
            found = _find_rule(searcher, s, f["game"], f["lang"], up, f.get("dver"))
            if found is not None:
                parents[d] = found
    everyone = sorted(set(docs) | set(parents.values()))
    bm25: dict[str, dict[int, float]] = {f: {} for f in ("ja", "jt", "jr", "jb", "en", "et")}
    kept = searcher.term_postings
    ja = _presence(s, "ja", facts.ja_keys, everyone, positions=True, bm25=bm25["ja"])
    jt = _presence(s, "jt", facts.ja_keys, everyone, bm25=bm25["jt"], postings=kept)
    en = _presence(s, "en", facts.en_keys, everyone, bm25=bm25["en"], postings=kept)
    _presence(s, "et", facts.en_keys, docs, bm25=bm25["et"], postings=kept)
    _presence(s, "jr", facts.jr_keys, docs, bm25=bm25["jr"], postings=kept)
    _presence(s, "jb", facts.jb_keys, docs, bm25=bm25["jb"], postings=kept)
    pairs = {}
    for d, f in zip(docs, fields, strict=True):
        if f.get("kind") == "rule" and f.get("rule"):
            other = _find_rule(searcher, s, f["game"], "en" if f["lang"] == "ja" else "ja", f["rule"], None)
            if other is not None:
                pairs[d] = other
    cos = dict(dense)
    if qvec is not None:
        missing = [d for d in sorted(set(everyone) | set(pairs.values())) if d not in cos]
        if missing:
            cos.update(qvec[1].cosines(qvec[0].result(), missing))
    cand_cos = sorted((cos.get(d, -1.0) for d in docs), reverse=True)
    best_cos = cand_cos[0] if cand_cos else 0.0
    lex = {d: i for i, d in enumerate(sorted(scored, key=lambda d: scored[d], reverse=True))}
    fused = {d: i for i, d in enumerate(ranked.order)}
    ja_total = sum(facts.ja_idf.values()) or 1.0
    en_total = sum(facts.en_idf.values()) or 1.0
    rows = []
    for d, f in zip(docs, fields, strict=True):
        kind = f.get("kind")
        rule = f.get("rule") or ""
        title, text = searcher._title_text(f)
        own = sudachi_forms(f"{title} {text}".strip()) if facts.forms[0] else _NO_FORMS
        p = parents.get(d)
        up = sudachi_forms(_body(searcher, s, p)) if facts.forms[0] and p is not None else _NO_FORMS
        tier, raw = scored.get(d, (-1.0, 0.0))
        c = cos.get(d)
        got_ja = [k for k in facts.ja_keys if d in ja[k]]
        got_en = [k for k in facts.en_keys if d in en[k]]
        with_parent = [k for k in facts.ja_keys if d in ja[k] or (p is not None and p in ja[k])]
        span = _span([ja[k][d] for k in got_ja]) if len(got_ja) > 1 else 0
        version = (f["game"], f["lang"], f.get("dver"))
        try:
            depth = _DEPTH[ruleid.level(rule)] if kind == "rule" and rule else -1
        except ValueError:
            depth = -1
        rows.append(
            [
                tier,
                math.log1p(max(raw, 0.0)),
                math.log1p(lex.get(d, 999)),
                math.log1p(fused.get(d, 999)),
                c if c is not None else -1.0,
                best_cos - c if c is not None else 2.0,
                math.log1p(cand_cos.index(c)) if c is not None else 7.0,
                cos.get(p, -1.0) if p is not None else -1.0,
                _KINDS.get(kind, 3),
                depth,
                math.log1p(len(text or title)),
                float(f["lang"] == "ja"),
                float(facts.japanese),
                float((f["lang"] == "ja") == facts.japanese),
                (1.0 if f["game"] == facts.prefer else 0.0) if facts.prefer else -1.0,
                float(f["game"] == "dm"),
                float(version in searcher._superseded),
                _PROVENANCE.get(searcher._provenance.get(version) or "wiki-quote", 5) if kind != "article" else 6,
                math.log1p(f.get("nvers") or 0),
                len(got_ja) / len(facts.ja_keys) if facts.ja_keys else 0.0,
                sum(facts.ja_idf[k] for k in got_ja) / ja_total,
                sum(1 for k in facts.ja_keys if d in jt[k]) / len(facts.ja_keys) if facts.ja_keys else 0.0,
                len(got_en) / len(facts.en_keys) if facts.en_keys else 0.0,
                sum(facts.en_idf[k] for k in got_en) / en_total,
                len(with_parent) / len(facts.ja_keys) if facts.ja_keys else 0.0,
                sum(facts.ja_idf[k] for k in with_parent) / ja_total,
                math.log1p(max(0, span - len(got_ja))) if span else -1.0,
                len(facts.ja_keys) + len(facts.en_keys) * (not facts.japanese),
                math.log1p(len(facts.text)),
                float(facts.question),
                float(_defines_any(text, title, facts)),
                float(_title_in_query(title, facts.text)),
                _norm_cover(facts.forms, own),
                _norm_cover(facts.forms, (own[0] | up[0], own[1] | up[1])),
                _norm_cover(facts.forms, own, syn=True),
                *(math.log1p(bm25[name].get(d, 0.0)) for name in ("ja", "jt", "jr", "jb", "en", "et")),
                cos.get(pairs[d], -1.0) if d in pairs else -1.0,
            ]
        )
    return rows


def _body(searcher, s, d: int) -> str:
    title, text = searcher._title_text(s.stored_fields(d))
    return f"{title} {text}".strip()


def _defines_any(text: str, title: str, facts: QueryFacts) -> bool:
    body = text or title
    names = [k for k in facts.ja_keys if len(k) >= 2] if facts.japanese else [facts.text]
    return any(defines(body, n) for n in names)


def _title_in_query(title: str, query: str) -> bool:
    name = title.split("／")[0].split(" / ")[0].strip().lower()
    return len(name) >= 2 and name.replace("・", "") in query.lower().replace("・", "")


def _find_rule(searcher, s, game: str, lang: str, rule: str, dver: str | None) -> int | None:
    """The document of clause ``rule`` of the same game, language (and shown version, when it has one)."""
    if searcher.ix_current is not None and s is searcher._searcher(True):
        # The default scope holds one text per clause: a long-lived searcher makes a map of them once
        # (70 ms), a one-shot search (the CLI's) looks up its few dozen clauses one by one.
        searcher._clause_lookups += 1
        table = searcher._clause_docs
        if table is None and searcher._clause_lookups > CLAUSE_MAP_AFTER:
            table = {
                (f["game"], f["lang"], f["rule"]): d
                for d, f in s.reader().iter_docs()
                if f.get("kind") == "rule" and f.get("rule")
            }
            searcher._clause_docs = table
        if table is not None:
            return table.get((game, lang, rule))
    reader = s.reader()
    if ("rule", rule) not in reader:
        return None
    fallback = None
    for d in reader.postings("rule", rule).all_ids():
        f = s.stored_fields(d)
        if f.get("kind") == "rule" and f["game"] == game and f["lang"] == lang:
            if f.get("dver") == dver:
                return d
            fallback = d if fallback is None else fallback
    return fallback


def _tree_arrays(root: dict) -> tuple:
    """One tree as numpy arrays indexed by node: (feature or -1 at a leaf, threshold, left, right, value)."""
    import numpy as np

    feat: list[int] = []
    thr: list[float] = []
    left: list[int] = []
    right: list[int] = []
    value: list[float] = []
    stack = [(root, -1, False)]
    while stack:
        node, up, is_right = stack.pop()
        i = len(feat)
        if up >= 0:
            (right if is_right else left)[up] = i
        split = "split_index" in node
        feat.append(node["split_feature"] if split else -1)
        thr.append(float(node["threshold"]) if split else 0.0)
        left.append(-1)
        right.append(-1)
        value.append(0.0 if split else float(node["leaf_value"]))
        if split:
            if node.get("decision_type", "<=") != "<=":
                raise ValueError("the ranker uses a split this evaluator does not know")
            stack.append((node["right_child"], i, True))
            stack.append((node["left_child"], i, False))
    return tuple(np.array(a) for a in (feat, thr, left, right, value))


# -- the model ---------------------------------------------------------------------------------------
class Model:
    """A LightGBM tree ensemble (its ``dump_model()`` JSON), scored with numpy: the trees' nodes sit in
    one table, and every (candidate, tree) pair steps down one level at a time, all at once."""

    def __init__(self, dump: dict):
        import numpy as np

        self.names = dump["feature_names"]
        if tuple(self.names) != FEATURES:
            raise ValueError("the ranker was trained on other features: retrain it (bench/train_ranker.py)")
        trees = [_tree_arrays(info["tree_structure"]) for info in dump["tree_info"]]
        self.trees = trees
        sizes = [len(tree[0]) for tree in trees]
        self.roots = np.cumsum([0] + sizes[:-1]).astype(np.int64)
        feat, thr, left, right, value = (np.concatenate([tree[i] for tree in trees]) for i in range(5))
        own = np.arange(len(feat))
        shift = np.repeat(self.roots, sizes)
        leaf = feat < 0
        # a leaf points at itself, so stepping past the bottom of a shallow tree changes nothing
        self.feat = np.where(leaf, 0, feat).astype(np.int64)
        self.thr = np.where(leaf, np.inf, thr)
        self.left = np.where(leaf, own, left + shift)
        self.right = np.where(leaf, own, right + shift)
        self.value = value
        self.depth = max((_depth(info["tree_structure"]) for info in dump["tree_info"]), default=0)

    @classmethod
    def load(cls, path: Path = MODEL_FILE) -> Model | None:
        """The shipped model, or None when there is none (or numpy is missing)."""
        try:
            import numpy  # noqa: F401
        except ImportError:
            return None
        if not path.exists():
            return None
        return cls(json.loads(path.read_text(encoding="utf-8")))

    def predict(self, rows: list[list[float]]):
        import numpy as np

        x = np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))
        node = np.broadcast_to(self.roots, (len(x), len(self.roots))).copy()
        row = np.arange(len(x))[:, None]
        for _ in range(self.depth):
            go_left = x[row, self.feat[node]] <= self.thr[node]
            node = np.where(go_left, self.left[node], self.right[node])
        return self.value[node].sum(axis=1)


def _depth(node: dict) -> int:
    """How many splits the deepest leaf of a tree lies below its root."""
    deepest, stack = 0, [(node, 0)]
    while stack:
        n, d = stack.pop()
        if "split_index" in n:
            stack += [(n["left_child"], d + 1), (n["right_child"], d + 1)]
        else:
            deepest = max(deepest, d)
    return deepest


def _query_language_first(s, order: list[int], lang: str) -> list[int]:
    """A clause and its other-language text share one row (kb.search.results.one_row_per_clause), and the
    row shows the first of the two: of each such pair, the text in the query's language takes the
    better place of the two."""
    where: dict[tuple, list[int]] = {}
    for i, d in enumerate(order):
        f = s.stored_fields(d)
        if f.get("kind") == "rule" and f.get("rule"):
            where.setdefault((f["game"], f["rule"]), []).append(i)
    out = list(order)
    for places in where.values():
        if len(places) == 2:
            a, b = places
            if s.stored_fields(out[a])["lang"] != lang and s.stored_fields(out[b])["lang"] == lang:
                out[a], out[b] = out[b], out[a]
    return out


VARIANT_TOP = 10  # places the rules of variants the query does not name yield to the general rules


_VARIANT_WORDS = re.compile(r"\s+(?:Variant|Options?)$|」?(?:変種|選択)ルール$|^「")


def variant_heads(searcher) -> dict[str, tuple[set[str], set[str]]]:
    """Magic's rules 800–999 (multiplayer and casual variants: 810 双頭巨人戦, 903 統率者戦, …) -> (the word
    keys of their headings, the variant's names as the rules write them: 双頭巨人戦, Two-Headed Giant), from
    every edition and language, read once per searcher. The two "General" rules (800, 900) name none."""
    if searcher.variant_heads is None:
        rows = searcher.store.headings_from("mtg", "800")
        heads: dict[str, tuple[set[str], set[str]]] = {}
        english = searcher.schema["en"].analyzer
        for rule, title in rows:
            if rule in ("800", "900"):
                continue
            keys, names = heads.setdefault(rule, (set(), set()))
            keys.update(w.key for w in words(title, searcher.vocab))
            keys.update(t.text for t in english(title))
            names.add(_VARIANT_WORDS.sub("", title).strip())
        searcher.variant_heads = heads
    return searcher.variant_heads


def _general_first(searcher, s, order: list[int], facts: QueryFacts) -> list[int]:
    """Within the first ``VARIANT_TOP``, the rules of a multiplayer or casual variant the query does not name
    come after the general rules: a clause of rules 800–999, or one whose text names a variant ("In a
    Two-Headed Giant game, …"). ライフが0になったら負け asks about 104.3b and 704.5a, not 双頭巨人戦's team
    life (704.6a); how many cards in a deck about 100.2a, not 統率者戦's deck. A query naming the variant
    (統率者 ダメージ, two-headed giant life) keeps them where the model put them."""
    heads = variant_heads(searcher)
    asked = set(facts.ja_keys) | set(facts.en_keys)
    general, variant = [], []
    for d in order[:VARIANT_TOP]:
        f = s.stored_fields(d)
        unnamed = False
        if f.get("game") == "mtg" and f.get("kind") == "rule":
            head = (f.get("rule") or "")[:3]
            if head in heads:
                unnamed = not heads[head][0] & asked
            else:
                title, text = searcher._title_text(f)
                said = [keys for keys, names in heads.values() if any(n and n in text for n in names)]
                unnamed = bool(said) and not any(keys & asked for keys in said)
        (variant if unnamed else general).append(d)
    return general + variant + order[VARIANT_TOP:]


def rerank(
    searcher,
    s,
    model: Model | None,
    facts: QueryFacts,
    ranked,
    scored: dict,
    dense: list,
    qvec,
    need: int,
    capture=None,
) -> None:
    """Re-order the head of ``ranked`` (below the guarded tiers) by the model's scores.

    With ``capture`` (a list), the candidates and their feature rows are appended to it (training).
    """
    guarded = [d for d in ranked.order if scored.get(d, (0.0,))[0] >= GUARD]
    head = [d for d in ranked.order if scored.get(d, (0.0,))[0] < GUARD][: max(HEAD, need + 10)]
    if not head:
        return
    rows = features(searcher, s, facts, head, ranked, scored, dense, qvec)
    if capture is not None:
        capture.append((head, rows))
    if model is None:
        return
    points = model.predict(rows)
    order = [d for _, d in sorted(zip((-p for p in points), head, strict=True), key=lambda t: t[0])]
    order = _query_language_first(s, order, "ja" if facts.japanese else "en")
    order = _general_first(searcher, s, order, facts)
    shown = sorted((ranked.score[d] for d in head), reverse=True)
    for i, d in enumerate(order):
        ranked.score[d] = shown[i]
        ranked.why[d] = ranked.why.get(d, []) + [f"learned #{i + 1}"]
    taken = set(guarded) | set(head)
    ranked.order = guarded + order + [d for d in ranked.order if d not in taken]
