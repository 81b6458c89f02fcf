"""Error messages in Japanese, the language of the pages.

The app's own messages are written in Japanese where they are raised (web.pages). The services below
it (kb) and the HTTP layer (werkzeug) speak English; their messages are put into Japanese here by the
shape of the message, the English kept as ``detail`` for whoever reads the JSON or reports a bug.
"""

from __future__ import annotations

import re

# (English message pattern, Japanese); groups carry names and numbers across.
_PATTERNS: list[tuple[re.Pattern, str]] = [
    (
        re.compile(r"unknown version '([^']*)' of (\w+)/(\w+) \(newest: ([^)]*)\)"),
        "版 {0} は {1}/{2} に収録されていません（最新は {3}）。",
    ),
    (re.compile(r"unknown version '([^']*)'"), "版 {0} は収録されていません。"),
    (re.compile(r"no versions of (\w+)/(\w+)"), "{0}/{1} の版は収録されていません。"),
    (
        re.compile(r"version '([^']*)' exists for (.+): give --game/--lang"),
        "版 {0} は {1} にあります。ゲームと言語を指定してください。",
    ),
    (re.compile(r"rule (\S+) not in (\w+)/(\w+) (\S+)"), "{0} は {1}/{2} {3} にありません。"),
    (re.compile(r"unknown rule '([^']*)' in (\w+)/(\w+)"), "{0} は {1}/{2} のどの版にもありません。"),
    (
        re.compile(r"(\S+) is (\w+) but (\S+) is (\w+): align compares one game"),
        "{0} と {2} はゲームが異なるため比べられません。",
    ),
    (re.compile(r"(\S+) or (\S+) is not a (\w+)/(\w+) version"), "{0} または {1} は {2}/{3} の版ではありません。"),
    (
        re.compile(r"query too long \((\d+) characters; at most (\d+)\)"),
        "検索語が長すぎます（{0} 文字。{1} 文字まで）。",
    ),
    (re.compile(r"empty query"), "検索語が空です。語句かルール番号を入力してください。"),
    (re.compile(r"the query must be text"), "検索語は文字で入力してください。"),
    (re.compile(r".*missing; run `rulekb build`"), "知識ベースがまだありません。`rulekb build` で作成してください。"),
    (
        re.compile(r".*no clause lineage: rebuild it"),
        "この知識ベースには条文の系譜がありません。`rulekb build` で作り直してください。",
    ),
]

# What each status says when nothing more specific was said (werkzeug's own descriptions are English).
GENERIC = {
    400: "リクエストに誤りがあります。",
    404: "お探しのページは見つかりませんでした。URL をご確認ください。",
    405: "この URL はこのメソッドを受け付けません。",
    413: "リクエストが大きすぎます。",
    414: "URL が長すぎます。",
    429: "リクエストが多すぎます。しばらく待ってからお試しください。",
    500: "サーバーの内部エラーです。詳しくはサーバーのログにあります。",
    503: "知識ベースを読み込めません。",
}


def _is_japanese(text: str) -> bool:
    return any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in text)


def japanese(code: int, message: str, *, werkzeug_default: bool = False, method: str = "") -> tuple[str, str | None]:
    """``(Japanese message, English original or None)`` for an error answered with status ``code``."""
    if message and _is_japanese(message):
        return message, None
    if code == 405 and method:
        return f"この URL では {method} は使えません。", message or None
    if not message or werkzeug_default:
        return GENERIC.get(code, "エラーが発生しました。"), message or None
    for pattern, ja in _PATTERNS:
        m = pattern.search(message)
        if m:
            return ja.format(*m.groups()), message
    return GENERIC.get(code, "エラーが発生しました。"), message
