from django.contrib import admin

from .models import Course, Invitation, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    fk_name = "course"
    fields = ("user", "role", "joined_at")
    readonly_fields = ("joined_at",)
    autocomplete_fields = ("user",)
    extra = 0


class InvitationInline(admin.TabularInline):
    model = Invitation
    fields = ("code", "email", "role", "expires_at", "revoked_at", "uses")
    readonly_fields = ("code", "uses")
    extra = 0


@admin.register(Course)
class CourseAdmin(admin.ModelAdmin):
    list_display = ("title", "owner", "language", "created_at")
    list_filter = ("language",)
    search_fields = ("title", "owner__email")
    autocomplete_fields = ("owner",)
    inlines = [MembershipInline, InvitationInline]

    def save_formset(self, request, form, formset, change):
        # A membership added here belongs to the course's owner (row-level security reads it from the row).
        for instance in formset.save(commit=False):
            if isinstance(instance, Membership | Invitation):
                if isinstance(instance, Membership):
                    instance.course_owner_id = form.instance.owner_id
                else:
                    instance.owner_id = form.instance.owner_id
            instance.save()
        for removed in formset.deleted_objects:
            removed.delete()
        formset.save_m2m()


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("course", "user", "role", "joined_at")
    list_filter = ("role",)
    search_fields = ("course__title", "user__email")
    autocomplete_fields = ("course", "user")
    exclude = ("course_owner",)

    def save_model(self, request, obj, form, change):
        obj.course_owner_id = obj.course.owner_id
        super().save_model(request, obj, form, change)


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ("code", "course", "email", "role", "expires_at", "revoked_at", "uses")
    search_fields = ("code", "course__title", "email")
    autocomplete_fields = ("course",)
    readonly_fields = ("code", "uses")
    exclude = ("owner",)

    def save_model(self, request, obj, form, change):
        obj.owner_id = obj.course.owner_id
        super().save_model(request, obj, form, change)
