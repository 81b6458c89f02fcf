"""A query nothing in the rules answers says so: the page's confidence (kb.search.confidence), shown by
the search service, the CLI, the search page and its JSON twin."""

from __future__ import annotations

import pytest

from kb.search.confidence import HIGH, LOW, confidence, has_letters
from tests.helpers import rulekb, rulekb_json
from web import create_app

OFF_TOPIC = ("今日のランチ", "ラーメンの作り方", "😀", "？？？", "stock market crash")
ANSWERED = ("トランプル", "先制攻撃", "declare blockers", "509.1c", "ブロック・クリーチャーの指定", "マリガン")


@pytest.mark.parametrize("q", OFF_TOPIC)
def test_an_off_topic_query_is_low_confidence_but_still_lists_its_guesses(searcher, q):
    page = searcher.search_page(q, limit=10)
    assert page["confidence"] == LOW and page["hits"]
    assert all(h["confidence"] == LOW for h in page["hits"])


@pytest.mark.parametrize("q", ANSWERED)
def test_a_query_the_rules_answer_is_high_confidence(searcher, q):
    page = searcher.search_page(q, limit=10)
    assert page["confidence"] == HIGH and page["hits"][0]["confidence"] == HIGH


def test_the_confidence_rule():
    assert not has_letters("😀🍣 ？！") and has_letters("ｗ") and has_letters("2")
    assert confidence("😀", 2.8, 0.95, False) == LOW  # no letter at all: never sure
    assert confidence("509.1c", None, None, True) == HIGH
    assert confidence("接死", 2.0, None, False) == HIGH  # all the words, with or without meaning
    assert confidence("猫がかわいい", 1.3, 0.833, False) == LOW  # one word of several, far in meaning
    assert confidence("先攻はどうやって決める", 1.6, 0.902, False) == HIGH
    assert confidence("今日のランチ", 0.0, 0.844, False) == LOW
    assert confidence("回避脳力", 0.0, 0.879, False) == HIGH  # an IME slip: no word, but the meaning is close
    assert confidence("ほげ", 1.6, None, False) == HIGH and confidence("ほげ", 0.0, None, False) == LOW


def test_the_search_page_says_not_found_above_a_marked_band(built_home):
    client = create_app(built_home).test_client()
    off = client.get("/search?q=今日のランチ").get_data(as_text=True)
    assert "に当たる条文は見つかりません" in off and 'class="low-confidence"' in off and "確度低" in off
    assert client.get("/api/search?q=今日のランチ").get_json()["confidence"] == "low"
    on = client.get("/search?q=ブロック強制&jump=0").get_data(as_text=True)
    assert "見つかりません" not in on and "low-confidence" not in on and 'class="results"' in on
    assert client.get("/api/search?q=ブロック強制").get_json()["confidence"] == "high"


def test_the_cli_says_not_found_and_its_json_carries_the_confidence(built_home):
    run = rulekb("search", "今日のランチ", home=built_home)
    assert run.returncode == 0 and "見つかりません" in run.stderr and run.stdout.strip()
    assert {h["confidence"] for h in rulekb_json("search", "今日のランチ", home=built_home)} == {"low"}
    assert "見つかりません" not in rulekb("search", "ブロック強制", home=built_home).stderr
