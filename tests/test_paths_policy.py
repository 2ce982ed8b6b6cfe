"""A user allow rule skips the read-only classifier, so the path scanner alone must see a
secret named after options it can't parse exactly: `sort --random-sour -T ~/.git-credentials`
(an abbreviated --random-source takes `-T`, making the secret an input) was auto-allowed under
`allow = ["Bash(sort *)"]` and printed the canary. End to end through load_engine."""

from __future__ import annotations

import pytest

from shellgate.approval import load_engine

POLICY = '[permissions]\nallow = ["Bash(sort *)", "Bash(grep *)", "Bash(cat *)", "Bash(du *)"]\n'

LEAKS = [
    "sort --random-sour -T ~/.git-credentials",
    "sort --random-source=~/.git-credentials x",
    "sort -T ~/.ssh x",
    "grep --fil ~/.git-credentials x",
    "cat --unknown-opt ~/.git-credentials",
    "du --exclude-fr ~/.git-credentials",
]
# the same shapes on plain files stay allowed: the rule still works where the parse is exact
BENIGN = ["sort -n data.txt", "sort -rn -k 2 data.txt", "grep -n foo data.txt", "du -sh ."]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("pathpolicy")
    ws, home = root / "ws", root / "home"
    ws.mkdir()
    (ws / "data.txt").write_text("b 2\na 1\n")
    home.mkdir()
    (home / ".git-credentials").write_text("https://u:CANARY-7f3a@example.com\n")
    (home / ".ssh").mkdir()
    cfg = root / "policy.toml"
    cfg.write_text(POLICY)
    return load_engine(ws, "balanced", config_path=cfg, ask_as_deny=True, audit=False, store=False,
                       home=home, user_config=False, project_config=False)


@pytest.mark.parametrize("cmd", LEAKS)
def test_allow_rule_does_not_release_a_secret(engine, cmd):
    d = engine.decide_bash(cmd)
    assert not d.allowed(), (d.rule, d.reason)


@pytest.mark.parametrize("cmd", BENIGN)
def test_allow_rule_still_allows_plain_files(engine, cmd):
    d = engine.decide_bash(cmd)
    assert d.allowed(), (d.rule, d.reason)
