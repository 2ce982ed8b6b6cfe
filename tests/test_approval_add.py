"""``shellgate approvals add``: a rule-like pattern becomes a stored approval, parsed by the
rules module; broad, non-prefix and sensitive patterns are refused."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from shellgate.approval import load_engine
from shellgate.auditcli import add_approval, parse_approval
from shellgate.permission import Store


@pytest.mark.parametrize("pattern, prefix, rest", [
    ("Bash(npm test *)", ("npm", "test"), True),
    ("npm test *", ("npm", "test"), True),
    ("  npm test:*  ", ("npm", "test"), True),           # Claude Code's `:*` spelling
    ("Bash(make)", ("make",), False),
    ("rm -f build.log", ("rm", "-f", "build.log"), False),
    ("git commit -m 'a b' *", ("git", "commit", "-m", "a b"), True),   # shlex words, as rules
    ("shell(pytest -x *)", ("pytest", "-x"), True),     # tool taken from the rule
])
def test_accepted(tmp_path, pattern, prefix, rest):
    a = parse_approval(pattern, home=str(tmp_path))
    assert (a.prefix, a.rest, a.workspace) == (prefix, rest, None)
    assert a.tool == ("shell" if pattern.startswith("shell") else "bash")


@pytest.mark.parametrize("pattern, why", [
    ("Bash(ls*)", "not a token prefix"),
    ("git * --force", "not a token prefix"),
    ("*", "not a token prefix"),
    ("Bash", "would allow every Bash call"),
    ("Read(src/**)", "path or domain rule"),
    ("WebFetch(domain:example.com)", "path or domain rule"),
    ("Bash(npm test", "closing ')'"),
    ("echo 'unterminated", "cannot split"),
    ("", "empty"),
    ("cat ~/.ssh/id_rsa", "sensitive path"),
    ("Bash(cat .env)", "sensitive path"),
    ("tee -a ~/.bashrc *", "sensitive path"),
    ("rm -rf ~", "sensitive path"),                     # a directory that holds secrets
    ("curl --config=~/.aws/credentials *", "sensitive path"),
    ("cp x .git/hooks/pre-commit", "sensitive path"),
])
def test_refused(tmp_path, pattern, why):
    with pytest.raises(ValueError) as err:
        parse_approval(pattern, home=str(tmp_path))
    assert why in str(err.value)


def test_add_stores_once_and_reports(tmp_path, capsys):
    store = tmp_path / "approvals.json"
    assert add_approval(str(store), "Bash", "npm test *", None, True) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["added"] == 1 and out["approval"]["prefix"] == ["npm", "test"]
    assert add_approval(str(store), "Bash", "Bash(npm test *)", None, False) == 0
    assert "already stored" in capsys.readouterr().out
    assert [a.label for a in Store(store).approvals()] == ["npm test *"]


def test_add_refusal_exit_codes(tmp_path, capsys):
    store = tmp_path / "approvals.json"
    assert add_approval(str(store), "Bash", "cat ~/.ssh/id_rsa", None, True) == 2
    assert "sensitive path" in json.loads(capsys.readouterr().out)["error"]
    assert add_approval(str(store), "Bash", "npm test", str(tmp_path / "nope"), False) == 2
    assert "not a directory" in capsys.readouterr().out
    assert not store.exists()
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert add_approval(str(blocked / "approvals.json"), "Bash", "make", None, False) == 1


def test_added_approval_is_used_by_the_engine(tmp_path):
    ws, other, home = tmp_path / "ws", tmp_path / "other", tmp_path / "home"
    for d in (ws, other, home):
        d.mkdir()
    store = tmp_path / "approvals.json"
    assert add_approval(str(store), "Bash", "npm test *", str(ws), True) == 0
    assert add_approval(str(store), "Bash", "cat *", None, True) == 0

    def engine(where):
        return load_engine(where, ask_as_deny=False, audit=False, store=store, home=home,
                           user_config=False, project_config=False)

    d = engine(ws).decide_bash("npm test --watch")
    assert (d.verdict, d.rule) == ("allow", "chain.stored_approval")
    assert engine(other).decide_bash("npm test").rule == "chain.mode_matrix"   # scoped
    assert engine(ws).decide_bash("npm install").rule == "chain.mode_matrix"
    # a stored `cat *` never covers a secret: the dangerous-path prompt comes first
    (home / ".ssh").mkdir()
    assert engine(ws).decide_bash("cat ~/.ssh/id_rsa").rule == "approval.dangerous_path"


def test_cli_wiring(tmp_path):
    store = tmp_path / "approvals.json"
    run = subprocess.run([sys.executable, "-m", "shellgate.cli", "approvals", "add",
                          "Bash(make test *)", "--store", str(store), "--workspace", str(tmp_path),
                          "--json"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["approval"]["workspace"] == str(tmp_path)
    run = subprocess.run([sys.executable, "-m", "shellgate.cli", "approvals", "add", "*",
                          "--store", str(store)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "refused" in run.stdout


def test_scanner_failure_refuses(monkeypatch, tmp_path):
    import shellgate.bash.paths.resolve as paths

    def broken(*a, **k):
        raise RuntimeError("moved")

    monkeypatch.setattr(paths, "hits_for_text", broken)
    with pytest.raises(ValueError, match="cannot check"):
        parse_approval("npm test *", home=str(tmp_path))
    assert add_approval(str(tmp_path / "a.json"), "Bash", "npm test *", None, False) == 2
