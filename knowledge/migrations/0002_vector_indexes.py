"""Partial HNSW cosine indexes, one per embedding model, over an undimensioned vector column.

The column holds vectors of several models (each row names its model and dimension), so each index
casts to its model's dimension and covers only that model's rows; a search filters on the model and
uses the same cast, which lets the planner use the index. Owner filtering happens in the same query,
served by pgvector's iterative index scans (enabled per query) or, for small owners, by the
(owner, model) b-tree with an exact sort.
"""

from django.db import migrations

INDEXED_MODELS = {
    "use-multilingual-v3": 512,
    "multilingual-e5-small": 384,
    "gemini-embedding-001": 768,
}


def index_name(model: str) -> str:
    return "chunkemb_hnsw_" + model.replace("-", "_").replace(".", "_")[:40]


def forwards_sql() -> list[str]:
    return [
        f"CREATE INDEX IF NOT EXISTS {index_name(model)} ON knowledge_chunkembedding "
        f"USING hnsw ((embedding::vector({dimension})) vector_cosine_ops) "
        f"WITH (m = 16, ef_construction = 64) WHERE model = '{model}'"
        for model, dimension in INDEXED_MODELS.items()
    ]


class Migration(migrations.Migration):
    dependencies = [("knowledge", "0001_initial")]

    operations = [
        migrations.RunSQL(
            sql=forwards_sql(),
            reverse_sql=[f"DROP INDEX IF EXISTS {index_name(model)}" for model in INDEXED_MODELS],
        )
    ]
