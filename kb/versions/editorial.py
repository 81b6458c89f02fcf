"""Tell editorial clause changes from substantive ones.

A change is *editorial* when the clause still says the same thing: a pronoun update ("his or her" ->
"their", "he or she" -> "that player"), quote style and other typography, examples, a typo fix, a
renumbered or added cross-reference ("See rule 702.19."), a removed "This is a change from previous
rules" remark, or a term the rules renamed everywhere ("converted mana cost" -> "mana value").
Anything else is *substantive*: the rule says something else.

The test works on canonical words (lower case, no punctuation, rule numbers masked, notes dropped,
pronouns and renamed terms in today's form). What still differs must be explained hunk by hunk: a
pronoun swapped with its verb agreement, a misspelt word put right, a word split or joined.
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable

from kb.model import has_japanese

_ID = r"[1-9]\d{2}\.\d{1,3}[a-z]{0,2}"
# A dotted id with an optional range tail ("601.2a-h", "601.2a–601.2h"), or a whole rule after its cue word.
_REFERENCE = re.compile(rf"{_ID}(?:\s*[-–—]\s*(?:{_ID}|[a-z]{{1,2}}\b))?|(?<=\brule )[1-9]\d{{2}}\b")
_REF_LIST = re.compile(r"§(?:\s*,?\s*(?:(?:and|or|through|to)\s+)?(?:rules?\s+)?§)+")
# Remarks that point elsewhere or about the rules' history: "(See rule 702.19.)", "This is a change from previous rules."
_NOTE = re.compile(
    r"\((?:see|this is a change|for more|you can find)[^()]*\)"
    r"|(?:^|(?<=[.:;]\s))(?:see (?:also )?(?:rules?|sections?) §|this is a change from|this is an exception to|"
    r"for more information on|"
    r"you can find)[^.]*\.(?=\s|$)"
)
# A sentence giving an example inside the rule text ("A Goblin Scout token, for example, is named ...").
_EXAMPLE = re.compile(r"(?:^|(?<=[.:;]\s))(?:[^.\s]+\s+){0,6}for (?:example|instance)\b[^.]*\.(?=\s|$)")
_URL = re.compile(r"(?:https?://|www\.)\S+|\b[\w.-]+\.(?:com|org|net)\b(?:/\S*)?")
_INNER_MARK = re.compile(r"(?<=\w)['’‘`](?=\w)")  # "player's", "can’t"
# Old editions' mojibake: "?" or U+FFFD for an apostrophe ("player?s") or for a dash or quote ("damage?for").
_MOJIBAKE_APOSTROPHE = re.compile(r"(?<=\w)[?\ufffd](?=(?:s|t|re|ll|ve|d|m)\b)")
_GENDERED = [
    (re.compile(r"\bhimself or herself\b|\bhimself/herself\b"), "themselves"),
    (re.compile(r"\bhe or she\b|\bhe/she\b|\bshe or he\b"), "they"),
    (re.compile(r"\bhis or her\b|\bhis/her\b|\bher or his\b"), "their"),
    (re.compile(r"\bhim or her\b|\bhim/her\b"), "them"),
]
_GENDERED_ANY = re.compile("|".join(p.pattern for p, _ in _GENDERED))
# Terms the rules renamed everywhere, each meaning the same thing before and after (old form, new form).
RENAMES = [
    (r"converted mana costs?", "mana value"),
    (r"tribal", "kindred"),
    (r"edh", "commander"),
    (r"planar magic", "planechase"),
    (r"(?:removed-from-the-game|removed from the game) zone", "exile zone"),
    (r"removed from the game", "exiled"),
    (r"removes? (\w+ )?from the game", r"exile\1"),
    (r"removing (\w+ )?from the game", r"exiling \1"),
    (r"(?:comes|come|came|coming) into play", "enters the battlefield"),
    (r"(?:the )?in-play zone", "the battlefield"),
    (r"leaves? play", "leaves the battlefield"),
    (r"into play", "onto the battlefield"),
    (r"from play", "from the battlefield"),
    (r"in play", "on the battlefield"),
    (r"(enter|enters|entered|entering) the battlefield", r"\1"),  # "enters" alone since 2024
    (r"totem armor", "umbra armor"),
    (r"activate this ability only", "activate only"),
    (r"to (?:your|their|that players|its controllers) mana pool", ""),  # "Add {G} to your mana pool" -> "Add {G}"
    (r"only any time you could cast (an? (?:sorcery|instant))", r"only as \1"),
]
_RENAMES = [(re.compile(rf"\b{old}\b"), new) for old, new in RENAMES]
# "he or she controls" became "they control": the verb after a replaced pronoun takes the plural form.
_SINGULAR_THEY = re.compile(r"\b(they (?:also |still |then |only |already |\w+ly )?)(\w+s|doesnt|isnt|wasnt|hasnt)\b")
_WORDS = re.compile(r"[a-z0-9§]+")
_PRONOUNS = {"they", "their", "them", "themselves", "theirs", "he", "she", "his", "her", "him", "himself", "herself"}
_REFERRERS = {
    "that",
    "the",
    "this",
    "each",
    "player",
    "players",
    "opponent",
    "opponents",
    "controller",
    "owner",
    "controllers",
    "owners",
    "its",
    "or",
    "and",
}
_FILLERS = {"a", "an", "the", "the phrase", "the term", "the word"}
_AGREEMENT = {
    "has": "have",
    "is": "are",
    "was": "were",
    "does": "do",
    "doesnt": "dont",
    "isnt": "arent",
    "wasnt": "werent",
    "hasnt": "havent",
}
_NEGATIONS = {
    "can": "cant",
    "does": "doesnt",
    "do": "dont",
    "is": "isnt",
    "are": "arent",
    "was": "wasnt",
    "were": "werent",
    "has": "hasnt",
    "have": "havent",
    "could": "couldnt",
    "would": "wouldnt",
    "should": "shouldnt",
    "will": "wont",
}


_VOCABULARY_META = "editorial_vocabulary/1"  # a new way of counting words: a new key (older counts ignored)


def vocabulary(store) -> Counter:
    """How many distinct stored texts use each canonical word (a misspelling is rare; cached per store).

    Read from the store when the build kept it (``keep_vocabulary``): counting scans every text (0.4 s,
    more than the rest of a `rulekb history`)."""

    def read() -> Counter:
        kept = store.get_meta(_VOCABULARY_META)
        return Counter(json.loads(kept)) if kept else _count_words(store)

    return store.derived("editorial_vocabulary", read)


def keep_vocabulary(store) -> int:
    """Count the words of the store's texts now and keep the counts in it (a build, after adding texts)."""
    vocab = _count_words(store)
    store.memo["editorial_vocabulary"] = vocab
    store.set_meta(_VOCABULARY_META, json.dumps(vocab, ensure_ascii=False, separators=(",", ":")))
    return len(vocab)


def _count_words(store) -> Counter:
    vocab: Counter = Counter()
    for title, text in store.content_texts():
        vocab.update(set(_WORDS.findall(_marks_removed(f"{title} {text}".lower()))))
    return vocab


def _marks_removed(text: str) -> str:
    """Text without apostrophes inside words, quote marks or italics underscores (mojibake "?" included)."""
    text = _MOJIBAKE_APOSTROPHE.sub("", _INNER_MARK.sub("", text))
    return re.sub(r"[\"“”‘’'`_「」『』]", "", re.sub(r"[?\ufffd]", " ", text))


def _stages(text: str) -> list[tuple[str, str]]:
    """(reason, text) after each canonicalising step, in order."""
    t = unicodedata.normalize("NFKC", re.sub("[™®©]", "", text)).lower()
    t = re.sub(r"\((?:tm|r|c)\)|(?<=\w)tm\b|\btm\b", "", _URL.sub("url", t))
    out = [("typography", _marks_removed(t))]
    t = re.sub(r"\b(?:rules|sections?) (?=[1-9]\d{2}\b)", "rule ", out[-1][1])
    t = _REF_LIST.sub("§", _REFERENCE.sub("§", t))
    out.append(("reference", t))
    out.append(("note", _NOTE.sub(" ", t)))
    out.append(("example", _EXAMPLE.sub(" ", out[-1][1])))
    t = out[-1][1]
    for pattern, neutral in _GENDERED:
        t = pattern.sub(neutral, t)
    t = _SINGULAR_THEY.sub(lambda m: m.group(1) + _stem(m.group(2)), t)
    out.append(("pronoun", t))
    for pattern, new in _RENAMES:
        t = pattern.sub(new, t)
    out.append(("rename", t))
    return out


def _stem(word: str) -> str:
    """A verb or noun without its third-person or plural ending (controls/control, passes/pass)."""
    if word in _AGREEMENT:
        return _AGREEMENT[word]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _pronoun_update(a: list[str], b: list[str]) -> bool:
    """A pronoun replaced by another or by "that player", the verbs agreeing with it (or a pronoun put in)."""
    if not a or not b:
        return set(a + b) <= _PRONOUNS
    if not (_PRONOUNS & set(a + b)) or not ((_PRONOUNS | {"player", "players"}) & set(a)) or not b:
        return False
    rest_a = sorted(_stem(w) for w in a if w not in _PRONOUNS and w not in _REFERRERS)
    rest_b = sorted(_stem(w) for w in b if w not in _PRONOUNS and w not in _REFERRERS)
    return rest_a == rest_b and bool((_PRONOUNS | _REFERRERS) & set(b))


def distance(a: str, b: str) -> int:
    """Edits (insert, delete, substitute, swap two neighbours) from ``a`` to ``b``: Damerau-Levenshtein
    (optimal string alignment). Also kb.search.spelling's."""
    prev2, prev = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if prev2 is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def _typo_fix(a: str, b: str, rare: Callable[[str], bool] | None) -> bool:
    """One misspelt word put right (or in): close spelling, and one of the two is a rare word."""
    if rare is None or min(len(a), len(b)) < 3 or a.isdigit() or b.isdigit():
        return False
    if _NEGATIONS.get(a) == b or _NEGATIONS.get(b) == a or _stem(a) == _stem(b):
        return False  # "can" / "can't", "player" / "players": a different statement, not a spelling
    limit = 1 if max(len(a), len(b)) < 6 else 2
    return distance(a, b) <= limit and (rare(a) or rare(b))


def _explained(a: list[str], b: list[str], rare: Callable[[str], bool] | None, ungendered: bool) -> str | None:
    """The editorial reason for one differing hunk of words, or None if it changes what the rule says.

    ``ungendered``: the new text dropped gendered pronouns, so verbs further along may agree anew
    ("he or she draws cards and loses" -> "they draw cards and lose")."""
    if "".join(a) == "".join(b):
        return "spacing"
    if _pronoun_update(a, b):
        return "pronoun"
    if ungendered and len(a) == len(b) and all(_stem(x) == _stem(y) for x, y in zip(a, b, strict=True)):
        return "pronoun"
    if (not a or not b) and " ".join(a + b) in _FILLERS:
        return "typo"  # an article put in or taken out, "The phrase “X” means" for "“X” means"
    if len(a) == len(b) and all(x == y or _typo_fix(x, y, rare) for x, y in zip(a, b, strict=True)):
        return "typo"
    return None


def classify(old: str, new: str, vocab: Counter | None = None) -> list[str] | None:
    """The editorial reasons two wordings differ (``[]`` when they are the same), or None when substantive."""
    if old == new:
        return []
    a_stages, b_stages = _stages(old), _stages(new)
    if has_japanese(old + new):  # no word-level rules for Japanese: typography, references and notes only
        same = next(
            (
                why
                for (why, x), (_, y) in zip(a_stages, b_stages, strict=True)
                if re.sub(r"\s+", "", x) == re.sub(r"\s+", "", y)
            ),
            None,
        )
        return [same] if same else None
    reasons: list[str] = []
    aw, bw = _WORDS.findall(old.lower()), _WORDS.findall(new.lower())
    ops = _opcodes(aw, bw)
    prev = differ = _count(ops)
    for (why, x), (_, y) in zip(a_stages, b_stages, strict=True):
        words = _WORDS.findall(x), _WORDS.findall(y)
        if words != (aw, bw):  # a stage that changed no word leaves the count as it was: no new alignment
            aw, bw = words
            ops = _opcodes(aw, bw)
            differ = _count(ops)
        if differ < prev or (why == "typography" and differ == 0):
            reasons.append(why)
        prev = differ
        if differ == 0:
            return reasons
    rare = None if vocab is None else (lambda w: vocab.get(w, 0) <= 3)
    ungendered = len(_GENDERED_ANY.findall(old.lower())) > len(_GENDERED_ANY.findall(new.lower()))
    for tag, i1, i2, j1, j2 in ops:  # the alignment of the last stage's words
        if tag == "equal":
            continue
        why = _explained(aw[i1:i2], bw[j1:j2], rare, ungendered)
        if why is None:
            return None
        reasons.append(why)
    return list(dict.fromkeys(reasons))


def _count(ops: list[tuple[str, int, int, int, int]]) -> int:
    """Words that differ in an alignment."""
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")


def _opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()


def classify_items(old, new, vocab: Counter | None = None) -> list[str] | None:
    """``classify`` for two diff items: title and text compared, examples only counted as an editorial change."""
    reasons = classify(
        "\n".join(p for p in (old.title, old.text) if p), "\n".join(p for p in (new.title, new.text) if p), vocab
    )
    if reasons is not None and list(old.examples) != list(new.examples):
        reasons = list(dict.fromkeys([*reasons, "example"]))
    return reasons
