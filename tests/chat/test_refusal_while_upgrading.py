"""A refusal across languages says when a material's better search is still being made in the background
(walkthrough 21: English questions over a Korean book, refused minutes after upload, answered once it was done)."""

import pytest

from knowledge.models import Material

pytestmark = pytest.mark.django_db


def _ask(user, question: str):
    from chat.services.conversations import conversation_create
    from chat.services.reply import chat_reply

    return chat_reply(conversation=conversation_create(owner=user, ref_ids=[]), content=question)


def test_a_korean_question_refused_over_an_english_book_being_upgraded_says_to_ask_again(user, book):
    Material.objects.unscoped().filter(pk=book.pk).update(pending_embedding_model="e5", reembed_done=30, reembed_total=120)
    message = _ask(user, "광합성은 어떻게 일어나나요?")
    assert message.refused
    assert "“PC Assembly” (25%)의 검색 품질을 높이는 작업이 끝나면" in message.content
    assert "몇 분 뒤에 다시 물어보세요" in message.content
    # Queued, no worker yet: no "(0%)" (walkthrough 26), the note still says to ask again.
    Material.objects.unscoped().filter(pk=book.pk).update(reembed_done=0, reembed_total=0)
    queued = _ask(user, "광합성은 어떻게 일어나나요?")
    assert "“PC Assembly”의 검색 품질을 높이는 작업이 끝나면" in queued.content and "%)" not in queued.content


def test_no_such_note_once_upgraded_nor_for_a_question_in_the_materials_language(user, book):
    korean = _ask(user, "광합성은 어떻게 일어나나요?")
    assert korean.refused and "검색 품질" not in korean.content  # nothing pending: a plain refusal
    Material.objects.unscoped().filter(pk=book.pk).update(pending_embedding_model="e5", reembed_done=0, reembed_total=0)
    english = _ask(user, "How does photosynthesis work?")
    assert english.refused and "improving search" not in english.content  # same language: the upgrade changes little
