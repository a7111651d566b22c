"""Writes of the knowledge app: materials, ingestion, embeddings."""
