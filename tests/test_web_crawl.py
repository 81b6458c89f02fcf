"""Crawl the app on the seed KB: every link reachable from / within 3 hops, plus a sample of clause
pages and their JSON twins, answers 200."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest

from web import create_app

pytestmark = pytest.mark.heavy  # a seed KB built with its index, crawled page by page

HREF = re.compile(r'\s(?:href|src|data-src)="([^"]*)"')
SAMPLE_EVERY = 25  # one clause page in this many, in each version


@pytest.fixture(scope="module")
def client(built_home):
    return create_app(built_home, {"WARMUP": False}).test_client()


def links(page: str, base: str) -> set[str]:
    """Same-site URLs a page links to (fragments dropped); the wiki and other sites are left alone."""
    out = set()
    for raw in HREF.findall(page):
        url, _ = urldefrag(urljoin(base, unescape(raw)))
        parts = urlsplit(url)
        if parts.scheme in ("", "http") and parts.netloc in ("", "localhost") and not raw.startswith("data:"):
            out.add(parts.path + (f"?{parts.query}" if parts.query else ""))
    return out


def test_every_link_within_three_hops_answers_200(client):
    seen = {"/": 0}
    frontier = ["/"]
    failures = []
    for hop in range(1, 4):  # fetch the pages 0, 1 and 2 hops away and follow their links
        nxt = []
        for url in frontier:
            resp = client.get(url, follow_redirects=True)  # a rule number searched redirects to its clause
            if resp.status_code != 200:
                failures.append((url, resp.status_code))
                continue
            if resp.mimetype == "text/html":
                for link in links(resp.get_data(as_text=True), "http://localhost" + url):
                    if link not in seen:
                        seen[link] = hop
                        nxt.append(link)
        frontier = nxt
    for url in frontier:  # the third hop's pages: fetched, not followed
        resp = client.get(url, follow_redirects=True)
        if resp.status_code != 200:
            failures.append((url, resp.status_code))
    assert failures == []
    assert len(seen) > 500  # the crawl reached the contents and clause pages
    kinds = {u.split("/")[1].split("?")[0] for u in seen}
    assert {"search", "versions", "diff", "glossary", "articles", "history", "mtg", "static"} <= kinds


def test_a_sample_of_clause_pages_and_their_twins_answer_200(client):
    versions = client.get("/api/versions").get_json()["versions"]
    checked = 0
    for v in versions:
        nodes = client.get(f"/api/{v['game']}/{v['lang']}/{v['version']}/").get_json()["nodes"]
        for n in nodes[::SAMPLE_EVERY]:
            page = client.get(n["url"])
            assert page.status_code == 200, n["url"]
            assert client.get("/api" + n["url"]).status_code == 200, n["url"]
            checked += 1
    assert checked >= 20
