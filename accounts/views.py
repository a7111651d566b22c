from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.http import FileResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods

from . import services
from .services import REGISTRATION_REFUSED, AccountError, WeakPassword, user_register


class LoginForm(AuthenticationForm):
    def confirm_login_allowed(self, user):
        super().confirm_login_allowed(user)
        if user.must_verify_email:
            self.email_not_verified = True  # the page offers a new link
            raise ValidationError(services.VERIFICATION_NEEDED, code="email_not_verified")


class EmailLoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    form_class = LoginForm
    redirect_authenticated_user = True


def _next_page(request) -> str:
    """Where the learner was going before signing up (a course's join link), if it is a page of this site."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    return wanted if url_has_allowed_host_and_scheme(wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()) else ""


# The session key keeping where to go once the emailed link confirms the new account (same browser).
AFTER_VERIFY = "after-verify"


@require_http_methods(["GET", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect(_next_page(request) or "library")
    following = _next_page(request)
    context = {"next": following}
    if request.method == "POST":
        email, password = request.POST.get("email", ""), request.POST.get("password", "")
        try:
            user = user_register(email=email, password=password)
        except WeakPassword as error:
            context = {"error": " ".join(error.messages), "email": email, "next": following}
        except services.RegistrationRefused as refused:
            if not services.registration_answered_like_a_new_one(refused):
                context = {"error": str(REGISTRATION_REFUSED), "email": email, "next": following}
            else:  # the page a new account gets; the address's owner is told by email
                services.user_signup_attempt_notify(email=email, request=request)
                return render(request, "accounts/verify_sent.html", {"email": email.strip().lower()})
        except AccountError:
            context = {"error": str(REGISTRATION_REFUSED), "email": email, "next": following}  # never "this address has an account"
        except ValidationError as error:  # an address Django's email validator refuses
            context = {"error": " ".join(error.messages), "email": email, "next": following}
        else:
            if user.must_verify_email:  # signed in only once the emailed link is opened
                services.user_verification_send(user=user, request=request)
                if following:
                    request.session[AFTER_VERIFY] = following
                return render(request, "accounts/verify_sent.html", {"email": user.email})
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect(following or "library")
    return render(request, "accounts/signup.html", context, status=400 if context.get("error") else 200)


@require_http_methods(["GET", "POST"])
def verify_email(request, uidb64, token):
    """The link emailed at sign-up: GET shows a button (mail scanners that open links confirm nothing),
    POST confirms the address and signs the learner in."""
    if request.method == "GET":
        return render(request, "accounts/verify_confirm.html")
    try:
        user = services.user_email_verify(uid=uidb64, token=token)
    except AccountError as error:
        return render(request, "accounts/verify_confirm.html", {"error": str(error)}, status=400)
    following = request.session.pop(AFTER_VERIFY, "")
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    return redirect(following or "library")


@require_http_methods(["GET", "POST"])
def verify_resend(request):
    if request.method == "POST":
        email = request.POST.get("email", "")
        services.user_verification_resend(email=email, request=request)
        return render(request, "accounts/verify_sent.html", {"email": email, "resent": True})
    return render(request, "accounts/verify_resend.html")


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
