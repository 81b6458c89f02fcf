"""Warm a generation in the background at start, so that the first visitors do not pay for it.

The first request after a start used to open the search index (its vocabulary and thesaurus), load
Janome's dictionary, compile every template and compute the front page, the version list and the
glossary. The warm-up asks the app for those pages itself (their results stay in the generation's
cache), and computes the comparison features of the newest editions, which most diffs involve.
"""

from __future__ import annotations

import logging
import time

from web.pagecache import REFRESH

log = logging.getLogger(__name__)

PAGES = (
    "/",
    "/search?q=ブロック・クリーチャー&jump=0",
    "/search?q=declare+blockers&jump=0",
    "/versions",
    "/glossary",
    "/diff",
)


def warm(app, state) -> None:
    """Request the common pages once and prepare the newest editions for diffs; never raises."""
    started = time.perf_counter()
    try:
        gen = state.current()
        from web import services

        services.editorial_vocabulary(gen.store())  # one scan, shared by every connection of the generation
        client = app.test_client()
        # computed even when another worker kept them (web.pagecache): the index, Janome and the glossary load
        fresh = {REFRESH: True}
        for url in PAGES:
            client.get(url, headers={"Accept-Encoding": "br, gzip"}, environ_overrides=fresh)  # compressed too
        searcher = gen.searcher()
        if searcher is not None:
            searcher.warm_forms()  # the ranker's Sudachi forms of the default scope: two seconds, once
        store = gen.store()
        newest = {(v.game, v.lang): v for v in store.versions() if not v.partial}
        for v in newest.values():
            client.get(f"/{v.game}/{v.lang}/{v.label}/", environ_overrides=fresh)
        for v in newest.values():
            services.prepare_diff(store, v)
            services.prime_terms(store, v)  # the term matcher of each language, and the terms of each text
        log.info("warmed %s in %.1f s", gen.name, time.perf_counter() - started)
    except Exception:  # no KB yet, a broken index: the pages will say so when asked
        log.warning("warm-up stopped", exc_info=True)
    finally:
        state.warmed.set()
