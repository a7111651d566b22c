"""Write BM25 postings for chunks (the read side is ``knowledge.selectors.chunk_search_lexical``), the
terms they gloss in the other language (read by ``knowledge.selectors.search.glosses`` / ``korean_names``) and
their materials' English vocabularies with vectors (read by ``knowledge.selectors.search.meaning_names``)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from django.db import connection, transaction

from baeum.language import vocabulary
from baeum.language.analysis import term_frequencies
from baeum.language.glossary import folded_words, glosses_in
from core.providers import embedder_for_model

from ..models import Chunk, ChunkTerm, Gloss, VocabularyWord
from .embedding import embeddings_compute


def chunk_terms_write(*, chunks: Iterable[Chunk]) -> int:
    """Analyse each chunk and store its postings (replacing old ones); return the number of postings."""
    chunks = list(chunks)
    rows: list[tuple[int, int, int, str, int, int]] = []
    lengths: list[tuple[int, int]] = []
    for chunk in chunks:
        frequencies, length = term_frequencies(chunk.content)
        lengths.append((chunk.pk, length))
        rows.extend((chunk.pk, chunk.material_id, chunk.owner_id, term, tf, length) for term, tf in frequencies.items())
    with transaction.atomic():
        # Derived index rows of these chunks (the caller holds them: ingestion, reindex_lexical).
        ChunkTerm.objects.unscoped().filter(chunk__in=[chunk.pk for chunk in chunks]).delete()
        Gloss.objects.unscoped().filter(chunk__in=[chunk.pk for chunk in chunks]).delete()
        with connection.cursor() as cursor:
            # One INSERT per 20k postings from arrays (COPY is not allowed on tables with row-level security).
            for start in range(0, len(rows), 20_000):
                columns = list(zip(*rows[start : start + 20_000], strict=True))
                cursor.execute(
                    "INSERT INTO knowledge_chunkterm (chunk_id, material_id, owner_id, term, tf, doc_length) "
                    "SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::text[], %s::int[], %s::int[])",
                    [list(column) for column in columns],
                )
            _glosses_write(cursor, chunks)
            cursor.execute(
                "UPDATE knowledge_chunk AS c SET term_count = v.length FROM unnest(%s::bigint[], %s::int[]) AS v(id, length) WHERE c.id = v.id",
                [[pk for pk, _ in lengths], [length for _, length in lengths]],
            )
            cursor.execute(
                "UPDATE knowledge_material AS m SET term_total = (SELECT coalesce(sum(c.term_count), 0) FROM knowledge_chunk c "
                "WHERE c.material_id = m.id) WHERE m.id = ANY(%s)",
                [sorted({chunk.material_id for chunk in chunks})],
            )
    return len(rows)


def vocabulary_write_later(*, material_id: int) -> None:
    """Queue writing a material's vocabulary once the transaction commits (``knowledge.tasks.write_vocabulary``,
    background queue): the material is searchable meanwhile, a Korean question only without its nouns' English."""
    from ..tasks import write_vocabulary  # tasks import services

    transaction.on_commit(lambda: write_vocabulary.delay(material_id))


def vocabulary_write(*, material_id: int) -> int:
    """Store the English vocabulary of one material (``baeum.language.vocabulary``), replacing the old one: each
    word with its vector; return the number of words. Reads the material's chunks, so it runs after they are
    stored."""
    chunks = Chunk.objects.unscoped().filter(material_id=material_id)  # the caller holds the material's chunks
    owner_id = chunks.values_list("owner_id", flat=True).first()
    VocabularyWord.objects.unscoped().filter(material_id=material_id).delete()
    if owner_id is None:
        return 0
    words = vocabulary.latin_words(chunks.values_list("content", flat=True).iterator())
    if not words:
        return 0
    # Through the owner's vector cache: reading the material again embeds none of its words again.
    vectors = np.asarray(
        embeddings_compute(texts=[word for word, _ in words], embedder=embedder_for_model(vocabulary.EMBEDDER), owner_id=owner_id)
    )
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    VocabularyWord.objects.bulk_create(
        [
            VocabularyWord(material_id=material_id, owner_id=owner_id, word=word, uses=uses, vector=vector)
            for (word, uses), vector in zip(words, vectors, strict=True)
        ],
        batch_size=2000,
    )
    return len(words)


def _glosses_write(cursor, chunks: list[Chunk]) -> None:
    rows = [
        (
            chunk.pk,
            chunk.material_id,
            chunk.owner_id,
            gloss.before[:60],
            gloss.head[:60],
            gloss.english[:100],
            (folded_words(gloss.english) or [""])[0][:60],
        )
        for chunk in chunks
        for gloss in glosses_in(chunk.content)
    ]
    if rows:
        cursor.execute(
            "INSERT INTO knowledge_gloss (chunk_id, material_id, owner_id, before, head, english, english_first) "
            "SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::text[], %s::text[], %s::text[], %s::text[])",
            [list(column) for column in zip(*rows, strict=True)],
        )
