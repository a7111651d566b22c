"""Make an answer-evaluation split from a public retrieval set: half the articles (by title) stay in
the corpus, and the questions about the other half become out-of-scope questions.

    python scripts/eval_split.py ../shared/eval/korquad_public_corpus.jsonl ../shared/eval/korquad_public_queries.jsonl OUT_DIR

writes OUT_DIR/corpus.jsonl, OUT_DIR/queries.jsonl and OUT_DIR/out_of_scope.jsonl (deterministic).
"""

import json
import sys
from pathlib import Path


def main(corpus_path: str, queries_path: str, out_dir: str) -> None:
    corpus = [json.loads(line) for line in Path(corpus_path).read_text(encoding="utf-8").splitlines() if line.strip()]
    queries = [json.loads(line) for line in Path(queries_path).read_text(encoding="utf-8").splitlines() if line.strip()]
    titles = sorted({row.get("title", row["doc_id"]) for row in corpus})
    kept_titles = set(titles[::2])
    kept_docs = {row["doc_id"] for row in corpus if row.get("title", row["doc_id"]) in kept_titles}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    def write(name: str, rows: list[dict]) -> None:
        (out / name).write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")

    # Each question carries its article's title: the lock box (evaluation/lockbox.json) splits by title.
    title_of = {row["doc_id"]: row.get("title", row["doc_id"]) for row in corpus}
    queries = [{**row, "title": title_of.get(row["doc_id"], row["doc_id"])} for row in queries]
    write("corpus.jsonl", [row for row in corpus if row["doc_id"] in kept_docs])
    write("queries.jsonl", [row for row in queries if row["doc_id"] in kept_docs])
    write("out_of_scope.jsonl", [row for row in queries if row["doc_id"] not in kept_docs])
    print(
        f"{len(kept_docs)} passages kept, {sum(row['doc_id'] in kept_docs for row in queries)} in-scope and "
        f"{sum(row['doc_id'] not in kept_docs for row in queries)} out-of-scope questions in {out}"
    )


if __name__ == "__main__":
    main(*sys.argv[1:4])
