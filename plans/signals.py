"""The plan's signal to the apps that file things under a session's number; and what leaving a course takes
with it from the learner's own study: the review cards made from its plan's sessions (they quote its
materials, which are no longer theirs to read). Their notes and answers stay."""

from django.db.models.signals import post_delete
from django.dispatch import Signal, receiver

from accounts.rls import rls_system
from courses.models import Membership
from knowledge.signals import material_ready

from .models import Card, PlanMaterial

# Sent inside the transaction that moves a plan's sessions (``plan``, ``renumbered``: {old number: new}), for
# what other apps file under a session's number (chat's conversations about a session).
sessions_renumbered = Signal()


@receiver(post_delete, sender=Membership, dispatch_uid="plans-cards-leave-with-the-course")
def cards_leave_with_the_course(sender, instance: Membership, **kwargs) -> None:
    # The learner's rows, removed when they leave or the teacher removes them: as the system, saying why.
    with rls_system(why="a learner left a course: the review cards quoting its materials go with it"):
        Card.objects.unscoped().filter(owner_id=instance.user_id, plan__course_id=instance.course_id).delete()


@receiver(material_ready, dispatch_uid="plans-rejoin-a-material-uploaded-again")
def plans_rejoin_their_material(sender, material, **kwargs) -> None:
    """The same file uploaded again comes back under its refId: a plan made from it reads it again, when it was
    cut into as many chunks (the sessions' chunk ranges still point at the same text)."""
    # The owner's plan rows, written by the ingestion worker: as the system, saying why.
    with rls_system(why="a deleted material uploaded again: the owner's plans that read it rejoin it"):
        PlanMaterial.objects.unscoped().filter(
            owner_id=material.owner_id, ref_id=material.ref_id, material__isnull=True, chunk_count=material.chunk_count
        ).update(material=material)
