"""Measure what a study plan asks of a learner, on real books.

    python manage.py eval_study ../shared/samples/text/thinkpython2.pdf ../shared/samples/text/pcasm-book-english.pdf \
        ../shared/samples/text/pcasm-book-korean.pdf [--minutes 25] [--json] [--show 5]

Each book is ingested for a throwaway user through the real pipeline and a plan is generated offline.
Reported per book:

- ``front_matter_starts``: sessions whose first page is front matter (title, contents, preface): goal 0;
- ``cloze_domain``: share of cloze / choice answers that are domain terms — in the book's own back-of-book
  index (parsed from its back-matter pages: used to measure, never to generate), a heading, or a term the
  book defines (goal ≥ 0.90); ``cloze_in_index`` alone for reference;
- ``objectives_grounded``: share of objectives that contain a heading phrase or a defined term;
- ``quotes_on_page``: share of key points and questions whose quote is on its cited page (goal 1.0);
- ``minutes_within_30pct``: share of sessions within ±30 % of the chosen minutes, with the min and max;
  ``minutes_total``, all sessions' minutes, and ``optional_modules``, what the plan lists as optional reading (front
  and back matter, a release history);
- ``key_points_standing_alone`` (goal ≥ 0.95), ``questions_answerable`` (goal ≥ 0.90), ``choices_containing_answer``
  (goal 0) and ``objectives_matched`` (an objective names a term its session's key points or questions teach;
  goal ≥ 0.90), judged by ``baeum.study.checks`` and, knowing the book, here: a key point on a front- or back-matter
  page, a blank whose answer stands on most body pages (``EVERYWHERE``: "CRC" in a CRC paper) (written apart from the generator's filters), each failure
  counted by what is wrong (``problems``) with up to ``--show`` examples (``failures``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from baeum.language.text import HEADING_NUMBER, is_hangul_heavy
from baeum.study import checks
from baeum.study.definitions import find_definitions
from baeum.study.grading import normalise
from baeum.study.quiz import CHOICE, CLOZE, heading_terms
from knowledge.evaluation import rules_option, rules_run, throwaway_documents
from knowledge.models import Chunk, MaterialPage
from plans.models import Plan
from plans.services.plans import plan_create, plan_generate
from plans.services.session_content import session_content

# An index line: "calling convention, 61–68, 73" or "호출 규약 . . . . 61–68" (term, then page numbers).
_INDEX_LINE = re.compile(r"^\s*(?P<term>[^\d\s.,][^.…]*?)\s*(?:[.…\s]{3,}|,\s*)(?P<pages>\d[\d,–\-\s]*)\s*$")


def index_terms(pages: list[str]) -> set[str]:
    """Normalised terms of a back-of-book index (its sub-entries too)."""
    terms = set()
    for text in pages:
        lines = text.splitlines()
        if sum(bool(_INDEX_LINE.match(line)) for line in lines) < max(5, len(lines) // 3):
            continue  # not an index page
        for line in lines:
            match = _INDEX_LINE.match(line)
            if match:
                term = match.group("term").strip(" ,")
                terms.add(normalise(term))
                terms.update(normalise(part) for part in term.split(",") if part.strip())
    terms.discard("")
    return terms


# A share of body pages above which a term is the book's subject, not something a session teaches.
EVERYWHERE = 0.5


def _quote_on_page(quote: str, page_text: str) -> bool:
    squeeze = lambda text: re.sub(r"\s+", "", text)  # noqa: E731 - page text and chunk text differ in spacing only
    return squeeze(quote)[:200] in squeeze(page_text)


class Command(BaseCommand):
    help = (
        "Measure plans on real books: front matter, domain-term cloze answers, grounded objectives, quotes on their page, session lengths."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="*", type=Path)
        parser.add_argument(
            "--judged",
            type=Path,
            action="append",
            default=[],
            metavar="FILE",
            help="instead of books: a reader's verdicts (JSON lines with kind, text, answer, choices, verdict ok|partial|fail); "
            "print how often the judge agrees with the reader",
        )
        parser.add_argument("--minutes", type=int, default=25)
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--show", type=int, default=0, help="print this many questions of each kind per book")
        parser.add_argument(
            "--dump",
            type=Path,
            help="write every key point, question and objective shown (no verdict) as JSON lines, for a reader to label",
        )
        rules_option(parser)

    def handle(self, *args, **options):
        if options["judged"]:
            return self._agreement(options["judged"], options)
        if not options["paths"]:
            raise CommandError("Name at least one book, or a reader's verdicts with --judged FILE.")
        missing = [str(path) for path in options["paths"] if not path.exists()]
        if missing:
            raise CommandError(f"No such file: {', '.join(missing)}")
        results = []
        self.dumped: list[dict] = []
        # rules_run first: a rule of reading (``chunk:*``) is off while the books are read.
        with rules_run(options["without"]) as fired, throwaway_documents(options["paths"], stream=self.stderr) as (user, materials):
            for name, material in materials.items():
                results.append(self._measure(user, name, material, options))
        if options["dump"]:
            options["dump"].write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in self.dumped), encoding="utf-8")
        rules_report = {"rules_off": sorted(options["without"]), "rules_fired": dict(sorted(fired.items()))}
        if options["json"]:
            self.stdout.write(json.dumps({"books": results, **rules_report}, ensure_ascii=False, indent=2))
            return
        for result in results:
            self.stdout.write(
                f"{result['book']}: sessions={result['sessions']} front_matter_starts={result['front_matter_starts']} "
                f"questions={result['questions']} kinds={result['kinds']} cloze_domain={result['cloze_domain']} "
                f"cloze_in_index={result['cloze_in_index']} objectives_grounded={result['objectives_grounded']} "
                f"quotes_on_page={result['quotes_on_page']} minutes_within_30pct={result['minutes_within_30pct']} "
                f"minutes={result['minutes_range']} minutes_total={result['minutes_total']} "
                f"optional={result['optional_modules']} key_points_standing_alone={result['key_points_standing_alone']} "
                f"questions_answerable={result['questions_answerable']} choices_containing_answer={result['choices_containing_answer']} "
                f"objectives_matched={result['objectives_matched']} problems={result['problems']}"
            )
            for line in result["failures"]:
                self.stdout.write(f"  {line}")
        fired = ", ".join(f"{name} {count}" for name, count in rules_report["rules_fired"].items()) or "none"
        self.stdout.write(f"rules fired: {fired}; switched off: {', '.join(rules_report['rules_off']) or 'none'}")

    def _measure(self, user, name: str, material, options) -> dict:
        minutes = options["minutes"]
        plan = plan_create(owner=user, title=name, ref_ids=[material.ref_id], minutes_per_session=minutes, enqueue=False)
        plan_generate(plan_id=plan.pk)
        plan = Plan.objects.for_user(user).get(pk=plan.pk)
        pages = {page.number: page for page in MaterialPage.objects.for_user(user).filter(material=material)}
        index = index_terms([page.text for page in pages.values() if page.matter == "back"])
        chunks = Chunk.objects.for_user(user).filter(material=material)
        headings = {normalise(term) for title in chunks.values_list("section_title", flat=True).distinct() for term in heading_terms(title)}
        headings |= {normalise(HEADING_NUMBER.sub("", title)) for title in chunks.values_list("section_title", flat=True).distinct()}
        defined = set()
        for definition in find_definitions("\n".join(page.text for page in pages.values())):
            defined |= {normalise(definition.term), *(normalise(alias) for alias in definition.aliases)}
        sessions = list(plan.sessions.all())
        front = sum(
            1 for session in sessions if pages.get(session.ranges[0]["pages"][0]) and pages[session.ranges[0]["pages"][0]].matter == "front"
        )
        kinds: dict[str, int] = {}
        cloze_answers, quotes, shown = [], [], {}
        objectives = []
        standing, answerable, matched, choices_with_answer = [], [], [], 0
        problems: dict[str, int] = {}
        failures: list[str] = []

        def failed(problem: str, example: str) -> None:
            problems[problem] = problems.get(problem, 0) + 1
            if sum(1 for line in failures if line.startswith(f"[{problem}]")) < options["show"]:
                failures.append(f"[{problem}] {example}")

        body = [said_page for page in pages.values() if not page.matter for said_page in [checks.said(page.text)]]

        def everywhere(answer: str) -> bool:
            """A blank whose answer is on most of the book's body pages is the book's subject ("CRC" in a CRC paper):
            anyone answers it without having read the session."""
            key = checks.said(answer)
            return bool(key) and len(body) >= 4 and sum(key in text for text in body) > EVERYWHERE * len(body)

        for session in sessions:
            content = session_content(user=user, plan=plan, session=session)
            seen: set[str] = set()
            for point in content.key_points:
                self.dumped.append(
                    {
                        "book": name,
                        "session": session.number,
                        "kind": "key_point",
                        "text": point["text"],
                        "section": point.get("section", ""),
                        "page": point.get("pageLabel") or point["pageNumber"],
                    }
                )
                problem = checks.key_point_problem(point["text"], seen)
                matter = pages[point["pageNumber"]].matter if point["pageNumber"] in pages else ""
                if problem is None and matter:
                    problem = f"{matter}-matter"  # a preface, a licence, a bibliography: not what a session teaches
                seen.add(checks.said(point["text"]))
                standing.append(problem is None)
                if problem:
                    failed(problem, f"session {session.number}: {point['text'][:160]}")
            for question in content.questions:
                self.dumped.append(
                    {
                        "book": name,
                        "session": session.number,
                        "kind": question["kind"],
                        "section": question.get("section", ""),
                        "text": question["question"],
                        "answer": question["answer"],
                        "choices": question.get("choices"),
                        "quote": question["citation"]["quote"],
                        "page": question["citation"].get("pageLabel") or question["citation"]["pageNumber"],
                    }
                )
                problem = checks.question_problem(question["kind"], question["question"], question["answer"], question.get("choices"))
                if problem is None and question["kind"] in (CLOZE, CHOICE) and everywhere(question["answer"]):
                    problem = "answer-everywhere"
                answerable.append(problem is None)
                choices_with_answer += problem == "choice-contains-answer"
                if problem:
                    failed(problem, f"session {session.number}: {question['question'][:160]} → {question['answer']}")
            taught = [point["text"] for point in content.key_points] + [
                f"{question['question']} {question['answer']}" for question in content.questions
            ]
            for objective in session.objectives:
                self.dumped.append({"book": name, "session": session.number, "kind": "objective", "text": objective})
                matched.append(checks.objective_matched(objective, taught))
                if not matched[-1]:
                    failed("objective-unmatched", f"session {session.number}: {objective}")
            for question in content.questions:
                kinds[question["kind"]] = kinds.get(question["kind"], 0) + 1
                if question["kind"] in (CLOZE, CHOICE):
                    cloze_answers.append(question["answer"])
                citation = question["citation"]
                quotes.append(
                    _quote_on_page(citation["quote"], pages[citation["pageNumber"]].text if citation["pageNumber"] in pages else "")
                )
                if not quotes[-1]:
                    failed("quote-off-page", f"session {session.number}: {citation['quote'][:120]} (p.{citation['pageNumber']})")
                if len(shown.setdefault(question["kind"], [])) < options["show"]:
                    shown[question["kind"]].append(
                        f"  [{question['kind']}] {question['question']} → {question['answer']} (p.{citation['pageNumber']})"
                    )
            for point in content.key_points:
                if point["pageNumber"] in pages:
                    quotes.append(_quote_on_page(point["text"], pages[point["pageNumber"]].text))
                    if not quotes[-1]:
                        failed("quote-off-page", f"session {session.number}: {point['text'][:120]} (p.{point['pageNumber']})")
            objectives += session.objectives
        terms_all = index | headings | defined
        in_domain = [self._known(answer, terms_all) for answer in cloze_answers]
        in_index = [self._known(answer, index) for answer in cloze_answers]
        grounded = [any(self._known_inside(objective, terms) for terms in (headings, defined)) for objective in objectives]
        lengths = [session.estimated_minutes for session in sessions]
        for objective, ok in list(zip(objectives, grounded, strict=True)):
            if not ok and options["show"]:
                self.stderr.write(f"  [objective without a heading or defined term] {objective}")
        for lines in shown.values():
            for line in lines:
                self.stderr.write(line)
        return {
            "book": name,
            "sessions": len(sessions),
            "front_matter_starts": front,
            "questions": sum(kinds.values()),
            "kinds": kinds,
            "index_terms": len(index),
            "cloze_domain": _share(in_domain),
            "cloze_in_index": _share(in_index),
            "objectives_grounded": _share(grounded),
            "quotes_on_page": _share(quotes),
            "minutes_within_30pct": _share([abs(length - minutes) <= 0.3 * minutes for length in lengths]),
            "minutes_range": [min(lengths, default=0), max(lengths, default=0)],
            "minutes_total": sum(lengths),
            "optional_modules": [module.title for module in plan.modules.order_by("position") if module.optional],
            "key_points_standing_alone": _share(standing),
            "questions_answerable": _share(answerable),
            "choices_containing_answer": choices_with_answer,
            "objectives_matched": _share(matched),
            "problems": dict(sorted(problems.items())),
            "failures": failures,
        }

    def _agreement(self, paths: list[Path], options) -> None:
        """The judge against a reader: for key points, questions and objectives, the share the reader passed and the
        share the judge passed, and the rows where they disagree (up to ``--show`` of each way)."""
        report = {}
        for path in paths:
            if not path.exists():
                raise CommandError(f"No such file: {path}")
            rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
            seen: dict[tuple, set[str]] = {}
            for number, row in enumerate(rows, 1):
                if row.get("verdict") not in ("ok", "partial", "fail") or not row.get("kind") or "text" not in row:
                    raise CommandError(f"{path}, line {number}: needs kind, text and a verdict of ok, partial or fail.")
                group = "key_points" if row["kind"] == "key_point" else "objectives" if row["kind"] == "objective" else "questions"
                if group == "key_points":
                    session_seen = seen.setdefault((row.get("book") or row.get("walk"), row.get("session")), set())
                    problem = checks.key_point_problem(row["text"], session_seen)
                    session_seen.add(checks.said(row["text"]))
                elif group == "questions":
                    problem = checks.question_problem(row["kind"], row["text"], row.get("answer", ""), row.get("choices"))
                else:
                    continue  # an objective is judged against its session's content, which a verdicts file does not hold
                tally = report.setdefault(
                    group,
                    {
                        "rows": 0,
                        "reader_ok": 0,
                        "judge_ok": 0,
                        "agree": 0,
                        "judge_passed_reader_failed": [],
                        "judge_failed_reader_passed": [],
                    },
                )
                reader_ok, judge_ok = row["verdict"] == "ok", problem is None
                tally["rows"] += 1
                tally["reader_ok"] += reader_ok
                tally["judge_ok"] += judge_ok
                tally["agree"] += reader_ok == judge_ok
                if reader_ok != judge_ok:
                    side = "judge_passed_reader_failed" if judge_ok else "judge_failed_reader_passed"
                    tally[side].append(f"{row['text'][:140]} (reader: {row.get('why', row['verdict'])[:60]}; judge: {problem or 'ok'})")
        for group, tally in report.items():
            missed, strict = tally.pop("judge_passed_reader_failed"), tally.pop("judge_failed_reader_passed")
            self.stdout.write(
                f"{group}: rows={tally['rows']} reader_ok={round(tally['reader_ok'] / tally['rows'], 3)} "
                f"judge_ok={round(tally['judge_ok'] / tally['rows'], 3)} "
                f"agreement={round(tally['agree'] / tally['rows'], 3)} "
                f"judge_passed_reader_failed={len(missed)} judge_failed_reader_passed={len(strict)}"
            )
            for line in missed[: options["show"]]:
                self.stdout.write(f"  [passed, reader failed] {line}")
            for line in strict[: options["show"]]:
                self.stdout.write(f"  [failed, reader passed] {line}")

    @staticmethod
    def _known(answer: str, terms: set[str]) -> bool:
        key = normalise(answer)
        return bool(key) and (key in terms or any(key == term or (len(key) >= 4 and key in term.split()) for term in terms))

    @staticmethod
    def _known_inside(text: str, terms: set[str]) -> bool:
        squeezed = normalise(text)
        return any((len(term) >= 3 or is_hangul_heavy(term) and len(term) >= 2) and term in squeezed for term in terms)


def _share(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 3) if flags else None
