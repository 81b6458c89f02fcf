"""Train the learned ranker (kb/search/learned.py) on queries made from the corpus, and report it.

    python bench/train_ranker.py [--home DIR] [--queries N] [--out kb/data/ranker.json]

Deterministic (fixed seeds, one thread for LightGBM), one command, a few minutes on 2 cores. Needs
``lightgbm`` (``pip install -e '.[train]'``); the shipped model is read without it.

Training queries come from the texts of the default scope, never from an evaluation set:
- headings and glossary terms, Japanese and English, as written and as people mistype them
  (readings in hiragana, half-width katakana, dots dropped) -> the clause they name;
- a glossary definition's opening words -> the clause the entry points to;
- a heading's name plus the rarest words of one of its clauses -> that clause (multi-concept);
- the rarest words of a clause in question templates (〜とは, 〜するとどうなる?, 〜できる?) -> that clause.
Each query is searched as the search page asks it; the candidates the ranker would re-order are
labelled 1 when they are a target clause (either language) and 0 otherwise. Folds are grouped by the
section of the target (one section never in both the training and the test part of a fold), and the
report gives each fold's MRR@10 of the candidates before (the tiers' order) and after the model.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import tempfile
import time
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))

from relevance import searcher_of  # noqa: E402

from kb import ruleid  # noqa: E402
from kb.analysis import _janome_tokens, normalize_mapped  # noqa: E402
from kb.search import learned  # noqa: E402

REPORT = ROOT / "kb" / "data" / "ranker-report.md"
SEED = 20261205
PARAMS = {
    "objective": "lambdarank",
    "metric": "ndcg",
    "ndcg_eval_at": [1, 5, 10],
    "learning_rate": 0.05,
    "num_leaves": 7,
    "min_data_in_leaf": 50,
    "feature_fraction": 0.8,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "lambda_l2": 1.0,
    "num_threads": 1,
    "deterministic": True,
    "force_row_wise": True,
    "seed": SEED,
    "verbose": -1,
}
ROUNDS = 300
FOLDS = 5

_TEMPLATES_JA = (
    "{a}とは",
    "{a}の{b}とは",
    "{a}が{b}するとどうなる?",
    "{a}は{b}できる?",
    "{a}で{b}はどうなりますか",
    "{a} {b}",
    "{a} {b} {c}",
    "{a}と{b}の関係",
    "{b}の{a}",
    "{a}を{b}したい",
)
_TEMPLATES_EN = ("{a} {b}", "what is {a}", "can {a} {b}", "{a} {b} {c}")
_SMALL = str.maketrans("ァィゥェォッャュョヮ", "アイウエオツヤユヨワ")


# -- making the queries ------------------------------------------------------------------------------
def hiragana(s: str) -> str:
    return "".join(chr(ord(c) - 0x60) if "\u30a1" <= c <= "\u30f6" else c for c in s)


def halfwidth(s: str) -> str:
    """Katakana as half-width (the reverse of NFKC): what some IMEs and old pages give."""
    out = []
    for c in s:
        d = unicodedata.decomposition(c)
        base = chr(int(d.split()[0], 16)) if d and "3099" in d or d and "309A" in d else c
        mark = "ﾞ" if d and "3099" in d else "ﾟ" if d and "309A" in d else ""
        table = "ｧｱｨｲｩｳｪｴｫｵｶｷｸｹｺｻｼｽｾｿﾀﾁｯﾂﾃﾄﾅﾆﾇﾈﾉﾊﾋﾌﾍﾎﾏﾐﾑﾒﾓｬﾔｭﾕｮﾖﾗﾘﾙﾚﾛﾜｦﾝ"
        full = "ァアィイゥウェエォオカキクケコサシスセソタチッツテトナニヌネノハヒフヘホマミムメモャヤュユョヨラリルレロワヲン"
        i = full.find(base)
        out.append(table[i] + mark if i >= 0 else ("ｰ" if c == "ー" else c))
    return "".join(out)


def reading(text: str) -> str:
    norm = normalize_mapped(text)[0]
    return "".join(r if r != "*" else s for s, _p, _b, r in _janome_tokens(norm))


class Rarity:
    """Document frequency of Janome's content words over the default scope's Japanese texts."""

    def __init__(self, texts: list[str]):
        self.df: Counter[str] = Counter()
        self.n = len(texts)
        self.cache: dict[str, list[tuple[str, str]]] = {}
        for t in texts:
            self.df.update({w for w, _ in self.content(t)})

    def content(self, text: str) -> list[tuple[str, str]]:
        """(word as a query would say it, part of speech) of nouns and verbs, in order; a katakana run
        Janome splits (マリ / ガン) is one word."""
        if text not in self.cache:
            out: list[tuple[str, str]] = []
            prev_kata = False
            for surface, pos, base, _r in _janome_tokens(normalize_mapped(text)[0][:600]):
                p = pos.split(",")
                kata = bool(_KATA.fullmatch(surface))
                if kata and prev_kata and out and out[-1][1] == "n":
                    out[-1] = (out[-1][0] + surface, "n")
                elif p[0] == "名詞" and p[1] not in ("数", "非自立", "代名詞", "接尾") and _WORD.fullmatch(surface):
                    out.append((surface, "n"))
                elif p[0] == "動詞" and p[1] == "自立" and base not in _LIGHT_VERBS and _WORD.fullmatch(base):
                    out.append((base, "v"))
                prev_kata = kata
            self.cache[text] = [(w, k) for w, k in out if len(w) >= 2]
        return self.cache[text]

    def rarest(self, text: str, k: int, rng: random.Random, avoid: str = "") -> list[str]:
        """``k`` of the rarer words of ``text`` (seen in at least two texts: a word of one clause only
        makes the query too easy), in the text's order."""
        words = list(dict.fromkeys(w for w, _ in self.content(text) if w not in avoid and self.df[w] >= 2))
        pool = sorted(words, key=lambda w: self.df[w])[: k + 3]
        picked = set(rng.sample(pool, min(k, len(pool))))
        return [w for w in words if w in picked]

    def some(self, text: str, k: int, rng: random.Random) -> list[str]:
        """``k`` of the words of ``text``, common ones too (クリーチャー, ダメージ), in the text's order."""
        words = list(dict.fromkeys(w for w, _ in self.content(text)))
        picked = set(rng.sample(words, min(k, len(words))))
        return [w for w in words if w in picked]


_KATA = re.compile(r"[ァ-ヶー・]+")
_WORD = re.compile(r"[ぁ-んァ-ヶー・一-龯々]+")
_LIGHT_VERBS = frozenset(["する", "ある", "いる", "なる", "できる", "行う", "持つ", "得る", "いう", "られる"])


class _Maker:
    """Training queries of one kind of text each: (kind, query, group, targets)."""

    def __init__(self, rarity: Rarity, rng: random.Random):
        self.rarity, self.rng = rarity, rng
        self.out: list[tuple[str, str, str, set]] = []

    def add(self, kind: str, q: str, game: str, rule: str) -> None:
        q = re.sub(r"\s+", " ", q).strip()
        if 2 <= len(q) <= 80:
            self.out.append((kind, q, f"{game}:{rule[0]}", {(game, rule)}))

    def heading(self, name: str, game: str, lang: str, rule: str) -> None:
        self.add("heading", name, game, rule)
        if lang == "ja" and self.rng.random() < 0.5:
            noisy = self.rng.choice([hiragana(reading(name)), halfwidth(name), name.replace("・", "")])
            self.add("noisy", noisy, game, rule)

    def term(self, name: str, definition: str, game: str, rule: str) -> None:
        self.add("term", name, game, rule)
        if definition and self.rng.random() < 0.5:
            head = re.split(r"[。.]", definition)[0]
            self.add("definition", head[: self.rng.randint(12, 30)], game, rule)

    def clause_ja(self, text: str, hname: str, game: str, rule: str) -> None:
        rng = self.rng
        rare = self.rarity.rarest(text, 3, rng, avoid=hname)
        if not rare:
            return
        if hname and rng.random() < 0.6:
            self.add("multi", f"{hname} {' '.join(rare[: rng.randint(1, 2)])}", game, rule)
        if len(rare) >= 2 and rng.random() < 0.6:
            a, b, c = (rare + [""])[:3]
            if hname and rng.random() < 0.4:
                a, b, c = hname, a, b
            self.add("question", rng.choice(_TEMPLATES_JA).format(a=a, b=b, c=c), game, rule)
        plain = self.rarity.some(text, 3, rng)
        if len(plain) >= 2 and rng.random() < 0.4:
            a, b, c = (plain + [""])[:3]
            self.add("question", rng.choice(_TEMPLATES_JA).format(a=a, b=b, c=c), game, rule)

    def clause_en(self, text: str, hname: str, game: str, rule: str) -> None:
        if self.rng.random() >= 0.35:
            return
        ws = [w for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in _EN_STOP]
        common = Counter(ws)
        ws = sorted(dict.fromkeys(ws), key=lambda w: common[w])[:3]
        if len(ws) >= 2:
            a, b, c = (ws + [""])[:3]
            if hname and self.rng.random() < 0.5:
                a, b, c = hname.lower(), a, b
            self.add("english", self.rng.choice(_TEMPLATES_EN).format(a=a, b=b, c=c), game, rule)


def make_queries(searcher, n: int, rng: random.Random) -> list[tuple[str, str, str, set]]:
    """(kind, query, group, targets) made from the default scope's texts; targets are (game, rule)."""
    s = searcher.full_searcher() if searcher.ix_current is None else searcher._searcher(True)
    docs = []
    for _d, f in s.reader().iter_docs():
        if f.get("kind") in ("rule", "term") and f.get("rule") and ruleid.parse(f["rule"]):
            title, text = searcher._title_text(f)
            docs.append((f, title, text))
    maker = _Maker(Rarity([t + " " + x for f, t, x in docs if f["lang"] == "ja"]), rng)
    titles = {(f["game"], f["lang"], f["rule"]): t for f, t, x in docs if f["kind"] == "rule" and t}
    for f, title, text in docs:
        game, lang, rule = f["game"], f["lang"], f["rule"]
        name = title.split("／")[0].split(" / ")[0].strip()
        if f["kind"] == "rule" and name and not text:
            maker.heading(name, game, lang, rule)
        elif f["kind"] == "term":
            maker.term(name, text, game, rule)
        elif f["kind"] == "rule" and text:
            up = ruleid.parent(rule) or ""
            heading = titles.get((game, lang, up), "") or titles.get((game, lang, ruleid.parent(up) or ""), "")
            hname = heading.split("／")[0].strip()
            (maker.clause_ja if lang == "ja" else maker.clause_en)(text, hname, game, rule)
    rng.shuffle(maker.out)
    seen: set[str] = set()
    unique = []
    for item in maker.out:
        if item[1] not in seen:
            seen.add(item[1])
            unique.append(item)
    return unique[:n]


_EN_STOP = frozenset(
    ["that", "this", "with", "from", "each", "which", "their", "they", "them", "then", "than", "when", "were"]
    + ["have", "been", "into", "only", "also", "such", "other", "there", "these", "those", "would", "could"]
    + ["should", "while", "where", "whose", "after", "before", "under", "over", "player", "players"]
)


# -- features and labels -----------------------------------------------------------------------------
def collect(searcher, queries, progress=True) -> list[dict]:
    """Search each query as the search page does; keep the candidates the ranker re-orders, labelled."""
    searcher._ranker = None  # the features of the tiers' order, whatever model is shipped
    searcher.capture = []
    rows = []
    t0 = time.perf_counter()
    for i, (kind, q, grp, targets) in enumerate(queries, 1):
        searcher.capture.clear()
        searcher.search_page(q, limit=10)
        if searcher.capture:
            head, feats = searcher.capture[-1]
            s = searcher._searcher(True)
            labels = []
            for d in head:
                f = s.stored_fields(d)
                labels.append(int((f["game"], f.get("rule")) in targets))
            if 0 < sum(labels) < len(labels):
                rows.append({"kind": kind, "query": q, "group": grp, "x": feats, "y": labels})
        if progress and (i % 200 == 0 or i == len(queries)):
            rate = i / (time.perf_counter() - t0)
            print(f"\r  searched {i}/{len(queries)} queries ({rate:.0f}/s), {len(rows)} kept", end="", file=sys.stderr)
    print(file=sys.stderr)
    searcher.capture = None
    return rows


def mrr(groups: list[dict], scores=None) -> float:
    total = 0.0
    for j, g in enumerate(groups):
        order = range(len(g["y"])) if scores is None else sorted(range(len(g["y"])), key=lambda i: -scores[j][i])
        for r, i in enumerate(order, 1):
            if r > 10:
                break
            if g["y"][i]:
                total += 1.0 / r
                break
    return total / max(1, len(groups))


def fit(lgb, groups: list[dict]):
    import numpy as np

    x = np.asarray([row for g in groups for row in g["x"]], dtype=np.float64)
    y = np.asarray([label for g in groups for label in g["y"]])
    data = lgb.Dataset(x, y, group=[len(g["y"]) for g in groups], feature_name=list(learned.FEATURES))
    return lgb.train(PARAMS, data, num_boost_round=ROUNDS)


def fold_of(group: str) -> int:
    return int(hashlib.sha256(group.encode()).hexdigest(), 16) % FOLDS


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", help="a built data home (default: build the bundled corpus into a temporary one)")
    ap.add_argument("--queries", type=int, default=4000, help="how many training queries to make")
    ap.add_argument("--out", default=str(learned.MODEL_FILE), help="where to write the model")
    ap.add_argument("--features", help="keep the labelled candidates in this JSON file, and reuse it when it exists")
    args = ap.parse_args()
    try:
        import lightgbm as lgb
    except ImportError:
        raise SystemExit("bench/train_ranker.py: needs lightgbm (pip install -e '.[train]')") from None

    t_start = time.perf_counter()
    cached = Path(args.features) if args.features else None
    if cached is not None and cached.exists():
        saved = json.loads(cached.read_text(encoding="utf-8"))
        if saved["features"] != list(learned.FEATURES):
            raise SystemExit(f"{cached}: made with other features; delete it to collect them again")
        made, groups = saved["made"], saved["groups"]
    else:
        with tempfile.TemporaryDirectory() as tmp:
            _store, searcher = searcher_of(args.home, tmp)
            queries = make_queries(searcher, args.queries, random.Random(SEED))
            made = len(queries)
            print(f"  {made} training queries: {dict(Counter(k for k, *_ in queries))}", file=sys.stderr)
            groups = collect(searcher, queries)
        if cached is not None:
            cached.write_text(json.dumps({"features": list(learned.FEATURES), "made": made, "groups": groups}))

    # Group k-fold by section: the figures of each fold are on sections the model did not see.
    lines = []
    folds = defaultdict(list)
    for g in groups:
        folds[fold_of(g["group"])].append(g)
    before_all, after_all = [], []
    for k in range(FOLDS):
        test = folds[k]
        train = [g for j in range(FOLDS) if j != k for g in folds[j]]
        if not test or not train:
            continue
        model = fit(lgb, train)
        scores = [model.predict(g["x"]) for g in test]
        b, a = mrr(test), mrr(test, scores)
        before_all.append((b, len(test)))
        after_all.append((a, len(test)))
        sections = sorted({g["group"] for g in test})
        lines.append(f"| {k} | {len(test)} | {b:.3f} | {a:.3f} | {' '.join(sections)} |")
    n = sum(c for _, c in before_all) or 1
    b_avg = sum(v * c for v, c in before_all) / n
    a_avg = sum(v * c for v, c in after_all) / n

    model = fit(lgb, groups)
    dump = model.dump_model()
    slim = {
        "feature_names": dump["feature_names"],
        "tree_info": [{"tree_structure": _slim(t["tree_structure"])} for t in dump["tree_info"]],
        "trained_on": {"queries": len(groups), "seed": SEED, "rounds": ROUNDS, "params": PARAMS},
    }
    out = Path(args.out)
    out.write_text(json.dumps(slim, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    # the shipped evaluator must agree with LightGBM
    mine = learned.Model.load(out)
    worst = max(
        abs(a - b) for g in groups[:200] for a, b in zip(mine.predict(g["x"]), model.predict(g["x"]), strict=True)
    )
    gain = sorted(zip(model.feature_importance("gain"), learned.FEATURES, strict=True), reverse=True)
    kinds = Counter(g["kind"] for g in groups)
    report = [
        "# The learned ranker: training report",
        "",
        f"Made by `python bench/train_ranker.py` in {time.perf_counter() - t_start:.0f} s: {made} queries made "
        f"from the corpus, {len(groups)} with a target among the candidates and something to re-order "
        f"({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}).",
        f"LightGBM {lgb.__version__}, lambdarank, {ROUNDS} trees of at most {PARAMS['num_leaves']} leaves; "
        f"the numpy evaluator in kb/search/learned.py agrees with LightGBM within {worst:.1e}.",
        "",
        f"Group {FOLDS}-fold by section (game and first digit of the target), MRR@10 of the candidates "
        "re-ordered (the tiers' order before, the model's after):",
        "",
        "| fold | queries | before | after | sections held out |",
        "|---|---|---|---|---|",
        *lines,
        f"| all | {n} | {b_avg:.3f} | {a_avg:.3f} | |",
        "",
        "Features by gain:",
        "",
        *(f"- {name}: {g:.0f}" for g, name in gain),
        "",
    ]
    REPORT.write_text("\n".join(report), encoding="utf-8")
    print("\n".join(report))
    print(f"wrote {out} ({out.stat().st_size:,} bytes) and {REPORT}", file=sys.stderr)
    return 0


def _slim(node: dict) -> dict:
    """A tree node with only what the evaluator reads."""
    if "split_index" not in node:
        return {"leaf_value": round(node["leaf_value"], 7)}
    return {
        "split_index": node["split_index"],
        "split_feature": node["split_feature"],
        "threshold": node["threshold"],
        "decision_type": node["decision_type"],
        "left_child": _slim(node["left_child"]),
        "right_child": _slim(node["right_child"]),
    }


if __name__ == "__main__":
    sys.exit(main())
