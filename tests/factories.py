import factory
from django.contrib.auth import get_user_model


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    email = factory.Sequence(lambda number: f"learner{number}@example.com")
    username = factory.LazyAttribute(lambda user: user.email)
    password = factory.PostGenerationMethodCall("set_password", "correct horse battery")

    @factory.post_generation
    def persist_password(user, create, extracted, **kwargs):
        if create:
            user.save()
