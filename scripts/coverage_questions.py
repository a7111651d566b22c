"""'Does it also cover X?' asked of kept evaluation libraries: how many such questions are refused, in and out of scope.

    .venv/bin/python scripts/coverage_questions.py evaluation/coverage_tune.tsv --library s10-own-tune --library s11-dev-tune-use \
        [--without evidence:never-mentioned] [--show]

Each line of the file is ``book title <TAB> in|out <TAB> question`` (written by hand, in-scope subjects checked
against the book's text, before any run on them). Every question is asked as the first turn of a new
conversation over that book, in the libraries the evaluation commands keep (``eval_conversations --library
NAME`` makes them). Prints the refusals by label and how often ``evidence:never-mentioned`` fired.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(questions: Path, libraries: list[str], *, without: list[str] = (), show: bool = False, stream=sys.stdout) -> dict:
    """Ask every question of ``questions`` over the kept ``libraries``; print and return the refusals by label
    (``{"in": [asked, refused], "out": [...], "fired": n}``). Django must be set up."""
    from django.contrib.auth import get_user_model
    from django.utils.text import slugify

    from baeum import rules
    from chat.services.conversations import conversation_create, conversation_delete
    from chat.services.reply import chat_reply
    from knowledge.models import Material

    books = {}
    for library in libraries:
        user = get_user_model().objects.filter(email=f"eval-library-{slugify(library)}@baeum.invalid").first()
        if user is None:
            raise SystemExit(f"no kept library {library!r}: make it with eval_conversations --library {library}")
        for material in Material.objects.for_user(user).filter(status="READY"):
            books.setdefault(material.title, (user, material))
    counts = {"in": [0, 0], "out": [0, 0]}
    with rules.switched_off(list(without)), rules.counting() as fired:
        for number, line in enumerate(questions.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            title, label, question = line.split("\t")
            if title not in books or label not in counts:
                raise SystemExit(f"{questions}:{number}: unknown book {title!r} or label {label!r} (in|out)")
            user, material = books[title]
            conversation = conversation_create(owner=user, ref_ids=[material.ref_id])
            message = chat_reply(conversation=conversation, content=question)
            conversation_delete(conversation=conversation)
            counts[label][0] += 1
            counts[label][1] += message.refused
            if show:
                print(
                    label, "refused" if message.refused else "answered", question, "|", message.content.splitlines()[0][:120], file=stream
                )
    for label, (asked, refused) in counts.items():
        print(f"{label} scope: {refused} of {asked} refused", file=stream)
    print(f"evidence:never-mentioned fired {fired.get('evidence:never-mentioned', 0)} times", file=stream)
    return {**counts, "fired": fired.get("evidence:never-mentioned", 0)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--library", action="append", required=True, help="a kept evaluation library (repeatable)")
    parser.add_argument("--without", action="append", default=[], help="switch a named rule off (repeatable)")
    parser.add_argument("--show", action="store_true", help="print every answer's first line")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    sys.argv = [str(ROOT / "manage.py")]  # the settings start the embedded services for a management command
    import django

    django.setup()
    run(args.questions, args.library, without=args.without, show=args.show)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
