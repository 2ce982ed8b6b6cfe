"""The project config only tightens: corpus/config_layers.jsonl, one line per setting.

Each line is run three times — without a project file (``plain``), with it as found in a
cloned repository (``untrusted``), and with ``trust_project_config = true`` in the user file
(``trusted``) — and the decision on ``cmd`` (a bash command, or the path given to the file
tool ``tool``) plus the listed ``config`` attributes are compared (``$ROOT`` in a file is
the directory holding the workspace ``$ROOT/ws``):

- ``loosen``:  untrusted == plain (ignored, with a notice naming it), trusted != plain (so the
  line proves the setting does something when honoured);
- ``tighten``: untrusted == trusted != plain, and no notice;
- ``neutral``: all three equal.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import load

from shellgate.approval import Request, load_engine
from shellgate.config import ConfigError, load_config, user_config_path

CASES = load("config_layers.jsonl")
VARIANTS = ("plain", "untrusted", "trusted")


def _world(tmp_path: Path, case: dict, variant: str) -> tuple[Path, Path]:
    ws = tmp_path / variant / "ws"
    (ws / ".shellgate").mkdir(parents=True)
    (tmp_path / variant / "home").mkdir()
    user = user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    # Top-level keys must precede the first table, so the opt-in goes first.
    root = str(ws.parent)  # `$ROOT` in a line: this variant's directory (ws is $ROOT/ws)
    user.write_text(("trust_project_config = true\n" if variant == "trusted" else "")
                    + case.get("user", "").replace("$ROOT", root))
    if variant != "plain":
        (ws / ".shellgate" / "config.toml").write_text(case["project"].replace("$ROOT", root))
    return ws, tmp_path / variant / "home"


def _observe(tmp_path: Path, case: dict, variant: str) -> tuple[tuple, list[str]]:
    ws, home = _world(tmp_path, case, variant)
    engine = load_engine(ws, ask_as_deny=False, audit=False, store=False, home=home,
                         plan=bool(case.get("plan")))
    tool = case.get("tool", "bash")
    if tool == "bash":
        d = engine.decide_bash(case["cmd"])
    else:
        d = engine.decide(Request(tool_name=tool, args={"file_path": case["cmd"]}))
    cfg = load_config(ws)
    attrs = tuple(_relative(getattr(cfg, a), ws) for a in case.get("config", ()))
    return ((d.verdict, d.rule), *attrs), list(cfg.notices)


def _relative(value: object, ws: Path) -> object:
    """Paths under the per-variant tmp dir, made comparable across variants."""
    if isinstance(value, str):
        return value.replace(str(ws.parent), "<root>")
    if isinstance(value, tuple):
        return tuple(_relative(v, ws) for v in value)
    return value


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["what"])
def test_project_layer(tmp_path, monkeypatch, case):
    got = {}
    notices = {}
    for variant in VARIANTS:
        got[variant], notices[variant] = _observe(tmp_path, case, variant)
        assert list(got[variant][0]) == case[variant], (variant, got[variant])
    plain, untrusted, trusted = (got[v] for v in VARIANTS)
    assert notices["trusted"] == [] and notices["plain"] == []
    if case["kind"] == "loosen":
        assert untrusted == plain and trusted != plain
        assert any(case["notice"] in n for n in notices["untrusted"]), notices["untrusted"]
        assert all(".shellgate/config.toml:" in n for n in notices["untrusted"])
    elif case["kind"] == "tighten":
        assert untrusted == trusted != plain
        assert notices["untrusted"] == []
    else:
        assert case["kind"] == "neutral" and plain == untrusted == trusted


def test_every_kind_is_covered():
    kinds = {c["kind"] for c in CASES}
    assert kinds == {"loosen", "tighten", "neutral"}
    # every [permissions] key and every other top-level setting is exercised
    text = "".join(c["project"] for c in CASES)
    for key in ("mode", "allow", "ask", "deny", "additional_directories", "additionalDirectories",
                "readonly_directories", "internal_directories", "plan_mode_exec_allowed",
                "[audit]", "[approvals]", "trust_project_config", "[sandbox]", "[hooks]"):
        assert key in text, key


# -- the opt-in and the explicit file -------------------------------------------------------

@pytest.fixture
def world(tmp_path):
    ws = tmp_path / "ws"
    (ws / ".shellgate").mkdir(parents=True)
    user_config_path().parent.mkdir(parents=True, exist_ok=True)
    (ws / ".shellgate" / "config.toml").write_text(
        'mode = "trust"\n[permissions]\nallow = ["Bash(npm test *)"]\n')
    return ws


def test_untrusted_by_default(world):
    cfg = load_config(world)
    assert cfg.mode is None and not cfg.rules.allow and cfg.trust_project_config is False
    assert [r.text for r in cfg.ignored_rules.allow] == ["Bash(npm test *)"]
    assert len(cfg.notices) == 2


def test_explicit_config_can_opt_in(world, tmp_path):
    extra = tmp_path / "mine.toml"
    extra.write_text("trust_project_config = true\n")
    cfg = load_config(world, extra)
    assert str(cfg.mode) == "trust" and [r.text for r in cfg.rules.allow] == ["Bash(npm test *)"]
    assert cfg.notices == () and cfg.trust_project_config is True


def test_explicit_config_can_opt_out_over_the_user(world, tmp_path):
    user_config_path().write_text("trust_project_config = true\n")
    assert load_config(world).trust_project_config is True
    extra = tmp_path / "mine.toml"
    extra.write_text("trust_project_config = false\n")
    cfg = load_config(world, extra)
    assert cfg.mode is None and not cfg.rules.allow and cfg.notices


def test_explicit_config_naming_the_project_file_is_honoured(world):
    cfg = load_config(world, world / ".shellgate" / "config.toml")
    assert str(cfg.mode) == "trust" and len(cfg.rules.allow) == 1 and cfg.notices == ()
    assert cfg.sources == (str(world / ".shellgate" / "config.toml"),)


def test_trust_key_must_be_a_bool(world):
    user_config_path().write_text('trust_project_config = "yes"\n')
    with pytest.raises(ConfigError, match="trust_project_config must be true or false"):
        load_config(world)


def test_ignored_allow_rule_is_named_in_the_reason(world, tmp_path):
    e = load_engine(world, ask_as_deny=False, audit=False, store=False, home=tmp_path)
    d = e.decide_bash("npm test")
    assert d.verdict == "ask" and "Bash(npm test *)" in d.reason and "not trusted" in d.reason
    assert e.notices and "allow rule Bash(npm test *)" in e.notices[1]
    # not named when it would not have covered the call
    assert "not trusted" not in e.decide_bash("make").reason
    # with nobody to ask, the hint points at the user's file, not the project's
    d = load_engine(world, audit=False, store=False, home=tmp_path).decide_bash("npm test")
    assert d.verdict == "deny" and "~/.config/shellgate/config.toml" in d.reason


def test_project_hooks_table_does_not_wipe_the_users(world):
    user_config_path().write_text('[hooks]\nmode = "strict"\n[hooks.gemini]\nmode = "balanced"\n')
    (world / ".shellgate" / "config.toml").write_text('[hooks.codex]\nmode = "strict"\n')
    hooks = load_config(world).sections["hooks"]
    assert hooks == {"mode": "strict", "gemini": {"mode": "balanced"}, "codex": {"mode": "strict"}}


def test_project_hook_mode_reaches_hookio(world):
    from shellgate.integrations import hookio

    (world / ".shellgate" / "config.toml").write_text('[hooks]\nmode = "trust"\n')
    assert hookio.config_mode(None, str(world), "claude-code") is None
    (world / ".shellgate" / "config.toml").write_text('[hooks]\nmode = "strict"\n')
    assert hookio.config_mode(None, str(world), "claude-code") == "strict"


def test_doctor_shows_the_notices(world):
    from shellgate.integrations import doctor

    checks = doctor.config_checks(str(world), None)
    warned = [c.detail for c in checks if c.level == "warn" and not c.ok]
    assert any("allow rule Bash(npm test *)" in w for w in warned)
    assert any('mode = "trust"' in w for w in warned)
