"""Runtime: the embedded PostgreSQL and Redis a fresh machine runs on, and loading the models before a
process serves. No Django imports.

Only entry points import it (settings, ``scripts/run.py``, health checks, commands): nothing in the
other stages does.
"""
