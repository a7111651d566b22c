from django.contrib.auth import login
from django.contrib.auth.views import LoginView
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from .services import AccountError, user_register


class EmailLoginView(LoginView):
    template_name = "accounts/login.html"
    redirect_authenticated_user = True


@require_http_methods(["GET", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect("library")
    context = {}
    if request.method == "POST":
        email, password = request.POST.get("email", ""), request.POST.get("password", "")
        try:
            user, _ = user_register(email=email, password=password)
        except AccountError as error:
            context = {"error": str(error), "email": email}
        except ValidationError as error:
            context = {"error": " ".join(error.messages), "email": email}
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("library")
    return render(request, "accounts/signup.html", context, status=400 if context.get("error") else 200)
