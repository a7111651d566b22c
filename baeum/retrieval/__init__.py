"""Retrieval machinery: the offline embedders (USE, e5, Gemini) and the rerankers. No Django imports.

The search itself runs in SQL (``knowledge/selectors/search.py``); this package makes the vectors and
scores it reads. Imports ``language`` and ``extraction``.
"""
