"""Baeum's machinery without Django, in packages by stage; each package says what it holds.

    language ← extraction ← retrieval ← answering ← study        runtime (entry points only)

``errors`` (the one error base every stage raises), ``rules`` (named heuristics that count their firings and
can be switched off), ``observers`` (what the answer path decides, reported to whoever watches: fitting and
measuring) and ``metrics`` (evaluation arithmetic) are shared by all.
"""
