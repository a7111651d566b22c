from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import FileResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.views.decorators.http import require_GET, require_http_methods

from . import services
from .services import REGISTRATION_REFUSED, AccountError, WeakPassword, user_register


class EmailLoginView(auth_views.LoginView):
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
            user = user_register(email=email, password=password)
        except WeakPassword as error:
            context = {"error": " ".join(error.messages), "email": email}
        except AccountError:
            context = {"error": str(REGISTRATION_REFUSED), "email": email}  # never "this address has an account"
        except ValidationError as error:  # an address Django's email validator refuses
            context = {"error": " ".join(error.messages), "email": email}
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("library")
    return render(request, "accounts/signup.html", context, status=400 if context.get("error") else 200)


# Password change and reset: Django's own views (single-use reset links that expire after
# PASSWORD_RESET_TIMEOUT), with this app's templates. The email goes through EMAIL_BACKEND.
class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("password-change-done")

    def form_valid(self, form):
        response = super().form_valid(form)  # this browser stays signed in
        services.user_tokens_revoke_all(user=form.user)  # every API device is signed out
        return response


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("password-reset-complete")

    def form_valid(self, form):
        response = super().form_valid(form)
        services.user_tokens_revoke_all(user=form.user)
        return response


password_change = PasswordChangeView.as_view()
password_change_done = auth_views.PasswordChangeDoneView.as_view(template_name="accounts/password_done.html")
password_reset = auth_views.PasswordResetView.as_view(
    template_name="accounts/password_reset.html",
    email_template_name="accounts/password_reset_email.txt",
    subject_template_name="accounts/password_reset_subject.txt",
    success_url=reverse_lazy("password-reset-sent"),
)
password_reset_sent = auth_views.PasswordResetDoneView.as_view(template_name="accounts/password_reset_sent.html")
password_reset_confirm = PasswordResetConfirmView.as_view()
password_reset_complete = auth_views.PasswordResetCompleteView.as_view(template_name="accounts/password_done.html")


@login_required
@require_GET
def account_export(request):
    """Download everything the learner owns: originals and a JSON file per kind of row."""
    import tempfile

    archive = tempfile.TemporaryFile()  # noqa: SIM115 - FileResponse closes it once sent
    services.user_export(user=request.user, into=archive)
    archive.seek(0)
    return FileResponse(archive, as_attachment=True, filename="baeum-export.zip", content_type="application/zip")
