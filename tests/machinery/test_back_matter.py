"""The tutor reads a book's body before its back matter (``passage:back-matter``)."""

from baeum import rules
from baeum.answering.answers import BACK_MATTER, Passage, body_first


def _passage(n: int, matter: str = "") -> Passage:
    return Passage(n=n, chunk_id=n, ref_id="book", title="Book", chunk_index=n, page_number=n, text=f"passage {n}", matter=matter)


def test_the_rule_fires_on_its_own_example():
    assert BACK_MATTER(BACK_MATTER.example)


def test_back_matter_comes_after_every_body_passage_and_drops_out_past_k():
    found = [_passage(1, "back"), _passage(2), _passage(3, "back"), _passage(4), _passage(5, "front"), _passage(6)]
    with rules.counting() as fired:
        kept = body_first(found, "What are the principles the compendium says it follows?", k=4)
    assert [passage.chunk_id for passage in kept] == [2, 4, 5, 6]  # front matter is not set aside
    assert fired == {"passage:back-matter": 2}


def test_back_matter_is_read_when_the_body_has_too_little():
    found = [_passage(1, "back"), _passage(2), _passage(3, "back")]
    assert [passage.chunk_id for passage in body_first(found, "What is a heap?", k=3)] == [2, 1, 3]


def test_a_question_about_the_back_matter_reads_it_where_it_ranks():
    found = [_passage(1, "back"), _passage(2), _passage(3)]
    for question in (
        "Which references does the book list on licences?",
        "참고문헌에 어떤 책이 있어?",
        "Where is the index entry for heaps?",
    ):
        assert [passage.chunk_id for passage in body_first(found, question, k=2)] == [1, 2], question


def test_switched_off_the_ranking_stands():
    found = [_passage(1, "back"), _passage(2), _passage(3)]
    with rules.switched_off(["passage:back-matter"]):
        assert [passage.chunk_id for passage in body_first(found, "What is a heap?", k=2)] == [1, 2]
