"""Gunicorn settings for `make run`: load the offline models in each worker before it serves."""


def post_worker_init(worker):
    from baeum.warmup import warm_up
    from core.providers import active_embedder, quality_embedder

    warm_up(active_embedder(), quality_embedder())
