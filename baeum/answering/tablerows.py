"""A figure asked for, answered from the table row the question names.

"How much total current assets did Nike have at the end of FY2019?" is answered by one line of the balance
sheet, "Total current assets 16,525 15,134", not by prose sentences that mention current assets elsewhere.
A row is named when every word of its label is a word of the question ("total current assets"); the most
specific such row of the best passages answers, shown under its table's column headings (the years), so
the learner reads which column is which. No Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from baeum import rules
from baeum.answering.answers import Passage
from baeum.language.analysis import content_terms
from baeum.language.questions import analyse_question

# Only the best passages are read for a row: the page the search ranked first is where the table is.
ROW_PASSAGES = 3

# A cell: an amount as statements print it ("$ 4,466", "(92)", "12.5%", "—" for nil).
_CELL = r"(?:\$\s*)?(?:\(?-?\d[\d,]*(?:\.\d+)?\)?%?|—|–)"
_ROW = re.compile(rf"^(?P<label>[^\d$]*?[A-Za-z가-힣][^\d$]*?)[\s:]*(?P<cells>{_CELL}(?:\s+{_CELL}){{0,7}})\s*$")
# "How much …", "how many …", "… amount", "얼마", "몇", or a question naming a period ("FY2018", "Q1", "2019"):
# a question that asks for a figure.
_ASKS_FIGURE = re.compile(
    r"\bhow\s+(?:much|many)\b|\b(?:amount|total)\b|\b(?:fy|q[1-4])\s*'?\d{2,4}\b|\b(?:19|20)\d\d\b|얼마|몇", re.IGNORECASE
)
# A label of one word names a row only when it is a long word the question asks about ("Goodwill", "Inventories").
SINGLE_WORD_LABEL_CHARS = 6


@dataclass(frozen=True)
class Row:
    passage: Passage
    line: str  # the row as the passage writes it: what the citation quotes
    shown: tuple[str, ...]  # the table's column headings (when found) and the row: the lines the answer shows


def _label_terms(label: str) -> frozenset:
    return frozenset(content_terms(label))


def named_row(question: str, passages: list[Passage]) -> Row | None:
    """The table row of the best passages whose label the question names most fully, or None."""
    if not _ASKS_FIGURE.search(question):  # most questions: no figure asked, nothing more to read
        return None
    ask = analyse_question(question).ask
    if not _ASKS_FIGURE.search(ask):
        return None
    asked = set(content_terms(ask))
    best: tuple[int, int, Row] | None = None
    for rank, passage in enumerate(passages[:ROW_PASSAGES]):
        lines = passage.text.split("\n")
        for index, line in enumerate(lines):
            match = _ROW.match(line.strip())
            if not match or _is_header(line.strip()):
                continue
            label = _label_terms(match.group("label"))
            if not label or not label <= asked:
                continue
            if len(label) == 1 and len(next(iter(label))) < SINGLE_WORD_LABEL_CHARS:
                continue
            key = (len(label), -rank)
            if best is None or key > best[:2]:
                best = (*key, Row(passage, line.strip(), tuple(_shown(lines, index, line.strip()))))
    return best[2] if best else None


# A year standing alone, not one end of a range ("% Change 2016-2015" heads a column of changes).
_YEAR_AT_END = re.compile(r"(?<![\w–-])(?:19|20)\d\d\s*$")
_A_YEAR = re.compile(r"(?<![\w–-])(?:19|20)\d\d(?![\w–-])")
_AMOUNT = re.compile(r"\$|\d,\d")


def _is_header(line: str) -> bool:
    """A table's column headings: a line that ends with a year and names two or more ("(Dollars in millions)
    2019 2018", "August 29, 2021 August 30, 2020", "2017 2018 2019"), with no amount in it."""
    return bool(_YEAR_AT_END.search(line)) and len(_A_YEAR.findall(line)) >= 2 and not _AMOUNT.search(line)


def _shown(lines: list[str], index: int, row: str) -> list[str]:
    """``row`` with its table's column headings above it (the nearest heading line before it), as the
    passage writes both."""
    header = next((line.strip() for line in reversed(lines[:index]) if _is_header(line.strip())), "")
    return [header, row] if header else [row]


TABLE_ROW = rules.register(
    rules.Rule(
        "answer:table-row",
        named_row,
        "How much total current assets did Nike have at the end of FY2019?",
        "a figure asked for is the table row the question names, under its table's column headings, not prose from elsewhere",
    )
)[0]
