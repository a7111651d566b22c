"""Gunicorn settings for `make run`: load the offline models in each worker before it serves."""

# No control socket (gunicornc): `make run` stops the server by signal, and the default place,
# $HOME/.gunicorn/gunicorn.ctl, is one for every gunicorn of an account (another Baeum's would be
# replaced) and none for the account it runs as when started as root (no home).
control_socket_disable = True


def post_worker_init(worker):
    from baeum.runtime.warmup import warm_up
    from core.providers import active_embedder, quality_embedder

    warm_up(active_embedder(), quality_embedder())
