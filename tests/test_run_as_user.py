"""`make run` started as root runs the web server and workers as an unprivileged account (scripts/run.py),
or keeps root with a reason when they could not start as it."""

from __future__ import annotations

import os
import pwd
import stat
import subprocess
from pathlib import Path

import environ
import pytest
from django.conf import settings

from baeum import runtime
from scripts import run

SYSTEM_PYTHON = Path("/usr/bin/python3.11")  # Debian's: outside /root, so other accounts can run it

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="changing account needs root")
with_system_python = pytest.mark.skipif(not SYSTEM_PYTHON.exists(), reason=f"needs {SYSTEM_PYTHON}")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_an_ordinary_user_starts_them_as_itself(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert run.app_account(interpreter=SYSTEM_PYTHON, port=8000) == (None, "")


@as_root
def test_root_keeps_them_when_the_interpreter_lies_where_the_account_cannot_enter(tmp_path):
    closed = tmp_path / "home"
    (closed / "bin").mkdir(parents=True)
    interpreter = closed / "bin" / "python3"
    interpreter.write_text("")
    closed.chmod(0o700)  # as /root is

    account, reason = run.app_account(interpreter=interpreter, port=8000)

    assert account is None
    outermost = next(directory for directory in reversed(interpreter.parents) if not directory.stat().st_mode & stat.S_IXOTH)
    assert f"the Python interpreter {interpreter} is under {outermost}" in reason
    assert f"install Baeum with a Python outside {outermost}" in reason


@as_root
@with_system_python
def test_root_keeps_them_on_a_port_only_root_may_open():
    account, reason = run.app_account(interpreter=SYSTEM_PYTHON, port=80)
    assert account is None and "port 80" in reason and "only root may open" in reason


@as_root
@with_system_python
def test_root_with_a_reachable_interpreter_runs_them_as_the_app_account():
    account, reason = run.app_account(interpreter=SYSTEM_PYTHON, port=8000)

    entry = pwd.getpwnam(run.RUN_AS_USER)  # made by the call when it was missing
    assert reason == ""
    assert account == run.Account(name=run.RUN_AS_USER, uid=entry.pw_uid, gid=entry.pw_gid, home=entry.pw_dir)
    assert entry.pw_uid != 0 and entry.pw_shell == "/usr/sbin/nologin"


@as_root
@with_system_python
def test_a_child_started_as_run_py_starts_them_runs_as_the_account_with_only_its_groups():
    account, _ = run.app_account(interpreter=SYSTEM_PYTHON, port=8000)
    extra = pwd.getpwnam("nobody").pw_gid  # standing in for the embedded PostgreSQL's group
    account = run.Account(name=account.name, uid=account.uid, gid=account.gid, home=account.home, extra_gids=(extra,))
    command = [str(SYSTEM_PYTHON), "-c", "import os; print(os.getuid(), os.getgid(), *sorted(os.getgroups()))"]

    child = run.start_child(command, account=account, env=run.child_environment(account, {}), stdout=subprocess.PIPE, text=True)
    out, _ = child.communicate(timeout=30)

    assert child.returncode == 0
    assert [int(number) for number in out.split()] == [account.uid, account.gid, extra]  # none of root's groups


@as_root
def test_handing_over_a_tree_follows_no_link_the_account_could_plant(tmp_path):
    nobody = pwd.getpwnam("nobody")
    outside = tmp_path / "shadow"
    outside.write_text("root's")
    outside.chmod(0o640)
    tree = tmp_path / "media"
    (tree / "materials").mkdir(parents=True)
    upload = tree / "materials" / "notes.pdf"
    upload.write_text("%PDF")
    upload.chmod(0o644)
    (tree / "materials" / "link").symlink_to(outside)
    os.link(outside, tree / "materials" / "hard")

    run.restrict_media(tree, run.Account(name="nobody", uid=nobody.pw_uid, gid=nobody.pw_gid, home="/nonexistent"))

    assert (upload.stat().st_uid, _mode(upload)) == (nobody.pw_uid, 0o600)
    assert ((tree / "materials").stat().st_uid, _mode(tree / "materials")) == (nobody.pw_uid, 0o700)
    assert (outside.stat().st_uid, _mode(outside)) == (0, 0o640)  # neither through the symbolic nor the hard link


def test_children_reach_the_embedded_postgres_through_the_url_run_py_builds():
    server = runtime.EmbeddedPostgres(socket_dir="/srv/a b+c/.baeum/pgdata", port=5433)
    parsed = environ.Env.db_url_config(run.database_url(server, "baeum_priv"))
    expected = server.settings("baeum_priv")
    assert {key: str(parsed[key]) for key in ("ENGINE", "NAME", "USER", "HOST", "PORT")} == {
        key: expected[key] for key in ("ENGINE", "NAME", "USER", "HOST", "PORT")
    }


def test_the_static_files_handed_to_the_account_are_the_ones_settings_serve():
    assert Path(settings.STATIC_ROOT) == run.STATIC_ROOT


def test_ordinary_runs_keep_the_environment_they_always_had():
    assert run.child_environment(None, {"DATABASE_URL": "postgres://elsewhere/x"}) is run.ENV


@as_root
@with_system_python
def test_an_interpreter_the_account_cannot_execute_keeps_root_instead_of_failing_the_start(tmp_path, monkeypatch):
    account, _ = run.app_account(interpreter=SYSTEM_PYTHON, port=8000)
    private = tmp_path / "python3"
    private.write_bytes(SYSTEM_PYTHON.read_bytes())
    private.chmod(0o700)  # root's own: the account may not execute it
    monkeypatch.setattr(run, "PYTHON", str(private))

    reason = run.account_start_problem(account)

    assert f"{private} does not start as {account.name} (Permission denied)" in reason
