from django.http import Http404
from django.views.defaults import page_not_found

from baeum.errors import NotFound


class NotFoundMiddleware:
    """Render a domain ``NotFound`` (someone else's or a missing object) as the same 404 page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, NotFound):
            return page_not_found(request, Http404(str(exception)))
        return None
