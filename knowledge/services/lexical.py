"""Write BM25 postings for chunks (the read side is ``knowledge.selectors.chunk_search_lexical``)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection, transaction

from baeum.analysis import term_frequencies

from ..models import Chunk, ChunkTerm


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
        ChunkTerm.objects.unscoped().filter(chunk__in=[chunk.pk for chunk in chunks]).delete()
        with connection.cursor() as cursor:
            # One INSERT per 20k postings from arrays (COPY is not allowed on tables with row-level security).
            for start in range(0, len(rows), 20_000):
                columns = list(zip(*rows[start : start + 20_000], strict=True))
                cursor.execute(
                    "INSERT INTO knowledge_chunkterm (chunk_id, material_id, owner_id, term, tf, doc_length) "
                    "SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::text[], %s::int[], %s::int[])",
                    [list(column) for column in columns],
                )
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
