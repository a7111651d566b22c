from django.shortcuts import redirect


def home(request):
    return redirect("library" if request.user.is_authenticated else "login")
