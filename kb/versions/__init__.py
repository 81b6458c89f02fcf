"""Versions of the rules: order, editions, diff, lineage, history, alignment, glossary, clause views."""
