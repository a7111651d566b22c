"""Retrieval at scale: a synthetic library in a throwaway schema, the production SQL against it.

The schema copies the knowledge tables (with their indexes, HNSW included) and is dropped at the end.
Vectors are clustered (topics + noise) and chunks draw their terms from topic vocabularies, so both
retrievers face realistic neighbours. Times exclude embedding the query, which is reported apart.
"""

import json
import secrets
import time

import numpy as np
from django.core.management.base import BaseCommand
from django.db import connection, transaction
from tqdm import tqdm

from baeum.metrics import percentile
from core.providers import active_embedder, embedder_for_model, quality_embedder
from knowledge.selectors import search

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

    def handle(self, *args, chunks, users, queries, k, seed, json: bool, **options):
        from pgvector.psycopg import register_vector

        rng = np.random.default_rng(seed)
        schema = f"bench_{secrets.token_hex(4)}"
        show = not json
        connection.ensure_connection()
        register_vector(connection.connection)
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE SCHEMA {schema}")
            try:
                for table in TABLES:
                    cursor.execute(
                        f"CREATE TABLE {schema}.{table} (LIKE public.{table} INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING INDEXES)"
                    )
                build_seconds, truth = self._build(cursor, schema, rng, chunks, users, show)
                cursor.execute(f"SET search_path TO {schema}, public")
                report = self._measure(rng, truth, users, queries, k, show)
            finally:
                cursor.execute("SET search_path TO public")
                cursor.execute(f"DROP SCHEMA {schema} CASCADE")
        report.update({"chunks": chunks, "users": users, "queries": queries, "k": k, "build_seconds": round(build_seconds, 1)})
        report["query_embedding_ms"] = self._embedding_latency(active_embedder())
        if quality_embedder() is not None:  # what a query costs once the library is upgraded
            report["quality_query_embedding_ms"] = self._embedding_latency(quality_embedder())
        self.stdout.write(
            json_dumps(report)
            if json
            else "\n".join(json_dumps(mode) for mode in report["modes"])
            + "\n"
            + json_dumps({key: value for key, value in report.items() if key != "modes"})
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
        with cursor.copy(
            f"COPY {schema}.knowledge_chunkembedding (id, chunk_id, material_id, owner_id, model, dimension, embedding) FROM STDIN WITH (FORMAT BINARY)"
        ) as copy:
            copy.set_types(["bigint", "bigint", "bigint", "bigint", "varchar", "integer", "vector"])
            for owner in tqdm(range(1, users + 1), desc="Vectors", disable=not show, unit="user"):
                owner_topics = rng.choice(topics, size=5, replace=False)
                ids = []
                for index in range(per_user):
                    chunk_id += 1
                    topic = owner_topics[index % 5]
                    vector = centers[topic] + 0.6 * rng.normal(size=DIMENSION).astype(np.float32)
                    vector /= np.linalg.norm(vector)
                    copy.write_row([chunk_id, chunk_id, owner * 10 + index % 2, owner, MODEL, DIMENSION, vector])
                    words = rng.choice(vocabulary[topic], size=60, p=_zipf(100))
                    truth["terms"][chunk_id] = (owner, owner * 10 + index % 2, words)
                    ids.append(chunk_id)
                    if len(truth["vectors"]) < 5000 or index == 0:
                        truth["vectors"][chunk_id] = vector
                truth["owner_chunks"][owner] = ids
        with cursor.copy(
            f"COPY {schema}.knowledge_chunk (id, owner_id, material_id, chunk_index, page_number, page_end, type, content, token_count, overlap_chars, section_title, section_level, content_hash, term_count) FROM STDIN"
        ) as copy:
            for cid, (owner, material, words) in tqdm(truth["terms"].items(), desc="Chunks", disable=not show, unit="chunk"):
                copy.write_row([cid, owner, material, cid, 1, 1, "material", " ".join(words), 60, 0, "", 0, "h", len(words)])
        with cursor.copy(f"COPY {schema}.knowledge_chunkterm (chunk_id, material_id, owner_id, term, tf, doc_length) FROM STDIN") as copy:
            for cid, (owner, material, words) in tqdm(truth["terms"].items(), desc="Postings", disable=not show, unit="chunk"):
                values, counts = np.unique(words, return_counts=True)
                for term, tf in zip(values, counts, strict=True):
                    copy.write_row([cid, material, owner, str(term), int(tf), len(words)])
        cursor.execute(f"ANALYZE {schema}.knowledge_chunkembedding")
        cursor.execute(f"ANALYZE {schema}.knowledge_chunkterm")
        cursor.execute(f"ANALYZE {schema}.knowledge_chunk")
        return time.perf_counter() - started, truth

    def _measure(self, rng, truth, users, queries, k, show):
        modes = {"semantic": [], "lexical": [], "hybrid": []}
        recalls = []
        embedder = embedder_for_model(MODEL)  # the synthetic vectors stand in for this model's
        for _ in tqdm(range(queries), desc="Queries", disable=not show, unit="query"):
            owner = int(rng.integers(1, users + 1))
            target = truth["owner_chunks"][owner][0]
            materials = [owner * 10, owner * 10 + 1]
            query_vector = truth["vectors"][target] + 0.3 * rng.normal(size=DIMENSION).astype(np.float32)
            query_vector /= np.linalg.norm(query_vector)
            query_terms = list(rng.choice(truth["terms"][target][2], size=5))
            scope = search._Scope(owner_id=owner, material_ids=materials, by_model={(MODEL, DIMENSION): materials})

            began = time.perf_counter()
            approximate = search._vector_search(
                owner_id=owner, model=MODEL, dimension=DIMENSION, material_ids=materials, query_vector=query_vector, k=k
            )
            modes["semantic"].append((time.perf_counter() - began) * 1000)

            began = time.perf_counter()
            search._lexical_candidates(scope, " ".join(query_terms), k)
            modes["lexical"].append((time.perf_counter() - began) * 1000)

            began = time.perf_counter()
            vector_wide = search.VectorScores(
                embedder=embedder,
                similarity=dict(
                    search._vector_search(
                        owner_id=owner,
                        model=MODEL,
                        dimension=DIMENSION,
                        material_ids=materials,
                        query_vector=query_vector,
                        k=search.CANDIDATES,
                    )
                ),
            )
            lexical_wide = search._lexical_candidates(scope, " ".join(query_terms), search.CANDIDATES)
            search.fuse([vector_wide], lexical_wide, alpha=search.hybrid_alpha())[:k]
            modes["hybrid"].append((time.perf_counter() - began) * 1000)

            exact = self._exact(owner, materials, query_vector, k)
            recalls.append(len({chunk for chunk, _ in approximate} & set(exact)) / max(1, len(exact)))
        result = []
        for mode, latencies in modes.items():
            entry = {"mode": mode, "p50_ms": round(percentile(latencies, 0.5), 2), "p95_ms": round(percentile(latencies, 0.95), 2)}
            if mode in ("semantic", "hybrid"):
                entry["recall_vs_exact"] = round(float(np.mean(recalls)), 4)
            result.append(entry)
        return {"modes": result}

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
