from django.apps import apps
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from .models import User

OVERVIEW_ROWS = 25  # rows of a user's materials or plans listed on their page; the rest are one link away


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    list_display = ("email", "is_staff", "is_active", "date_joined")
    search_fields = ("email",)
    ordering = ("email",)
    readonly_fields = ("materials_overview", "plans_overview")
    # What the learner studies comes right after who they are: it is what a content manager opens the page for.
    fieldsets = (
        DjangoUserAdmin.fieldsets[0],
        ("Study", {"fields": ("materials_overview", "plans_overview")}),
        *DjangoUserAdmin.fieldsets[1:],
    )

    @admin.display(description="materials")
    def materials_overview(self, user):
        # Admin is for content managers across tenants: this user's rows, read on their page. Looked up by
        # name: accounts sits below the apps that own these models and imports none of them.
        materials = (
            apps.get_model("knowledge", "Material").objects.unscoped().filter(owner=user).only("id", "title", "status", "created_at")
        )
        return self._overview(materials, "knowledge_material", user, lambda material: material.status)

    @admin.display(description="plans")
    def plans_overview(self, user):
        plans = (
            apps.get_model("plans", "Plan").objects.unscoped().filter(owner=user).only("id", "title", "status", "created_at")
        )  # admin, as above
        return self._overview(plans, "plans_plan", user, lambda plan: plan.status)

    @staticmethod
    def _overview(queryset, admin_name: str, user, label):
        rows = list(queryset.order_by("-created_at")[: OVERVIEW_ROWS + 1])
        if not rows:
            return "—"
        items = format_html_join(
            "",
            '<li><a href="{}">{}</a> · {}</li>',
            ((reverse(f"admin:{admin_name}_change", args=[row.pk]), row.title, label(row)) for row in rows[:OVERVIEW_ROWS]),
        )
        every = reverse(f"admin:{admin_name}_changelist") + f"?owner__id__exact={user.pk}"
        more = "all of them" if len(rows) > OVERVIEW_ROWS else "as a list"
        return format_html('<ul style="margin:0;padding-left:1.2em">{}</ul><a href="{}">{} →</a>', items, every, more)
