"""Retrieval at scale: a synthetic library in a throwaway schema, the production SQL against it.

The schema copies the knowledge tables (with their indexes, HNSW included) and is dropped at the end.
Vectors are clustered (topics + noise) and chunks draw their terms from topic vocabularies, so both
retrievers face realistic neighbours. Times exclude embedding the query, which is reported apart.

``--skewed`` builds what a school meets: a few teacher-sized libraries (50,000–200,000 chunks each) among
many small ones (100–1,000), and reports each group apart — the large owners are where the HNSW index
with iterative scans is used; the small ones are answered from the owner b-tree. The vector index is
built after loading, as a restore or a bulk import would, and its build time and size are reported.
"""

import json
import secrets
import time

import numpy as np
from django.core.management.base import BaseCommand
from django.db import connection, transaction
from django.db.models.fields import AutoFieldMixin
from tqdm import tqdm

from accounts import rls
from baeum.metrics import percentile
from core.providers import active_embedder, embedder_for_model, quality_embedder
from knowledge.models import Chunk, ChunkEmbedding, ChunkTerm
from knowledge.selectors import search
from knowledge.services.vector_indexes import owner_index_create

MODEL = "use-multilingual-v3"
DIMENSION = 512
TABLES = ("knowledge_chunk", "knowledge_chunkterm", "knowledge_chunkembedding")


class Command(BaseCommand):
    help = "Benchmark semantic, lexical and hybrid retrieval on a synthetic multi-tenant library."

    def add_arguments(self, parser):
        parser.add_argument("--chunks", type=int, default=100_000)
        parser.add_argument("--users", type=int, default=1_000)
        parser.add_argument("--queries", type=int, default=200)
        parser.add_argument("--k", type=int, default=10)
        parser.add_argument("--seed", type=int, default=42)
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--skewed", action="store_true", help="A few large libraries among many small ones (default 1,000,000 chunks).")
        parser.add_argument("--large", default="200000,150000,100000,50000", help="Sizes of the large libraries (with --skewed).")
        parser.add_argument("--small", default="100,1000", help="Smallest,largest size of the small libraries (with --skewed).")
        parser.add_argument("--keep", action="store_true", help="Keep the synthetic schema (its name is printed) for --reuse.")
        parser.add_argument("--reuse", default="", help="Measure on a schema kept by an earlier --skewed --keep run (same --seed).")
        parser.add_argument(
            "--shared-index-only", action="store_true", help="No library gets an index of its own (the design before; with --skewed)."
        )

    def handle(self, *args, chunks, users, queries, k, seed, json: bool, skewed: bool, large: str, small: str, keep, reuse, **options):
        self.owner_indexes = not options["shared_index_only"]
        with rls.owner_session(connection):  # a throwaway schema: made and dropped by the tables' owner
            self._run(chunks, users, queries, k, seed, json, skewed or bool(reuse), large, small, keep, reuse)

    def _run(self, chunks, users, queries, k, seed, json, skewed, large, small, keep, reuse):
        from pgvector.psycopg import register_vector

        rng = np.random.default_rng(seed)
        schema = reuse or f"bench_{secrets.token_hex(4)}"
        show = not json
        connection.ensure_connection()
        register_vector(connection.connection)
        with connection.cursor() as cursor:
            if not reuse:
                cursor.execute(f"CREATE SCHEMA {schema}")
            try:
                if not reuse:
                    for table in TABLES:
                        cursor.execute(
                            f"CREATE TABLE {schema}.{table} (LIKE public.{table} INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING INDEXES)"
                        )
                if skewed:
                    sizes = _skewed_sizes(rng, chunks if chunks != 100_000 else 1_000_000, large, small)
                    chunks, users = sum(sizes), len(sizes)
                    report = self._skewed(cursor, schema, rng, sizes, queries, k, seed, show, reuse=bool(reuse))
                    build_seconds = report.pop("build_seconds")
                else:
                    build_seconds, truth = self._build(cursor, schema, rng, chunks, users, show)
                    cursor.execute(f"SET search_path TO {schema}, public")
                    report = self._measure(rng, truth, users, queries, k, show)
            finally:
                cursor.execute("SET search_path TO public")
                if keep or reuse:
                    self.stderr.write(f"Kept the synthetic library in schema {schema} (drop it with DROP SCHEMA {schema} CASCADE).")
                else:
                    cursor.execute(f"DROP SCHEMA {schema} CASCADE")
        report.update({"chunks": chunks, "users": users, "queries": queries, "k": k, "build_seconds": round(build_seconds, 1)})
        report["query_embedding_ms"] = self._embedding_latency(active_embedder())
        if quality_embedder() is not None:  # what a query costs once the library is upgraded
            report["quality_query_embedding_ms"] = self._embedding_latency(quality_embedder())
        if skewed:
            report["build_s"] = report["build_seconds"]
        self.stdout.write(
            json_dumps(report)
            if json
            else "\n".join(json_dumps(mode) for mode in report.get("modes", report.get("groups", [])))
            + "\n"
            + json_dumps({key: value for key, value in report.items() if key not in ("modes", "groups")})
        )

    def _build(self, cursor, schema, rng, chunks, users, show):
        started = time.perf_counter()
        topics = 400
        centers = rng.normal(size=(topics, DIMENSION)).astype(np.float32)
        vocabulary = [
            [_word(topic * 100 + word) for word in range(60)] + [_word(90_000 + word) for word in range(40)] for topic in range(topics)
        ]
        per_user = chunks // users
        truth = {"vectors": {}, "terms": {}, "owner_chunks": {}}
        chunk_id = 0
        with cursor.copy(f"COPY {schema}.{EMBEDDING_ROWS.table} {EMBEDDING_ROWS.columns} FROM STDIN WITH (FORMAT BINARY)") as copy:
            copy.set_types(EMBEDDING_ROWS.types)
            for owner in tqdm(range(1, users + 1), desc="Vectors", disable=not show, unit="user"):
                owner_topics = rng.choice(topics, size=5, replace=False)
                ids = []
                for index in range(per_user):
                    chunk_id += 1
                    topic = owner_topics[index % 5]
                    vector = centers[topic] + 0.6 * rng.normal(size=DIMENSION).astype(np.float32)
                    vector /= np.linalg.norm(vector)
                    copy.write_row(EMBEDDING_ROWS.row(chunk_id, chunk_id, owner * 10 + index % 2, owner, vector))
                    words = rng.choice(vocabulary[topic], size=60, p=_zipf(100))
                    truth["terms"][chunk_id] = (owner, owner * 10 + index % 2, words)
                    ids.append(chunk_id)
                    if len(truth["vectors"]) < 5000 or index == 0:
                        truth["vectors"][chunk_id] = vector
                truth["owner_chunks"][owner] = ids
        with cursor.copy(f"COPY {schema}.{CHUNK_ROWS.table} {CHUNK_ROWS.columns} FROM STDIN") as copy:
            for cid, (owner, material, words) in tqdm(truth["terms"].items(), desc="Chunks", disable=not show, unit="chunk"):
                for row in _chunk_rows(cid, material, owner, words):
                    copy.write_row(row)
        with cursor.copy(f"COPY {schema}.{TERM_ROWS.table} {TERM_ROWS.columns} FROM STDIN") as copy:
            for cid, (owner, material, words) in tqdm(truth["terms"].items(), desc="Postings", disable=not show, unit="chunk"):
                for row in _posting_rows(cid, material, owner, words):
                    copy.write_row(row)
        cursor.execute(f"ANALYZE {schema}.knowledge_chunkembedding")
        cursor.execute(f"ANALYZE {schema}.knowledge_chunkterm")
        cursor.execute(f"ANALYZE {schema}.knowledge_chunk")
        return time.perf_counter() - started, truth

    def _measure(self, rng, truth, users, queries, k, show):
        probes = []
        for _ in range(queries):
            owner = int(rng.integers(1, users + 1))
            target = truth["owner_chunks"][owner][0]
            query_vector = _question_near(truth["vectors"][target], rng)
            corpus = (float(len(truth["owner_chunks"][owner])), 60.0)  # what the two materials' rows record
            probes.append((owner, [owner * 10, owner * 10 + 1], query_vector, list(rng.choice(truth["terms"][target][2], size=5)), corpus))
        return {"modes": self._time(probes, k, show)}

    def _time(self, probes, k, show, label="Queries"):
        """p50/p95 per mode and vector recall against exact search over ``probes`` (owner, materials, vector,
        terms, corpus statistics)."""
        modes = {"semantic": [], "lexical": [], "hybrid": []}
        recalls = []
        embedder = embedder_for_model(MODEL)  # the synthetic vectors stand in for this model's
        for owner, materials, query_vector, query_terms, corpus in tqdm(probes, desc=label, disable=not show, unit="query"):
            # Every probe searches its owner's whole library (the owner's materials are all in ``materials``),
            # with the corpus statistics its material rows would give (chunks, terms per chunk).
            scope = search._Scope(
                owner_ids=[owner], material_ids=materials, by_model={(MODEL, DIMENSION): materials}, whole_library=True, corpus=corpus
            )

            # Hybrid first: it pays for reading this neighbourhood of the index into shared buffers, as a
            # learner's first question does; the semantic and lexical timings after it find it there.
            began = time.perf_counter()
            vector_wide = search.VectorScores(
                embedder=embedder,
                similarity=dict(
                    search._vector_search(
                        owner_ids=[owner],
                        model=MODEL,
                        dimension=DIMENSION,
                        material_ids=materials,
                        query_vector=query_vector,
                        k=search.CANDIDATES,
                        whole_library=True,
                    )
                ),
            )
            lexical_wide = search._lexical_candidates(scope, " ".join(query_terms), search.CANDIDATES)
            search.fuse([vector_wide], lexical_wide, alpha=search.hybrid_alpha())[:k]
            modes["hybrid"].append((time.perf_counter() - began) * 1000)

            began = time.perf_counter()
            approximate = search._vector_search(
                owner_ids=[owner],
                model=MODEL,
                dimension=DIMENSION,
                material_ids=materials,
                query_vector=query_vector,
                k=k,
                whole_library=True,
            )
            modes["semantic"].append((time.perf_counter() - began) * 1000)

            began = time.perf_counter()
            search._lexical_candidates(scope, " ".join(query_terms), k)
            modes["lexical"].append((time.perf_counter() - began) * 1000)

            exact = self._exact(owner, materials, query_vector, k)
            recalls.append(len({chunk for chunk, _ in approximate} & set(exact)) / max(1, len(exact)))
        result = []
        for mode, latencies in modes.items():
            entry = {"mode": mode, "p50_ms": round(percentile(latencies, 0.5), 2), "p95_ms": round(percentile(latencies, 0.95), 2)}
            if mode in ("semantic", "hybrid"):
                entry["recall_vs_exact"] = round(float(np.mean(recalls)), 4)
            result.append(entry)
        return result

    # --- Skewed tenants ---------------------------------------------------------------------------

    def _skewed(self, cursor, schema, rng, sizes, queries, k, seed, show, *, reuse=False):
        """Load ``sizes`` (chunks per owner), build the vector index, and time each group's queries."""
        space = (
            _unit(rng.normal(size=DIMENSION).astype(np.float32)),
            _unit(rng.normal(size=(SKEWED_TOPICS, DIMENSION)).astype(np.float32)),
        )
        vocabulary = np.array([[_word(topic * 100 + word) for word in range(100)] for topic in range(SKEWED_TOPICS)])
        if reuse:
            samples = {owner: _samples(space, seed, owner, first, rows) for owner, first, rows in _owners(sizes)}
            build = {"build_seconds": 0.0}
        else:
            samples, build = self._skewed_build(cursor, schema, sizes, seed, space, vocabulary, show)
        cursor.execute(f"SET search_path TO {schema}, public")
        build |= self._owner_indexes(cursor, sizes)
        groups = []
        for group, owners in (
            ("large", [o for o, n in enumerate(sizes, 1) if n >= SKEWED_LARGE_FROM]),
            ("small", [o for o, n in enumerate(sizes, 1) if n < SKEWED_LARGE_FROM]),
        ):
            if not owners:
                continue
            probes = []
            for _ in range(queries):
                owner = int(rng.choice(owners))
                chunk_id, vector, topic = samples[owner][int(rng.integers(len(samples[owner])))]
                query_vector = _question_near(vector, rng)
                terms = list(rng.choice(vocabulary[topic][:60], size=5, p=_zipf(60)))
                materials = sorted({_material(owner, offset) for offset in range(0, sizes[owner - 1], CHUNKS_PER_MATERIAL)})
                probes.append((owner, materials, query_vector, terms, (float(sizes[owner - 1]), float(WORDS_PER_CHUNK))))
            groups.append(
                {
                    "group": group,
                    "owners": len(owners),
                    "chunks": sum(sizes[o - 1] for o in owners),
                    "modes": self._time(probes, k, show, label=group),
                }
            )
        return {
            "groups": groups,
            **build,
            "largest_library": max(sizes),
        }

    def _skewed_build(self, cursor, schema, sizes, seed, space, vocabulary, show):
        """Write every owner's vectors, chunks and postings, then build the HNSW index; return the query
        samples (three chunks of each owner) and the build's time and size."""
        started = time.perf_counter()
        indexes = self._drop_vector_indexes(cursor, schema)
        samples: dict[int, list] = {}
        with cursor.copy(f"COPY {schema}.{EMBEDDING_ROWS.table} {EMBEDDING_ROWS.columns} FROM STDIN WITH (FORMAT BINARY)") as copy:
            copy.set_types(EMBEDDING_ROWS.types)
            for owner, first, rows in tqdm(_owners(sizes), total=len(sizes), desc="Vectors", disable=not show, unit="owner"):
                for block in _blocks(rows):
                    topics, vectors = _owner_vectors(space, seed, owner, block, rows)
                    for offset, vector in zip(block, vectors, strict=True):
                        chunk_id = first + offset
                        # One vector per chunk: the embedding row's id is its chunk's.
                        copy.write_row(EMBEDDING_ROWS.row(chunk_id, chunk_id, _material(owner, offset), owner, vector))
                    if block.start == 0:
                        samples[owner] = [(first + offset, vectors[offset], topics[offset]) for offset in _sample_offsets(len(block))]
        for rows_spec, rows_of in ((CHUNK_ROWS, _chunk_rows), (TERM_ROWS, _posting_rows)):
            with cursor.copy(f"COPY {schema}.{rows_spec.table} {rows_spec.columns} FROM STDIN") as copy:
                for owner, first, rows in tqdm(
                    _owners(sizes), total=len(sizes), desc=rows_spec.table.split("_")[1], disable=not show, unit="owner"
                ):
                    for block in _blocks(rows):
                        topics = _owner_topics(seed, owner, block, rows)
                        words = _chunk_words(vocabulary, seed, owner, block, topics)
                        for offset, chunk_words in zip(block, words, strict=True):
                            for row in rows_of(first + offset, _material(owner, offset), owner, chunk_words):
                                copy.write_row(row)
        for table in TABLES:
            cursor.execute(f"ANALYZE {schema}.{table}")
        load_seconds = time.perf_counter() - started
        began = time.perf_counter()
        cursor.execute("SET maintenance_work_mem = '4GB'")  # the graph in memory: a build that spills is many times slower
        for definition in tqdm(indexes, desc="HNSW index", disable=not show):
            cursor.execute(definition)
        index_seconds = time.perf_counter() - began
        cursor.execute("RESET maintenance_work_mem")
        cursor.execute(
            "SELECT coalesce(sum(pg_relation_size(indexrelid)), 0) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'hnsw' AND c.relnamespace = %s::regnamespace",
            [schema],
        )
        index_bytes = int(cursor.fetchone()[0])
        cursor.execute(f"ANALYZE {schema}.knowledge_chunkembedding")
        return samples, {
            "build_seconds": round(load_seconds + index_seconds, 1),
            "load_seconds": round(load_seconds, 1),
            "index_build_seconds": round(index_seconds, 1),
            "index_mb": round(index_bytes / 2**20, 1),
        }

    def _owner_indexes(self, cursor, sizes) -> dict:
        """Give each large library its own index, as ``vector_indexes_sync`` does (or drop them all with
        ``--shared-index-only``); return the time it took and the indexes' size."""
        began = time.perf_counter()
        for owner, rows in enumerate(sizes, 1):
            name = search.owner_index_name(owner, MODEL)
            if self.owner_indexes and rows >= search.LARGE_LIBRARY_VECTORS:
                cursor.execute("SET maintenance_work_mem = '2GB'")
                owner_index_create(cursor, owner_id=owner, model=MODEL, dimension=DIMENSION, concurrently=False)
            else:
                cursor.execute(f"DROP INDEX IF EXISTS {name}")
        seconds = time.perf_counter() - began
        cursor.execute(
            "SELECT coalesce(sum(pg_relation_size(format('%%I.%%I', schemaname, indexname)::regclass)), 0) FROM pg_indexes "
            "WHERE schemaname = current_schema() AND indexname LIKE %s",
            [search.OWNER_INDEX_PREFIX + "%"],
        )
        search.owner_indexes_forget()
        return {"owner_indexes_seconds": round(seconds, 1), "owner_indexes_mb": round(int(cursor.fetchone()[0]) / 2**20, 1)}

    def _drop_vector_indexes(self, cursor, schema) -> list[str]:
        """Drop the HNSW indexes the copied tables came with; return the statements that rebuild them."""
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = %s AND indexdef ILIKE '%%USING hnsw%%'", [schema])
        found = cursor.fetchall()
        for name, _definition in found:
            cursor.execute(f"DROP INDEX {schema}.{name}")
        return [definition for _name, definition in found]

    def _exact(self, owner, materials, query_vector, k):
        literal = "[" + ",".join(f"{value:.7g}" for value in query_vector) + "]"
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_indexscan = off")
            cursor.execute(
                "SELECT chunk_id FROM knowledge_chunkembedding WHERE owner_id = %s AND model = %s AND material_id = ANY(%s) "
                "ORDER BY (embedding::vector(512)) <=> %s::vector(512) LIMIT %s",
                [owner, MODEL, materials, literal, k],
            )
            return [row[0] for row in cursor.fetchall()]

    def _embedding_latency(self, embedder):
        embedder.embed_query("warm up")
        timings = []
        for question in ["What is recursion?", "레지스터는 무엇인가?", "How do interrupts work in protected mode?"] * 10:
            began = time.perf_counter()
            embedder.embed_query(question)
            timings.append((time.perf_counter() - began) * 1000)
        return {"model": embedder.model, "p50_ms": round(percentile(timings, 0.5), 2), "p95_ms": round(percentile(timings, 0.95), 2)}


# --- Synthetic rows through the models' own columns ----------------------------------------------------


class CopyRows:
    """COPY rows for ``model``'s table with every concrete column the model has, so a column added later
    can never make the benchmark's rows invalid unnoticed (a hand-written column list once left the new
    NOT NULL ``note_spans`` out, and every run failed).

    ``varying`` names the columns each row gives, in order; ``fixed`` gives values shared by every row;
    every other column takes what ``Model()`` would save (the field's default, "" for text, NULL where
    allowed; JSON serialised). A column with none of these is an error naming it, raised at import, before
    any row is written.
    """

    def __init__(self, model, /, *, varying: tuple[str, ...], **fixed):  # "/": a column may be called "model"
        # An automatic primary key not given is left to the database's sequence.
        fields = [
            field
            for field in model._meta.concrete_fields
            if not (isinstance(field, AutoFieldMixin) and field.attname not in varying and field.attname not in fixed)
        ]
        by_attname = {field.attname: field for field in fields}
        unknown = sorted((set(varying) | set(fixed)) - set(by_attname))
        if unknown:
            raise ValueError(f"{model.__name__} has no column {', '.join(unknown)}")
        self.table = model._meta.db_table
        self.columns = "(" + ", ".join(field.column for field in fields) + ")"
        self.types = [_copy_type(field) for field in fields]
        self._template = []
        for field in fields:
            if field.attname in varying:
                self._template.append(None)
            elif field.attname in fixed:
                self._template.append(_copy_value(field, fixed[field.attname]))
            elif (default := field.get_default()) is not None or field.null:  # what ``Model()`` would save
                self._template.append(_copy_value(field, default))
            else:
                raise ValueError(f"{self.table}.{field.column} has no default and may not be NULL: give it in `varying` or `fixed`")
        position = {field.attname: index for index, field in enumerate(fields)}
        self._slots = [(position[name], _is_json(by_attname[name])) for name in varying]

    def row(self, *values) -> list:
        """One row: ``values`` for the varying columns, in the order they were named."""
        row = self._template.copy()
        for (index, is_json), value in zip(self._slots, values, strict=True):
            row[index] = json.dumps(value) if is_json else value
        return row


def _is_json(field) -> bool:
    return field.get_internal_type() == "JSONField"


def _copy_value(field, value):
    return json.dumps(value) if _is_json(field) else value


def _copy_type(field) -> str:
    """The PostgreSQL type name a binary COPY needs for ``field``."""
    kind = field.get_internal_type()
    return {
        "BigAutoField": "bigint",
        "AutoField": "integer",
        "ForeignKey": "bigint",
        "PositiveIntegerField": "integer",
        "PositiveSmallIntegerField": "smallint",
        "IntegerField": "integer",
        "CharField": "varchar",
        "TextField": "text",
        "JSONField": "jsonb",
    }.get(kind, field.db_type(connection))


CHUNK_ROWS = CopyRows(
    Chunk,
    varying=("id", "owner_id", "material_id", "chunk_index", "content", "token_count", "term_count"),
    page_number=1,
    page_end=1,
    content_hash="h",
)
TERM_ROWS = CopyRows(ChunkTerm, varying=("chunk_id", "material_id", "owner_id", "term", "tf", "doc_length"))
EMBEDDING_ROWS = CopyRows(
    ChunkEmbedding, varying=("id", "chunk_id", "material_id", "owner_id", "embedding"), model=MODEL, dimension=DIMENSION
)


# --- The skewed library, generated again for each table from per-owner seeds (never all in memory) ----

SKEWED_TOPICS = 2000
TOPICS_PER_BOOK = 20
CHUNKS_PER_TOPIC = 25
CHUNKS_PER_SECTION = 6
# Square roots of each part's share of a vector. Fitted so a 500-chunk synthetic book has the
# neighbourhoods of USE vectors of real books (thinkpython2 / pcasm-book-korean: nearest neighbour
# cosine 0.74 / 0.74, 10th 0.59 / 0.60, median 0.33 / 0.38); isotropic noise around a few centres (the
# even benchmark's) gives 0.76, 0.75 and 0.0: every neighbour ties, and recall measures noise.
VECTOR_MIX = {"shared": 0.63, "topic": 0.5, "section": 0.42, "own": 0.55}  # synthetic: 0.74, 0.59, 0.35
SKEWED_LARGE_FROM = 10_000  # an owner with this many chunks or more is in the "large" group
CHUNKS_PER_MATERIAL = 500  # a large library is many books, as a teacher's shelf is
WORDS_PER_CHUNK = 16  # fewer than the even benchmark's 60: 1M chunks would otherwise mean 40M postings
BLOCK = 20_000  # chunks generated at a time


def _skewed_sizes(rng, total: int, large: str, small: str) -> list[int]:
    """Chunks per owner: the large libraries, then small ones drawn uniformly until ``total`` is reached."""
    sizes = [int(size) for size in large.split(",") if size.strip()]
    low, high = (int(value) for value in small.split(","))
    while sum(sizes) < total:
        sizes.append(min(int(rng.integers(low, high + 1)), total - sum(sizes)))
    return sizes


def _owners(sizes: list[int]):
    first = 1
    for owner, rows in enumerate(sizes, 1):
        yield owner, first, rows
        first += rows


def _blocks(rows: int):
    for start in range(0, rows, BLOCK):
        yield range(start, min(rows, start + BLOCK))


def _material(owner: int, offset: int) -> int:
    return owner * 1000 + offset // CHUNKS_PER_MATERIAL


def _owner_topics(seed: int, owner: int, block: range, rows: int) -> np.ndarray:
    """Each chunk's topic: every book (material) has its chapters' topics, drawn from a shared pool so that
    books on the same subject overlap; a chapter runs ``CHUNKS_PER_TOPIC`` consecutive chunks."""
    offsets = np.arange(block.start, block.stop)
    books = offsets // CHUNKS_PER_MATERIAL
    topics = np.empty(len(block), dtype=np.int64)
    for book in np.unique(books):
        chapters = np.random.default_rng([seed, owner, int(book), 3]).choice(SKEWED_TOPICS, size=TOPICS_PER_BOOK, replace=False)
        inside = books == book
        topics[inside] = chapters[(offsets[inside] % CHUNKS_PER_MATERIAL) // CHUNKS_PER_TOPIC % TOPICS_PER_BOOK]
    return topics


def _owner_vectors(space, seed: int, owner: int, block: range, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Vectors with the neighbourhoods of real ones: a direction every text shares, the chapter's topic, the
    section's (``CHUNKS_PER_SECTION`` consecutive chunks) and the chunk's own part (``VECTOR_MIX``)."""
    shared, centers = space
    topics = _owner_topics(seed, owner, block, rows)
    generator = np.random.default_rng([seed, owner, block.start, 0])
    sections = (np.arange(block.start, block.stop) - block.start) // CHUNKS_PER_SECTION
    section_directions = _unit(generator.normal(size=(int(sections.max()) + 1, DIMENSION)).astype(np.float32))
    own = _unit(generator.normal(size=(len(block), DIMENSION)).astype(np.float32))
    weights = VECTOR_MIX
    vectors = weights["shared"] * shared + weights["topic"] * centers[topics] + weights["section"] * section_directions[sections]
    vectors += weights["own"] * own
    return topics, _unit(vectors)


# A question's vector against its passage's: cosine ~0.7 (1 / sqrt(1 + QUESTION_NOISE²)), as USE gives a
# question and the passage that answers it. (Noise 0.3 per dimension, as before, left a cosine of 0.15:
# every probe was a random vector, whose exact neighbours are ties.)
QUESTION_NOISE = 1.0


def _question_near(vector: np.ndarray, rng) -> np.ndarray:
    noise = _unit(rng.normal(size=DIMENSION).astype(np.float32))
    return _unit(vector + QUESTION_NOISE * noise)


def _sample_offsets(rows: int) -> list[int]:
    return sorted({0, rows // 2, rows - 1})


def _samples(space, seed: int, owner: int, first: int, rows: int) -> list:
    """The query samples a build kept for ``owner`` (from the first block, as written)."""
    block = next(_blocks(rows))
    topics, vectors = _owner_vectors(space, seed, owner, block, rows)
    return [(first + offset, vectors[offset], topics[offset]) for offset in _sample_offsets(len(block))]


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)


def _chunk_words(vocabulary, seed: int, owner: int, block: range, topics: np.ndarray) -> np.ndarray:
    picks = np.random.default_rng([seed, owner, block.start, 1]).choice(100, size=(len(block), WORDS_PER_CHUNK), p=_zipf(100))
    return vocabulary[topics[:, None], picks]


def _chunk_rows(chunk_id: int, material: int, owner: int, words) -> list[list]:
    return [CHUNK_ROWS.row(chunk_id, owner, material, chunk_id, " ".join(words), len(words), len(words))]


def _posting_rows(chunk_id: int, material: int, owner: int, words) -> list[list]:
    values, counts = np.unique(words, return_counts=True)
    return [TERM_ROWS.row(chunk_id, material, owner, str(term), int(tf), len(words)) for term, tf in zip(values, counts, strict=True)]


def _word(number: int) -> str:
    """A letters-only synthetic word (digits would make the query look like an identifier)."""
    letters = ""
    number += 26 * 27
    while number:
        number, rest = divmod(number, 26)
        letters += chr(ord("a") + rest)
    return letters


def _zipf(size: int) -> np.ndarray:
    weights = 1 / np.arange(1, size + 1)
    return weights / weights.sum()


def json_dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False)
