"""bench_course prints its three p95 figures against their targets and leaves nothing behind (the sizes
here are tiny; the figures are the command's job, docs/evaluation.md#bench_course)."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from courses.models import Course
from knowledge.models import Material

pytestmark = pytest.mark.django_db(transaction=True)


def test_bench_course_prints_each_target_and_cleans_up(capsys):
    users = get_user_model().objects.count()
    call_command("bench_course", "--learners", "4", "--sessions", "3", "--materials", "2", "--requests", "2", "--json")
    report = json.loads(capsys.readouterr().out)
    assert set(report["measured"]) == set(report["targets"]) == set(report["met"])
    assert all(value > 0 for value in report["measured"].values())
    assert report["size"]["learners"] == 4 and report["size"]["progress_rows"] > 0
    assert get_user_model().objects.count() == users
    assert not Course.objects.unscoped().exists() and not Material.objects.unscoped().exists()
