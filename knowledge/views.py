import re

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from baeum.extraction.lines import looks_like_code
from baeum.language.analysis import content_terms
from baeum.language.text import sentence_spans

from . import selectors
from .failure_reasons import reason_patterns_translated
from .services.page_images import PageImageBusy, PageImageThrottled, PageImageUnavailable, material_has_page_images, material_page_image

SEARCH_RESULTS = 10  # one screen of passages, each on its own page; the API gives up to 50
SNIPPET_CHARS = 280  # about three lines in the results list
QUOTE_WORDS = 12  # the start of a passage, highlighted on its page when a result is opened
PAGE_IMAGE_MAX_AGE = 24 * 3600  # a page's picture never changes; private: only its owner's browser keeps it


def _snippet_start(text: str, query: str) -> int:
    """Where a result's snippet begins: the sentence sharing most of the query's terms, prose before code; in
    a sentence that reads as code (a flattened listing, "1 unsigned invert endian ( unsigned x ) 2 {", often
    with the prose after it) at the query's first word. The start when no sentence shares a term."""
    asked = set(content_terms(query))
    best, start = (0, False), 0
    for first, last in sentence_spans(text):
        sentence = text[first:last]
        shared = len(asked & set(content_terms(sentence)))
        prose = not looks_like_code(sentence)
        if shared and (shared, prose) > best:
            best, start = (shared, prose), first
            if not prose:
                found = [re.search(rf"\b{re.escape(word)}\b", sentence, re.IGNORECASE) for word in query.split() if len(word) > 1]
                start += min((match.start() for match in found if match), default=0)
    return start


def _search_results(*, user, query: str) -> list[dict]:
    """The best passages of the learner's materials for ``query`` (hybrid search, the best of each page),
    with where they are."""
    results = []
    for hit in selectors.retrieve(user=user, scope=selectors.Scope.library(), query=query, k=SEARCH_RESULTS, per_page=True):
        chunk = hit.chunk
        start = chunk.overlap_chars + _snippet_start(chunk.content[chunk.overlap_chars :], query)
        own = " ".join(chunk.content[start:].split())
        first, last = chunk.pages_between(start, len(chunk.content))  # from the snippet's page: its quote is there
        results.append(
            {
                "ref_id": chunk.material.ref_id,
                "title": chunk.material.title,
                "section": chunk.section_title,
                "first": first,
                "last": last,
                "snippet": own[:SNIPPET_CHARS] + ("…" if len(own) > SNIPPET_CHARS else ""),
                "quote": " ".join(own.split()[:QUOTE_WORDS]),
                # Found by its words, or only by meaning (the query's words are on no page: "apropos" after the
                # manual that has it was deleted; a Korean word over an English book).
                "by_words": bool(hit.lexical_score),
            }
        )
    # The numbers the book prints, as the tutor's citations and the viewer show them (the link keeps the position).
    labels = selectors.page_labels(
        user=user, pages=[(result["ref_id"], number) for result in results for number in (result["first"], result["last"])]
    )
    for result in results:
        result["first_shown"] = labels.get((result["ref_id"], result["first"]), result["first"])
        result["last_shown"] = labels.get((result["ref_id"], result["last"]), result["last"])
    return results


@login_required
def library(request):
    query = request.GET.get("q", "").strip()[:200]
    context = {
        "materials": selectors.material_list(user=request.user),
        "course_materials": list(selectors.member_material_list(user=request.user)),
        "query": query,
        "results": (results := _search_results(user=request.user, query=query) if query else None),
        "only_by_meaning": bool(results) and not any(result["by_words"] for result in results),
        "reason_patterns": reason_patterns_translated(),
        "nav": "library",
    }
    return render(request, "knowledge/library.html", context)


@login_required
@require_GET
def library_rows(request):
    """The library table's rows alone: what the page polls while materials are being processed."""
    return render(request, "knowledge/_material_rows.html", {"materials": selectors.material_list(user=request.user)})


@login_required
def material_detail(request, ref_id: str):
    material = selectors.read_material(user=request.user, ref_id=ref_id)
    try:
        number = max(1, int(request.GET.get("page", 1)))
    except ValueError:
        number = 1
    number = min(number, max(1, material.page_count))
    pages = selectors.material_pages(user=request.user, ref_id=ref_id, first=number, last=number)
    has_images = material_has_page_images(material) and material.page_count > 0
    view = request.GET.get("view", "")
    context = {
        "material": material,
        "page": pages[0] if pages else None,
        "page_text": pages[0].text if pages else "",
        "line_kinds": pages[0].line_kinds if pages else [],
        "number": number,
        "pager": Paginator(range(material.page_count or 1), 1).get_page(number),
        "quote": request.GET.get("quote", ""),
        "find": request.GET.get("find", ""),
        "has_images": has_images,
        "view": view if has_images and view in ("text", "image", "both") else ("both" if has_images else "text"),
        "nav": "library",
    }
    return render(request, "knowledge/material_detail.html", context)


@login_required
@require_GET
def material_page_image_view(request, ref_id: str, number: int):
    """The picture of one original page (WebP), drawn on first view; only its owner can see it."""
    material = selectors.read_material(user=request.user, ref_id=ref_id)
    try:
        path = material_page_image(material=material, number=number)
    except PageImageUnavailable as error:
        raise Http404("This page has no picture.") from error
    except PageImageBusy as busy:  # another picture is being drawn: the viewer asks again after Retry-After
        status = 429 if isinstance(busy, PageImageThrottled) else 503
        response = HttpResponse("This page's picture is not ready yet; try again in a moment.", status=status, content_type="text/plain")
        response["Retry-After"] = str(busy.retry_after)
        return response
    response = FileResponse(path.open("rb"), content_type="image/webp")
    response["Cache-Control"] = f"private, max-age={PAGE_IMAGE_MAX_AGE}"
    return response
