"""Reads of the knowledge app. Every function takes the requesting user and sees only their rows."""

from .materials import (
    DEFAULT_K,
    MAX_RANGE,
    MaterialNotFound,
    access_material,
    chunk_outline,
    chunk_range,
    chunk_vectors,
    material_list,
    material_pages,
    material_stats,
    materials_in_scope,
    term_document_frequencies,
)
from .search import SearchHit, chunk_search, chunk_search_hybrid, chunk_search_lexical, chunk_search_multi, chunk_search_semantic

__all__ = [
    "DEFAULT_K",
    "MAX_RANGE",
    "MaterialNotFound",
    "SearchHit",
    "access_material",
    "chunk_outline",
    "chunk_range",
    "chunk_vectors",
    "chunk_search",
    "chunk_search_hybrid",
    "chunk_search_lexical",
    "chunk_search_multi",
    "chunk_search_semantic",
    "material_list",
    "material_pages",
    "material_stats",
    "materials_in_scope",
    "term_document_frequencies",
]
