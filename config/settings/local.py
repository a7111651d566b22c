from .base import *  # noqa: F403
from .base import env

# DEBUG stays off unless asked for (DJANGO_DEBUG=1): `make run` on a school's machine is reachable by
# others, and a debug page shows settings and source to anyone who makes a request fail.
DEBUG = env.bool("DJANGO_DEBUG", default=False)
WHITENOISE_AUTOREFRESH = True  # static files served as edited, DEBUG or not
WHITENOISE_USE_FINDERS = True  # …including files added since the last collectstatic
DEMO_ACCOUNT_ALLOWED = True
