"""Application code shared by the apps: the API's error format and pagination, and the factories of the
configured LLM and embedders. It imports no app (``accounts``, ``knowledge``, ``plans``, ``chat``) and
nothing from ``config`` (the wiring: settings, URLs, Celery, gunicorn), so every package can import it."""
