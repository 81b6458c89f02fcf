"""Search: Japanese-aware index, query building, retrieval, ranking and result rows (``searcher.Searcher``)."""
