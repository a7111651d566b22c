"""Reads of the knowledge app. Every function takes the requesting user and sees only their rows."""

from .materials import (
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
from .retrieval import SESSION_TOP_K, ChunkRange, Scope, retrieve, retrieve_chunks, retrieve_stats
from .search import (
    TOP_K,
    SearchHit,
    chunk_search,
    chunk_search_hybrid,
    chunk_search_lexical,
    chunk_search_multi,
    chunk_search_semantic,
    names_in_other_language,
)

__all__ = [
    "MAX_RANGE",
    "SESSION_TOP_K",
    "TOP_K",
    "ChunkRange",
    "MaterialNotFound",
    "Scope",
    "SearchHit",
    "access_material",
    "chunk_outline",
    "chunk_range",
    "chunk_vectors",
    "names_in_other_language",
    "chunk_search",
    "chunk_search_hybrid",
    "chunk_search_lexical",
    "chunk_search_multi",
    "chunk_search_semantic",
    "material_list",
    "material_pages",
    "material_stats",
    "materials_in_scope",
    "retrieve",
    "retrieve_chunks",
    "retrieve_stats",
    "term_document_frequencies",
]
