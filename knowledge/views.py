from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import render

from . import selectors


@login_required
def library(request):
    materials = selectors.material_list(user=request.user)
    return render(request, "knowledge/library.html", {"materials": materials, "nav": "library"})


@login_required
def material_detail(request, ref_id: str):
    material = selectors.access_material(user=request.user, ref_id=ref_id)
    try:
        number = max(1, int(request.GET.get("page", 1)))
    except ValueError:
        number = 1
    pages = selectors.material_pages(user=request.user, ref_id=ref_id, first=number, last=number)
    context = {
        "material": material,
        "page": pages[0] if pages else None,
        "number": number,
        "pager": Paginator(range(material.page_count or 1), 1).get_page(number),
        "quote": request.GET.get("quote", ""),
        "nav": "library",
    }
    return render(request, "knowledge/material_detail.html", context)
