from django.contrib.auth.decorators import login_required
from django.shortcuts import render


@login_required
def review_page(request):
    """Due cards one at a time (the page reads and writes through /api/v1/review/)."""
    return render(request, "plans/review.html", {"nav": "review"})
