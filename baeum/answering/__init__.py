"""Answering: from retrieved passages to a cited answer, or a refusal. No Django imports.

``answers`` (passages, citations, answers, refusals) → ``evidence`` (is there enough to answer?) →
``extractive`` (the offline answer, built from ``sentences``, ``quoting``, ``forms`` and
``crosslingual``) → ``groundcheck`` (every claim cited and supported, whoever wrote it) → ``budgets``
(what fits a prompt); ``prompts`` and ``llm`` phrase an answer when a model is configured. An LLM may
phrase; only ``groundcheck`` decides whether an answer is grounded. Imports ``language``, ``extraction``
and ``retrieval``.
"""
