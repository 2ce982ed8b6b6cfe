"""git in the sandbox with a hidden git config (shellgate/sandbox/gitview.py, corpus/gitview.jsonl).

A ``~/.gitconfig`` holding a credential is hidden inside the sandbox, and git died on it there:
"unable to access '~/.gitconfig': Permission denied … fatal: unknown error occurred while
reading the configuration files", for every git command, in both tiers and in a hook's
confined line. The command now gets a copy of git's reading without the credential entries,
named by GIT_CONFIG_GLOBAL (GIT_CONFIG_SYSTEM). Each corpus line runs with the BashTool's
policy in both tiers and as a hook's confined line in both tiers: git works and prints the
user's configuration, and no CANARY is printed. The copy is proved against real git: its
``git config --list`` is the original's minus the credential entries, values of every shape.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from _helpers import sandbox_or_skip
from conftest import load, reap_orphans
from hypothesis import given
from hypothesis import strategies as st

CASES = load("gitview.jsonl")
GIT = shutil.which("git")
BASH = shutil.which("bash")
pytestmark = [pytest.mark.skipif(GIT is None or BASH is None, reason="git or bash is not installed"),
              pytest.mark.usefixtures("no_leaked_sandboxes")]


def _ids(case: dict) -> str:
    return case["cmd"][:40] + ("-" + next(iter(case["home"].values()))[:30] if case["home"] else "")


def _world(tmp_path: Path, case: dict, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A git workspace (one commit, an origin, an untracked file) and a HOME with the line's
    files; git and the hook see HOME, its ~/.config as XDG_CONFIG_HOME, no GIT_CONFIG_*."""
    root = Path(os.path.realpath(tmp_path))
    ws, home = root / "ws", root / "home"
    home.mkdir()
    for rel, text in case["home"].items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(HOME=str(root / "nohome"), GIT_CONFIG_NOSYSTEM="1")
    subprocess.run(["git", "init", "-q", "-b", "main", str(ws)], check=True, env=env)
    for args in (["remote", "add", "origin", "https://github.com/o/r"],
                 ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty",
                  "-m", "PLAIN-commit"]):
        subprocess.run(["git", "-C", str(ws), *args], check=True, env=env)
    (ws / "PLAIN-untracked").write_text("x\n")
    for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    return {"ws": ws, "home": home}


def _check(case: dict, out: str, err: str, code: int | None) -> None:
    assert "CANARY" not in out + err, (out, err)
    if case.get("fails") or case.get("hidden"):
        assert code != 0, (out, err)
        return
    assert code == 0, (out, err)
    for line in case["out"]:
        assert line in out.splitlines(), (line, out, err)


@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_bashtool_policy(case: dict, tier: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The BashTool's policy (build_policy), in each tier."""
    from shellgate.sandbox import build_policy

    w = _world(tmp_path, case, monkeypatch)
    sb = sandbox_or_skip(tier)
    try:
        policy = build_policy(w["ws"], home=w["home"])
        res = sb.run(case["cmd"], policy)
    finally:
        sb.close()
    _check(case, res.stdout, res.stderr, res.exit_code)
    if case.get("fails"):
        assert any(case["fails"] in why for _p, why in policy.explain), policy.explain
        from shellgate.sandbox.refusals import notes

        said = notes(policy, res.stderr, w["ws"], res.exit_code)
        assert any("stays hidden" in n and case["fails"] in n for n in said), (said, res.stderr)


def _hook_tier(tier: str):
    from shellgate.sandbox.enforce import HookTier, hook_tier
    from shellgate.sandbox.probe import Tier, landlock_usable

    found = hook_tier()
    if tier == "landlock":
        if why := landlock_usable():
            pytest.skip(f"Landlock does not work here: {why}")
        return HookTier(Tier.LANDLOCK, None, found.bash)
    if found.tier is not Tier.BWRAP:
        pytest.skip("bwrap does not work here")
    return found


@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_hook_line(case: dict, tier: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hook's confined line for a read grant (grant_policy, confine), run by bash with the
    agent's environment; the agent's shell is left without the variable."""
    from shellgate.sandbox.enforce import confine
    from shellgate.sandbox.locations import grant_policy

    w = _world(tmp_path, case, monkeypatch)
    forced = _hook_tier(tier)
    policy, notes = grant_policy(w["ws"], write=False, network=False, home=w["home"])
    line = confine(case["cmd"], policy, cwd=w["ws"], tier=forced).line
    proc = subprocess.run([BASH, "-c", line + '; __s=$?; echo "agent:${GIT_CONFIG_GLOBAL-unset}"; exit $__s'],
                          cwd=w["ws"], env=dict(os.environ), capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    reap_orphans()   # bwrap's own init, re-parented here (a BashTool made pytest a subreaper)
    assert proc.stdout.splitlines()[-1] == "agent:unset", proc.stdout
    _check(case, proc.stdout, proc.stderr, proc.returncode)
    if case.get("fails"):
        assert any("stays hidden" in n and case["fails"] in n for n in notes), notes


@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
def test_bashtool_runs_git_with_the_users_identity(tier: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole tool: the gate allows git's read forms, the sandbox runs them with the user's
    configuration (identity, aliases), a write grant commits under the user's name; the copy
    cannot be changed from inside, and a persistent session does not carry its variable (the
    gate's own environment never has it)."""
    from shellgate.tools import BashTool

    case = {"home": {".gitconfig": "[user]\n\tname = PLAIN-name\n\temail = p@example.com\n"
                     "[alias]\n\tst = status --short\n"
                     "[url \"https://CANARY-tok@github.com/\"]\n\tinsteadOf = https://github.com/\n"}}
    w = _world(tmp_path, case, monkeypatch)
    sandbox_or_skip(tier).close()
    tool = BashTool(w["ws"], "accept-edits", home=w["home"], audit=False, store=False,
                    user_config=False, sandbox=tier, persistent=True)
    try:
        for cmd, want in (("git status --short", "?? PLAIN-untracked"), ("git st", "?? PLAIN-untracked"),
                          ("git config user.name", "PLAIN-name"), ("git log --format=%s", "PLAIN-commit")):
            r = tool.run(cmd)
            assert r.ran and r.exit_code == 0 and want in r.stdout.splitlines(), (cmd, r)
        r = tool.run("git add PLAIN-untracked && git commit -qm second && git log -1 --format=%an")
        assert r.exit_code == 0 and r.stdout.strip() == "PLAIN-name", r
        r = tool.run('printf "[core]\\n\\tpager = touch pwned\\n" >> "$GIT_CONFIG_GLOBAL"')
        assert r.exit_code != 0, r
        assert "GIT_CONFIG_GLOBAL" not in os.environ
        assert not any(n.startswith("GIT_") for n, _v, _x in tool._state.variables), tool._state
    finally:
        tool.close()


def test_the_copy_cannot_be_made_inside_a_writable_root(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the copies' directory lies inside a place the command may write, there is no copy:
    the file stays hidden and the policy says why."""
    from shellgate.sandbox import build_policy

    case = {"home": {".gitconfig": "[http]\n\textraHeader = Authorization: Bearer CANARY-x\n"}}
    w = _world(tmp_path, case, monkeypatch)
    policy = build_policy(w["ws"], home=w["home"], writable=["/tmp"])
    assert not policy.env_set and policy.shown == ()
    assert any("may write" in why for _p, why in policy.explain), policy.explain
    assert w["home"] / ".gitconfig" in policy.masked


def test_no_copy_without_a_hidden_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A config without a credential is read where it is: no variable, nothing shown."""
    from shellgate.sandbox import build_policy

    w = _world(tmp_path, {"home": {".gitconfig": "[user]\n\tname = PLAIN-name\n"}}, monkeypatch)
    policy = build_policy(w["ws"], home=w["home"])
    assert policy.env_set == () and policy.shown == () and policy.explain == ()


# --- the copy against real git --------------------------------------------------------------------

_TEXT = st.text(st.sampled_from(list("ab Z\t;#\"\\=[]\r.-") + ["\n", "é", "x"]), max_size=12)
_SUB = st.text(st.sampled_from(list("ab Z\t;#\"\\=[]].-") + ["é"]), min_size=1, max_size=8)


def _git_list(path: Path) -> list[str]:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(path.parent)}
    out = subprocess.run(["git", "config", "--file", str(path), "--list", "-z"], env=env,
                         capture_output=True, check=True).stdout
    return out.decode("utf-8", "surrogateescape").split("\0")


@given(entries=st.lists(st.tuples(st.sampled_from(["a", "x-y", "sec"]), st.none() | _SUB,
                                  st.sampled_from(["k", "Key2", "url", "extraHeader"]), _TEXT),
                        min_size=1, max_size=6))
def test_the_copy_reads_back_as_the_original_minus_credentials(entries, tmp_path_factory) -> None:
    """Written by git itself (``git config --add``: its own quoting), copied, and listed by git:
    the copy lists exactly the original's entries that are no credential, in order."""
    from shellgate.bash.git.config import credential_entry, parse_config
    from shellgate.sandbox.gitview import serialize

    d = tmp_path_factory.mktemp("rt")
    orig, copy = d / "orig", d / "copy"
    orig.write_text("")
    for section, sub, key, value in entries:
        name = f"{section}.{sub}.{key}" if sub is not None else f"{section}.{key}"
        subprocess.run(["git", "config", "--file", str(orig), "--add", name, value], check=True,
                       capture_output=True)
    parsed = parse_config(orig.read_bytes().decode())   # (read_text would turn a CR into a LF)
    kept = [e for e in parsed if not credential_entry(e)]
    copy.write_bytes(serialize(kept).encode())
    assert parse_config(copy.read_bytes().decode()) == tuple(kept)
    want = [item for e, item in zip(parsed, _git_list(orig), strict=False) if not credential_entry(e)]
    assert _git_list(copy)[:len(kept)] == want


def test_the_copy_of_the_tricky_corpus_values_reads_back_exactly(tmp_path: Path) -> None:
    """The corpus's hand-written values (quotes, backslashes, ``;``/``#``, blanks at either end,
    several values of one key, a subsection with a quote and a backslash, a bare key): git's
    listing of the copy is that of the original with the credential lines taken out by hand."""
    from shellgate.bash.git.config import credential_entry, parse_config
    from shellgate.sandbox.gitview import serialize

    original = ('[multi]\n\tval = "  lead"\n\tval = trail  \n\tval = semi\\";x\\" ; comment\n'
                '[sub "we\\"i\\\\rd"]\n\tkey = v\n\tbare\n[alias]\n\tsh = "!echo \'a;b\' \\"#c\\"  \\\\x"\n'
                '[url "https://tok@github.com/"]\n\tinsteadOf = https://github.com/\n'
                '[credential]\n\thelper = "!f() { echo password=p; }; f"\n\thelper = store\n')
    without = original.replace('[url "https://tok@github.com/"]\n\tinsteadOf = https://github.com/\n', "")
    without = without.replace('\thelper = "!f() { echo password=p; }; f"\n', "")
    (tmp_path / "orig").write_text(without)
    (tmp_path / "copy").write_text(
        serialize(e for e in parse_config(original) if not credential_entry(e)))
    assert _git_list(tmp_path / "copy") == _git_list(tmp_path / "orig")
