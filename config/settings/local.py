from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DJANGO_DEBUG", default=True)
WHITENOISE_AUTOREFRESH = DEBUG
DEMO_ACCOUNT_ALLOWED = True
