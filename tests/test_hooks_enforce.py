"""Enforced approvals (SPEC §9): what a hook allows runs confined to its grant, for real.

Each line of corpus/hooks_enforce.jsonl is an attack that shellgate's readers have been shown
to miss (awk regex/division, dash vs bash, symlinks in a walked directory, /proc links,
secret-named variables, a symlink made in the same command …). Two tests per line:

* the confined line itself (built for the line's grant, whatever the classifier says), run with
  ``bash -c`` and ``zsh -c``: nothing outside the grant changes, no canary is printed, the
  loopback listener receives nothing;
* the real hook: the payload through the installed ``shellgate hook claude-code`` script, and
  whatever it answers — an ``updatedInput`` command for an allow — run the same way.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from _helpers import UnixListeners, hooks_state, hookspath_world, host_git, unix_clients

from tests.conftest import load

CASES = load("hooks_enforce.jsonl")
EXE = shutil.which("shellgate")
SHELLS = [s for s in ("bash", "zsh") if shutil.which(s)]
CANARY = "CANARY-"
SECRETS = {
    ".ssh/id_rsa": "CANARY-ssh-key", ".aws/credentials": "CANARY-aws",
    ".claude/.credentials.json": "CANARY-claude", ".codex/auth.json": "CANARY-codex",
    ".gemini/oauth_creds.json": "CANARY-gemini",
}
ENV_SECRETS = {"OPENAI_API_KEY": "CANARY-openai-env", "GITHUB_TOKEN": "CANARY-gh-env"}


def _tier() -> str:
    from shellgate.sandbox.enforce import hook_tier

    return str(hook_tier().tier)


pytestmark = pytest.mark.skipif(_tier() == "none", reason="no sandbox tier on this machine: "
                                "hook allows are not rewritten (tests/test_hooks_protocol.py)")


class Listener:
    """A loopback TCP server that counts connections (none may arrive)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.hits = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.hits += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


@pytest.fixture(scope="module")
def listener():
    server = Listener()
    yield server
    server.close()


def make_world(root: Path) -> dict:
    """A git workspace with a committed symlink to the SSH key, a .env, a names file whose
    content is code; a fake HOME full of canaries; a directory outside both."""
    home, work, out = root / "home", root / "work", root / "outside"
    for rel, secret in SECRETS.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(secret + "\n")
    (home / ".bashrc").write_text("# rc\n")
    out.mkdir()
    (root / "outside-secret.txt").write_text("kept\n")
    (work / "docs").mkdir(parents=True)
    (work / "docs" / "guide.md").write_text("guide\n")
    os.symlink(home / ".ssh" / "id_rsa", work / "docs" / "key.txt")
    (work / ".env").write_text("CANARY-dotenv\n")
    (work / ".envrc").write_text("# direnv\n")
    (work / "names.txt").write_text(f"$(touch {out}/xargs-ran)\n")
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run(["git", "-C", str(work), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(work), "-c", "user.email=t@e", "-c", "user.name=t",
                    "commit", "-qm", "init"], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR",)}
    env.update(HOME=str(home), **ENV_SECRETS, XDG_CONFIG_HOME=str(home / ".config"),
               XDG_STATE_HOME=str(root / "state"), XDG_CACHE_HOME=str(root / "cache"))
    return {"root": root, "home": home, "work": work, "out": out, "env": env}


def snapshot(*dirs: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Every path under ``dirs`` with a digest of its content (or link target)."""
    state: dict[str, str] = {}
    for d in dirs:
        for dirpath, dirnames, files in os.walk(d):
            dirnames[:] = [n for n in dirnames if os.path.join(dirpath, n) not in skip]
            for name in dirnames + files:
                p = os.path.join(dirpath, name)
                if os.path.islink(p):
                    state[p] = "link:" + os.readlink(p)
                elif os.path.isfile(p):
                    state[p] = hashlib.sha256(Path(p).read_bytes()).hexdigest()
                else:
                    state[p] = "dir"
    return state


def fill(world: dict, text: str, port: int) -> str:
    return text.replace("$OUT", str(world["out"])).replace("$PORT", str(port))


def run_line(world: dict, shell: str, line: str) -> subprocess.CompletedProcess:
    return subprocess.run([shell, "-c", line], cwd=world["work"], env=world["env"],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def assert_contained(world: dict, grant: str, before: dict[str, str], procs: list, listener) -> None:
    for proc in procs:
        assert CANARY not in proc.stdout + proc.stderr, (proc.stdout, proc.stderr)
    assert listener.hits == 0
    after = snapshot(world["home"], world["out"], world["work"],
                     skip=(str(world["work"] / ".git" / "objects"),))
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    if grant != "read":  # the workspace is the grant; its protected paths are not
        work = str(world["work"]) + "/"
        protected = [str(world["work"] / n) for n in (".git/config", ".git/hooks", ".envrc",
                                                       ".git/commondir")]
        changed = {p for p in changed if not p.startswith(work)
                   or any(p == q or p.startswith(q + "/") for q in protected)}
    assert not changed, sorted(changed)


def confined_line(world: dict, cmd: str, grant: str, tier: str = "",
                  guarded: tuple[str, ...] = ()) -> str:
    """The line for ``cmd`` under ``grant``; ``tier`` "landlock" forces that tier;
    ``guarded``: deny edit rules' paths (``RuleSet.guarded``)."""
    from shellgate.permission import Grant
    from shellgate.sandbox.enforce import HookTier, confine, hook_tier
    from shellgate.sandbox.locations import grant_policy
    from shellgate.sandbox.probe import Tier

    g = Grant(grant)
    old = dict(os.environ)
    os.environ.clear()
    os.environ.update(world["env"])  # the hook sees the agent's environment
    try:
        policy, _ = grant_policy(world["work"], write=g.write, network=g.network,
                                 home=world["home"], guarded=guarded)
        forced = HookTier(Tier.LANDLOCK, None, hook_tier().bash) if tier == "landlock" else None
        return confine(cmd, policy, cwd=world["work"], tier=forced).line
    finally:
        os.environ.clear()
        os.environ.update(old)


def _landlock_or_skip() -> None:
    from shellgate.sandbox.probe import landlock_usable

    if why := landlock_usable():
        pytest.skip(f"Landlock does not work here: {why}")


@pytest.mark.parametrize("tier", ["", "landlock"], ids=["probed", "landlock"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:50])
def test_confined_line_contains_the_attack(tmp_path, listener, case, tier):
    if tier == "landlock":
        _landlock_or_skip()
        if case.get("landlock_gap"):
            pytest.skip(f"known Landlock gap (README): {case['landlock_gap']}")
    world = make_world(tmp_path)
    cmd = fill(world, case["cmd"], listener.port)
    line = confined_line(world, cmd, case["grant"], tier)
    before = snapshot(world["home"], world["out"], world["work"],
                      skip=(str(world["work"] / ".git" / "objects"),))
    procs = [run_line(world, shell, line) for shell in SHELLS]
    assert_contained(world, case["grant"], before, procs, listener)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:50])
def test_hook_answer_contains_the_attack(tmp_path, listener, case):
    world = make_world(tmp_path)
    cmd = fill(world, case["cmd"], listener.port)
    mode = "acceptEdits" if case["grant"] == "write" else "default"
    payload = {"session_id": "s", "cwd": str(world["work"]), "permission_mode": mode,
               "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": cmd, "description": "t"}, "tool_use_id": "toolu_1"}
    before = snapshot(world["home"], world["out"], world["work"],
                      skip=(str(world["work"] / ".git" / "objects"),))
    proc = subprocess.run([EXE, "hook", "claude-code"], input=json.dumps(payload), text=True,
                          capture_output=True, env=world["env"], cwd=world["work"], timeout=60)
    assert proc.returncode == 0, proc.stderr
    hso = json.loads(proc.stdout)["hookSpecificOutput"]
    procs = []
    if hso["permissionDecision"] == "allow":
        assert "runs confined" in hso["permissionDecisionReason"]
        updated = hso["updatedInput"]
        assert updated["description"] == "t"  # unchanged fields are copied in
        procs = [run_line(world, shell, updated["command"]) for shell in SHELLS]
    assert_contained(world, case["grant"], before, procs, listener)


# --- the line behaves like the command it wraps -------------------------------------------

BEHAVIOUR = [
    # (command, stdout, stderr, exit status)
    ("echo out; echo err >&2; exit 3", "out\n", "err\n", 3),
    ("printf 'a b\\n' | wc -w", "2\n", "", 0),
    ("cat <<'EOF'\nline $x\nEOF", "line $x\n", "", 0),
    ("false", "", "", 1),
    ("echo \"it's\"; echo 'q\"q'", "it's\nq\"q\n", "", 0),
]


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("cmd,out,err,status", BEHAVIOUR, ids=[b[0][:20] for b in BEHAVIOUR])
def test_line_keeps_streams_and_status(tmp_path, shell, cmd, out, err, status):
    world = make_world(tmp_path)
    proc = run_line(world, shell, confined_line(world, cmd, "read"))
    assert (proc.stdout, proc.stderr, proc.returncode) == (out, err, status)


@pytest.mark.parametrize("shell", SHELLS)
def test_cd_inside_moves_the_agents_shell(tmp_path, shell):
    world = make_world(tmp_path)
    line = confined_line(world, "cd docs && echo moved", "read")
    proc = run_line(world, shell, line + "\necho \"after=$PWD\"")
    assert proc.stdout == f"moved\nafter={world['work'] / 'docs'}\n", proc.stderr


@pytest.mark.parametrize("shell", SHELLS)
def test_tty_stays_a_tty(tmp_path, shell):
    """stdin/stdout are the agent's own descriptors: a terminal stays a terminal."""
    import pty

    world = make_world(tmp_path)
    line = confined_line(world, "[ -t 0 ] && [ -t 1 ] && echo is-a-tty", "read")
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run([shell, "-c", line], cwd=world["work"], env=world["env"],
                              stdin=follower, stdout=follower, stderr=follower, timeout=60)
        os.close(follower)
        follower = -1
        data = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert proc.returncode == 0 and b"is-a-tty" in data, data


def test_too_long_a_command_is_asked_not_let_through(tmp_path):
    from shellgate.sandbox.enforce import MAX_LINE, CannotConfine

    world = make_world(tmp_path)
    with pytest.raises(CannotConfine):
        confined_line(world, "echo " + "x" * MAX_LINE, "read")


# --- the grant, the switch, the report ------------------------------------------------------

GRANTS = [
    # (mode, command, grant): what Gate.check says an allowed command may do when it runs
    ("balanced", "git log --oneline | head -3", "read"),
    ("accept-edits", "touch notes.txt", "write"),
    ("trust", "python3 -c 'print(1)'", "write"),
    ("trust", "curl -s https://example.com", "network"),
    ("balanced", "touch notes.txt", None),
    ("strict", "rm -rf /", None),
]


@pytest.mark.parametrize("mode,cmd,grant", GRANTS)
def test_verdict_exposes_the_grant(tmp_path, mode, cmd, grant):
    from shellgate import Gate

    world = make_world(tmp_path)
    verdict = Gate(world["work"], mode).check(cmd)
    assert verdict.grant == grant, verdict.reason
    assert verdict.to_json()["grant"] == grant


def _hook(world: dict, cmd: str, env: dict | None = None, mode: str = "default") -> dict:
    payload = {"session_id": "s", "cwd": str(world["work"]), "permission_mode": mode,
               "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": cmd}, "tool_use_id": "t"}
    proc = subprocess.run([EXE, "hook", "claude-code"], input=json.dumps(payload), text=True,
                          capture_output=True, env=env or world["env"], cwd=world["work"],
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hookSpecificOutput"]


def test_enforce_false_keeps_the_plain_allow(tmp_path):
    world = make_world(tmp_path)
    cfg = world["home"] / ".config" / "shellgate" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text("[hooks]\nenforce = false\n")
    hso = _hook(world, "ls")
    assert hso["permissionDecision"] == "allow" and "updatedInput" not in hso


def test_a_project_config_cannot_switch_enforcement_off(tmp_path):
    world = make_world(tmp_path)
    (world["work"] / ".shellgate").mkdir()
    (world["work"] / ".shellgate" / "config.toml").write_text("[hooks]\nenforce = false\n")
    hso = _hook(world, "ls")
    assert hso["permissionDecision"] == "allow" and "updatedInput" in hso


def test_doctor_reports_the_hooks_tier(tmp_path):
    from shellgate.integrations.doctor import enforce_checks

    world = make_world(tmp_path)
    (check,) = enforce_checks(str(world["work"]), None)
    assert check.ok and _tier() in check.detail


def test_explain_hook_shows_the_line(tmp_path):
    world = make_world(tmp_path)
    proc = subprocess.run([EXE, "explain", "--hook", "--cwd", str(world["work"]), "cat README.md"],
                          capture_output=True, text=True, env=world["env"], timeout=60)
    assert "hook: allow — " in proc.stdout and "runs confined (" in proc.stdout, proc.stdout
    assert "--unshare-net" in proc.stdout or "shellgate.sandbox.confine" in proc.stdout


@pytest.mark.parametrize("cmd", ["git log -1", "git diff --stat"])
def test_explain_hook_decides_as_the_claude_code_hook(tmp_path, cmd):
    """A global ``core.pager`` runs only on a terminal, which Claude Code's Bash tool never
    gives: its hook allows ``git log``; plain ``explain`` (any caller, maybe a terminal) asks,
    and ``explain --hook`` shows the hook's own decision, not the plain one."""
    world = make_world(tmp_path)
    (world["home"] / ".gitconfig").write_text("[core]\n\tpager = delta\n")

    def explain(*flags: str) -> str:
        proc = subprocess.run([EXE, "explain", *flags, "--cwd", str(world["work"]), cmd],
                              capture_output=True, text=True, env=world["env"], timeout=60)
        return proc.stdout.splitlines()[0]

    assert explain().startswith("ask"), explain()
    assert _hook(world, cmd)["permissionDecision"] == "allow"
    assert explain("--hook").startswith("allow"), explain("--hook")


def test_the_sandbox_protects_what_the_classifier_calls_an_implant(tmp_path):
    """One table: every implant entry of the classifier with a fixed place in a project is
    read-only in the sandbox, and every path the sandbox protects is an implant to the
    classifier (so a hook's Write tool is refused the same paths)."""
    from shellgate.bash.facts import Context, PathClass, PathOp
    from shellgate.bash.paths.resolve import check_path
    from shellgate.sandbox.locations import PROTECTED_NAMES, build_policy

    world = make_world(tmp_path)
    ws = world["work"]
    (ws / ".claude").mkdir()
    (ws / ".claude" / "settings.json").write_text("{}")
    (ws / "x.code-workspace").write_text("{}")
    pth = ws / ".venv" / "lib" / "python3.11" / "site-packages" / "evil.pth"
    pth.parent.mkdir(parents=True)
    pth.write_text("import os\n")
    policy = build_policy(ws, home=world["home"])
    for p in (ws / ".claude" / "settings.json", ws / "x.code-workspace", pth, ws / ".mcp.json",
              ws / ".husky", ws / ".github" / "workflows", ws / ".git" / "commondir"):
        assert p in policy.readonly, p
    ctx = Context.here(cwd=str(ws), workspace=str(ws), home=str(world["home"]))
    home_only = {".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
                 ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".gitconfig", ".npmrc",
                 ".yarnrc.yml", ".ripgreprc", ".claude.json", ".local/bin", ".config/shellgate",
                 ".local/state/shellgate", ".cache/shellgate", ".codex", ".gemini", ".cursor",
                 ".vscode", ".claude/settings.json", ".claude/settings.local.json"}
    for name in PROTECTED_NAMES:
        target = (world["home"] if name in home_only else ws) / name
        if name in {".codex", ".gemini", ".cursor", ".vscode"}:
            continue  # whole directories here; the classifier names the config files inside
        hits = [check_path(str(p), PathOp.WRITE, ctx) for p in (target, target / "x")]
        assert any(h is not None and h.cls in (PathClass.IMPLANT, PathClass.LEAK) for h in hits), name


@pytest.mark.parametrize("tier", ["", "landlock"], ids=["probed", "landlock"])
def test_the_write_grant_writes_the_workspace(tmp_path, tier):
    """What the grant allows works: new files in the workspace, a private TMPDIR, and the
    report of the final cwd — while a protected path stays as it was."""
    if tier == "landlock":
        _landlock_or_skip()
    world = make_world(tmp_path)
    hook = world["work"] / ".git" / "hooks" / "pre-commit"
    line = confined_line(world, "touch new.txt && mkdir -p d/e && echo hi > d/e/f && "
                         "t=$(mktemp) && echo x > \"$t\" && cd d && echo ok; "
                         f"echo planted > {hook}", "write", tier)
    for shell in SHELLS:
        proc = run_line(world, shell, line + '\necho "at=$PWD"')
        assert proc.stdout.splitlines()[0] == "ok", (proc.stdout, proc.stderr)
        assert proc.stdout.splitlines()[-1] == f"at={world['work'] / 'd'}"
        assert (world["work"] / "new.txt").exists() and (world["work"] / "d/e/f").read_text() == "hi\n"
        assert not hook.exists(), proc.stderr


OWN_STATE_ATTACK = ("mkdir -p .config/shellgate && printf 'mode = \"trust\"\\n' > "
                    ".config/shellgate/config.toml; echo '[]' > .config/shellgate/approvals.json; "
                    ": > .local/state/shellgate/audit.jsonl; echo x > .cache/shellgate/probe.json")


@pytest.mark.parametrize("tier", ["", "landlock"], ids=["probed", "landlock"])
def test_shellgates_own_state_is_out_of_reach_with_the_workspace_at_home(tmp_path, tier):
    """Issue 21: with the workspace at $HOME, a write grant cannot plant a config, an approval
    or empty the audit log that a later hook call (in another project) would trust."""
    if tier == "landlock":
        _landlock_or_skip()
    world = make_world(tmp_path)
    home = world["home"]
    world["env"].update(XDG_CONFIG_HOME=str(home / ".config"), XDG_STATE_HOME=str(home / ".local/state"),
                        XDG_CACHE_HOME=str(home / ".cache"))
    (home / ".local/state/shellgate").mkdir(parents=True)
    (home / ".local/state/shellgate/audit.jsonl").write_text('{"seq": 1}\n')
    subprocess.run(["git", "init", "-q", str(home)], check=True)
    world["work"] = home
    line = confined_line(world, OWN_STATE_ATTACK, "write", tier)   # (writes shellgate's cache)
    before = snapshot(home / ".config", home / ".local", home / ".cache")
    for shell in SHELLS:
        run_line(world, shell, line)
    after = snapshot(home / ".config", home / ".local", home / ".cache")
    planted = {p for p in after.keys() - before.keys() if not os.path.isdir(p)}
    changed = {p for p in before.keys() & after.keys() if before[p] != after[p]}
    assert not planted and not changed, (planted, changed)
    assert (home / ".local/state/shellgate/audit.jsonl").read_text() == '{"seq": 1}\n'


def test_bashtool_in_trust_mode_cannot_write_shellgates_state(tmp_path, monkeypatch):
    from shellgate import BashTool

    home = tmp_path / "home"
    (home / ".local/state/shellgate").mkdir(parents=True)
    (home / ".local/state/shellgate/audit.jsonl").write_text('{"seq": 1}\n')
    subprocess.run(["git", "init", "-q", str(home)], check=True)
    for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_STATE_HOME", ".local/state"),
                     ("XDG_CACHE_HOME", ".cache")):
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.setenv("HOME", str(home))
    with BashTool(home, mode="trust", home=home) as tool:
        tool.run(OWN_STATE_ATTACK)
    assert not (home / ".config/shellgate/config.toml").exists()
    assert not (home / ".config/shellgate/approvals.json").exists()
    assert (home / ".local/state/shellgate/audit.jsonl").read_text().startswith('{"seq": 1}\n')


@pytest.mark.parametrize("tamper", ["planted bwrap", "bad filters", "not json"])
def test_a_remembered_probe_is_never_believed_on_its_word(tmp_path, monkeypatch, tamper):
    """The hook keeps the probe's answer in its cache; a cache naming a program that fails
    the trust check, or one cut short, is probed anew — it neither runs nor breaks the hook."""
    from shellgate.sandbox import enforce

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    real = enforce.hook_tier()
    cache = tmp_path / "cache" / "shellgate" / "probe.json"
    saved = json.loads(cache.read_text())
    marker = tmp_path / "ran"
    fake = tmp_path / "bwrap"
    fake.write_text(f"#!/bin/sh\ntouch {marker}\n")
    fake.chmod(0o755)
    if tamper == "planted bwrap":
        saved.update(tier="bwrap", bwrap=str(fake))
        cache.write_text(json.dumps(saved))
    elif tamper == "bad filters":
        saved["filters"] = ["only-one"]
        cache.write_text(json.dumps(saved))
    else:
        cache.write_text("{not json")
    again = enforce.hook_tier()
    assert again.bwrap == real.bwrap and again.tier == real.tier
    assert again.bwrap != str(fake) and len(again.filters) == 2
    if again.tier.value != "none":
        world = make_world(tmp_path / "w")
        run_line(world, "bash", confined_line(world, "true", "read"))
    assert not marker.exists()


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("cmd", ["printf / >&3; trap - EXIT", "echo a\n}\nprintf / >&3; trap - EXIT",
                                 "cat <<X\nhi\n} 3>&-\nprintf / >&3; trap - EXIT"],
                         ids=["fd3", "stray brace", "heredoc"])
def test_the_command_cannot_choose_where_the_agents_shell_goes(tmp_path, shell, cmd):
    """Only the EXIT trap reports the cwd: the command runs with the report fd closed, however
    it is spelled (a `}` of its own cannot end a wrapper early)."""
    world = make_world(tmp_path)
    proc = run_line(world, shell, confined_line(world, cmd, "read") + '\necho "at=$PWD"')
    assert proc.stdout.splitlines()[-1] == f"at={world['work']}", (proc.stdout, proc.stderr)


SCRUB = load("env_scrub.jsonl")


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
def test_the_line_clears_exactly_the_secret_named_variables(tmp_path, shell, tier):
    """Every name of corpus/env_scrub.jsonl set in the agent's environment (upper, lower and
    mixed case, names no shell can unset like ``MY-TOKEN``): inside, the secret ones are gone
    and the others are still there, in bash and zsh, in either tier."""
    if tier == "landlock":
        _landlock_or_skip()
    world = make_world(tmp_path)
    for i, row in enumerate(SCRUB):   # PATH, HOME … keep their values
        world["env"].setdefault(row["name"], f"value-{i}")
    line = confined_line(world, "env -0", "read", tier)
    proc = subprocess.run([shell, "-c", line], cwd=world["work"], env=world["env"],
                          capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    inside = {item.split(b"=", 1)[0].decode() for item in proc.stdout.split(b"\0") if item}
    kept = {row["name"] for row in SCRUB if not row["secret"]}
    cleared = {row["name"] for row in SCRUB if row["secret"]}
    assert kept <= inside, sorted(kept - inside)
    assert not cleared & inside, sorted(cleared & inside)


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("lc_all", [None, "C.UTF-8", ""])
def test_the_scrub_leaves_the_locale_as_it_was(tmp_path, shell, lc_all):
    """bash's scrub matches in the C locale; the command still sees the agent's LC_ALL, set,
    empty or unset, and exported as it was."""
    world = make_world(tmp_path)
    world["env"].pop("LC_ALL", None)
    if lc_all is not None:
        world["env"]["LC_ALL"] = lc_all
    line = confined_line(world, 'printf "%s|%s" "${LC_ALL-unset}" "$(env | grep -c ^LC_ALL=)"', "read")
    proc = run_line(world, shell, line)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (f"{lc_all}|1" if lc_all is not None else "unset|0")


@pytest.mark.parametrize("case", load("hookspath_escapes.jsonl"),
                         ids=lambda c: f"{c['hooks_path']}:{c['cmd'][:40]}")
def test_the_write_grant_keeps_the_hooks_directory(tmp_path, case, monkeypatch):
    """corpus/hookspath_escapes.jsonl: a hook planted where core.hooksPath points, by a confined
    write-grant line, does not stick: the host's next git status and commit run nothing."""
    from shellgate.sandbox.enforce import CannotConfine, confine_grant

    world = hookspath_world(tmp_path, case)
    monkeypatch.setenv("HOME", str(world["home"]))
    try:
        line = confine_grant(world["cmd"], world["ws"], world["ws"], write=True, network=False).line
    except CannotConfine as exc:
        pytest.skip(f"cannot confine here: {exc}")
    before = hooks_state(world, case)
    subprocess.run(["bash", "-c", line], cwd=world["ws"], capture_output=True, stdin=subprocess.DEVNULL,
                   env={**os.environ, "HOME": str(world["home"])}, check=False)
    assert hooks_state(world, case) == before
    host_git(world)
    assert not world["canary"].exists(), "the host's next git ran a planted hook"


@pytest.mark.parametrize("shell", SHELLS)
def test_what_a_read_rule_names_is_masked_in_the_line(tmp_path, shell):
    """The policy's own ``Read(…)`` deny rules hide what they name in the confined line, as
    the secret table's entries are hidden: a listing the classifier lets through (names are
    not contents) shows nothing there, and a file read the classifier missed would find none."""
    world = make_world(tmp_path)
    private = world["home"] / "private"
    (private / "sub").mkdir(parents=True)
    (private / "sub" / "notes.txt").write_text("CANARY-private\n")
    (world["home"] / "other.txt").write_text("plain\n")
    cfg = world["home"] / ".config" / "shellgate" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('[permissions]\ndeny = ["Read(~/private/**)"]\n')
    assert _hook(world, "cat ~/private/sub/notes.txt")["permissionDecision"] == "deny"
    hso = _hook(world, "ls -R ~/private; cat ~/other.txt")
    assert hso["permissionDecision"] == "allow", hso
    done = run_line(world, shell, hso["updatedInput"]["command"])
    assert done.returncode == 0, done.stderr
    assert "plain" in done.stdout and "notes.txt" not in done.stdout and "sub" not in done.stdout


# Writes the classifier cannot pin to a path (trust allows them: exec is allowed there) that
# reach what an Edit() deny rule names; only the sandbox stands between them and the files.
RULE_WRITES = [
    "truncate -s0 private/db.txt",
    "dd if=/dev/zero of=private/db.txt count=1",
    "python3 -c \"open('private/db.txt', 'w').write('x')\"",
    "find . -name db.txt -delete",
    "ln -sf /etc/hostname private/db.txt",
    "chmod 000 private/db.txt",
    "python3 -c \"open('keys/id.k' + 'ey', 'a').write('x')\"",
]


def _rule_world(tmp_path: Path) -> dict:
    world = make_world(tmp_path)
    for rel in ("private/db.txt", "keys/id.key", "docs/free.txt"):
        (world["work"] / rel).parent.mkdir(exist_ok=True)
        (world["work"] / rel).write_text("kept\n")
    cfg = world["home"] / ".config" / "shellgate" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('[permissions]\ndeny = ["Edit(./private/**)", "Edit(**/*.key)"]\n')
    return world


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("cmd", RULE_WRITES)
def test_what_an_edit_deny_rule_names_is_read_only_in_the_line(tmp_path, shell, cmd):
    """In trust the hook allows a command the classifier cannot tie to the denied files; the
    confined line binds what ``Edit(…)`` deny rules name read-only (a fixed path and a name
    anywhere), so the command runs and the files stay as they were; the rest stays writable."""
    world = _rule_world(tmp_path)
    ws = world["work"]
    before = snapshot(ws / "private", ws / "keys")
    hso = _hook(world, cmd, mode="bypassPermissions")
    assert hso["permissionDecision"] == "allow", hso
    run_line(world, shell, hso["updatedInput"]["command"])
    assert snapshot(ws / "private", ws / "keys") == before, cmd
    assert (ws / "private" / "db.txt").stat().st_mode & 0o777 != 0
    hso = _hook(world, "echo more >> docs/free.txt", mode="bypassPermissions")
    run_line(world, shell, hso["updatedInput"]["command"])
    assert (ws / "docs" / "free.txt").read_text() == "kept\nmore\n"


@pytest.mark.parametrize("cmd", RULE_WRITES)
def test_bashtool_holds_to_edit_deny_rules(tmp_path, monkeypatch, cmd):
    """BashTool's own sandbox binds the same paths read-only (it relied on the classifier)."""
    from shellgate import BashTool

    world = _rule_world(tmp_path)
    ws = world["work"]
    for var in ("HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, world["env"][var])
    before = snapshot(ws / "private", ws / "keys")
    with BashTool(ws, mode="trust", home=world["home"]) as tool:
        res = tool.run(cmd)
        assert res.decision == "allow", res.reason
        assert tool.run("echo more >> docs/free.txt").exit_code == 0
    assert snapshot(ws / "private", ws / "keys") == before, (cmd, res.stderr)
    assert (ws / "docs" / "free.txt").read_text() == "kept\nmore\n"


def test_bashtool_hides_what_a_read_rule_names(tmp_path, monkeypatch):
    """A read the classifier cannot see (a script) finds nothing where a ``Read(…)`` deny rule
    points: BashTool's sandbox hides it, as the hooks' line does."""
    from shellgate import BashTool

    world = make_world(tmp_path)
    private = world["home"] / "private"
    private.mkdir()
    (private / "notes.txt").write_text("CANARY-private\n")
    (world["work"] / "notes.key").write_text("CANARY-anywhere\n")
    cfg = world["home"] / ".config" / "shellgate" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('[permissions]\ndeny = ["Read(~/private/**)", "Read(**/*.key)"]\n')
    for var in ("HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, world["env"][var])
    with BashTool(world["work"], mode="trust", home=world["home"]) as tool:
        res = tool.run("python3 -c \"import glob, os; [print(open(p).read()) for p in "
                       "glob.glob(os.environ['HOME'] + '/pri' + 'vate/*') + glob.glob('*.k' + 'ey')]\"")
    assert res.ran, res.reason
    assert "CANARY" not in res.stdout, res.stdout


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("rule", ["Read(**/*.key)", "Read(./**/*.key)"])
def test_a_read_rule_with_a_deep_glob_hides_only_what_it_names(tmp_path, shell, rule):
    """``Read(**/*.key)`` hid the whole workspace in the confined line (the ``**`` stopped the
    path at the workspace, hidden whole): every allowed command saw an empty directory. Only
    the matching files are hidden now, found by the workspace walk."""
    world = make_world(tmp_path)
    (world["work"] / "docs" / "deploy.key").write_text("CANARY-deep\n")
    cfg = world["home"] / ".config" / "shellgate" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(f'[permissions]\ndeny = ["{rule}"]\n')
    hso = _hook(world, "cat docs/guide.md; ls docs")
    assert hso["permissionDecision"] == "allow", hso
    done = run_line(world, shell, hso["updatedInput"]["command"])
    assert done.stdout.startswith("guide\n") and "deploy.key" in done.stdout, done
    hso = _hook(world, "python3 -c \"print(open('docs/deploy.k' + 'ey').read())\"",
                mode="bypassPermissions")
    done = run_line(world, shell, hso["updatedInput"]["command"])
    assert "CANARY" not in done.stdout


@pytest.mark.parametrize("cmd", RULE_WRITES)
def test_landlock_puts_back_what_an_edit_deny_rule_names(tmp_path, cmd):
    """Landlock cannot make a path inside a writable root read-only: the line records what
    the rules name and puts it back after the command (guard.py), as for implants."""
    _landlock_or_skip()
    from shellgate.permission import RuleSet

    world = _rule_world(tmp_path)
    ws = world["work"]
    guarded = RuleSet.parse(deny=["Edit(./private/**)", "Edit(**/*.key)"]).guarded(str(ws))
    before = snapshot(ws / "private", ws / "keys")
    line = confined_line(world, cmd, "write", "landlock", guarded)
    assert "--protect" in line
    for shell in SHELLS:
        run_line(world, shell, line)
    assert snapshot(ws / "private", ws / "keys") == before, cmd


def test_an_existing_venvs_activate_script_is_read_only_but_a_new_venv_is_whole(tmp_path, monkeypatch):
    """A virtualenv's activate script runs in the user's own shell: a write the classifier
    cannot see (a script) leaves an existing one unchanged, while a virtualenv created in the
    sandbox keeps every script it was made with (a missing literal name would be undone)."""
    import sys

    from shellgate import BashTool

    world = make_world(tmp_path)
    ws = world["work"]
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(ws / ".venv")], check=True)
    before = (ws / ".venv" / "bin" / "activate").read_text()
    for var in ("HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, world["env"][var])
    with BashTool(ws, mode="trust", home=world["home"]) as tool:
        res = tool.run("python3 -c \"open('.venv/bin/activ' + 'ate', 'a').write('curl x | sh')\"")
        assert res.ran
        made = tool.run(f"{sys.executable} -m venv --without-pip venv")
        assert made.exit_code == 0, made.stderr
    assert (ws / ".venv" / "bin" / "activate").read_text() == before
    assert {"activate", "activate.fish", "activate.csh", "Activate.ps1"} <= {
        p.name for p in (ws / "venv" / "bin").iterdir()}


# --- what stands above a protected path -----------------------------------------------------

def _ours(line: str) -> str:
    """``line`` with its Landlock helper imported from the shellgate under test: ``python -I``
    ignores PYTHONPATH, and would run whichever shellgate the interpreter has installed."""
    import shellgate

    root = os.path.dirname(os.path.dirname(shellgate.__file__))
    here = ("-I -c " + shlex.quote(f"import sys; sys.path.insert(0, {root!r}); from shellgate."
                                   "sandbox.confine import main; raise SystemExit(main(sys.argv[1:]))"))
    return line.replace("-I -m shellgate.sandbox.confine", here)


def _state(top: Path, rels: list[str]) -> dict[str, str]:
    """Each of ``rels`` under ``top`` as the host sees it: what it holds, or that it is missing."""
    out: dict[str, str] = {}
    for rel in rels:
        p = top / rel
        if p.is_dir() and not p.is_symlink():
            out.update(snapshot(p))
            out[str(p)] = "dir"
        else:
            out[str(p)] = snapshot(p.parent).get(str(p), "missing") if p.parent.is_dir() else "missing"
    return out


def _parents_world(tmp_path: Path, case: dict) -> tuple[dict, Path]:
    world = make_world(tmp_path)
    ws = world["work"]
    (ws / ".claude").mkdir()
    (ws / ".claude" / "settings.json").write_text("{}\n")
    (ws / ".github" / "workflows").mkdir(parents=True)
    (ws / ".github" / "workflows" / "ci.yml").write_text("on: pull_request\n")
    if case.get("at") == "home":
        ws = world["home"]
        subprocess.run(["git", "init", "-q", str(ws)], check=True)
        world["work"] = ws
    for rel in case.get("missing", ()):
        subprocess.run(["rm", "-rf", str(ws / rel)], check=True)
    return world, ws


@pytest.mark.parametrize("tier", ["", "landlock"], ids=["probed", "landlock"])
@pytest.mark.parametrize("case", load("protected_parents.jsonl"), ids=lambda c: c["cmd"][:50])
def test_no_directory_above_a_protected_path_can_be_swapped(tmp_path, case, tier):
    """corpus/protected_parents.jsonl: a read-only bind protects only what it is mounted on —
    a renamed parent carried it along, and a fresh copy took its place where the host looks.
    Whatever the command does above a protected path, the host finds it as it was, and its
    next git status and commit run nothing that was planted."""
    if tier == "landlock":
        _landlock_or_skip()
    world, ws = _parents_world(tmp_path, case)
    line = _ours(confined_line(world, fill(world, case["cmd"], 0), "write", tier))
    before = _state(ws, case["kept"])   # (building the policy makes shellgate's own dirs)
    proc = run_line(world, "bash", line)
    assert _state(ws, case["kept"]) == before, proc.stderr
    host_git({"ws": ws, "home": world["home"]})
    assert not (world["out"] / "hook-ran").exists(), proc.stderr


@pytest.mark.parametrize("tier", ["", "landlock"], ids=["probed", "landlock"])
@pytest.mark.parametrize("under", ["/tmp", "/var/tmp"])
def test_a_workspace_reached_through_a_symlink_keeps_its_protected_paths(tmp_path, tier, under):
    """The agent's cwd a symlink to the workspace (``…/link``): the writable root was bound as
    the link, the protected paths compared resolved, so none was bound read-only — a new
    hook and a git alias reached the host. Every path is compared resolved now, and the line
    still works from the link: the write lands, the secret is hidden, the ``cd`` is followed."""
    if tier == "landlock":
        _landlock_or_skip()
    world = make_world(tmp_path)
    real = world["work"]
    base = Path(tempfile.mkdtemp(prefix="sg-link-", dir=under))
    try:
        link = base / "link"
        link.symlink_to(real)
        world["work"] = link
        world["env"]["PWD"] = str(link)   # the agent's shell stands in the link
        kept = [".git/hooks", ".git/config", ".envrc"]
        cmd = fill(world, "touch made.txt; printf '#!/bin/sh\\ntouch $OUT/hook-ran\\n' > "
                   ".git/hooks/post-checkout; chmod +x .git/hooks/post-checkout; printf "
                   "'[alias]\\n\\tst = !touch $OUT/hook-ran\\n' >> .git/config; echo evil >> .envrc; "
                   "cat .env; cd docs", 0)
        line = _ours(confined_line(world, cmd, "write", tier))
        before = _state(real, kept)
        proc = run_line(world, "bash", line + '\necho "at=$PWD"')
        assert _state(real, kept) == before, proc.stderr
        assert (real / "made.txt").exists(), proc.stderr
        assert proc.stdout.endswith(f"at={link}/docs\n"), proc
        if tier != "landlock":   # (there the workspace's own secrets are the classifier's: README)
            assert CANARY not in proc.stdout, proc.stdout
        host_git({"ws": real, "home": world["home"]})
        assert not (world["out"] / "hook-ran").exists()
    finally:
        shutil.rmtree(base)


def _git_world(tmp_path: Path) -> tuple[dict, Path]:
    """make_world's workspace with a linked worktree inside it (wt/in) and one beside it (wt2),
    a submodule ``sub`` holding a nested one (``sub/inner``), and two fake git dirs whose hook
    and ``core.fsmonitor`` touch ``$OUT/hook-ran``: ``evil`` (a copy of the main one) and
    ``evilsub`` (of the submodule's)."""
    world = make_world(tmp_path)
    ws, root = world["work"], world["root"]
    git = ["git", "-c", "user.email=t@e", "-c", "user.name=t", "-c", "protocol.file.allow=always"]

    def run(*args: str, cwd: Path) -> None:
        subprocess.run([*git, *args], cwd=cwd, check=True, capture_output=True)

    for name in ("inner", "src"):
        (root / name).mkdir()
        run("init", "-q", cwd=root / name)
        (root / name / "f").write_text(name)
        run("add", "f", cwd=root / name)
        run("commit", "-qm", name, cwd=root / name)
    run("submodule", "add", "-q", str(root / "inner"), "inner", cwd=root / "src")
    run("commit", "-qm", "inner", cwd=root / "src")
    run("submodule", "add", "-q", str(root / "src"), "sub", cwd=ws)
    run("submodule", "update", "--init", "--recursive", "-q", cwd=ws)
    run("commit", "-qm", "sub", cwd=ws)
    run("worktree", "add", "-q", "wt/in", "-b", "in", cwd=ws)
    run("worktree", "add", "-q", str(root / "wt2"), "-b", "wt2", cwd=ws)
    planted = f"#!/bin/sh\ntouch {world['out']}/hook-ran\n"
    monitor = f'[core]\n\tfsmonitor = "touch {world["out"]}/hook-ran; false"\n'
    for fake, source, top in (("evil", ".git", None), ("evilsub", ".git/modules/sub", "../sub")):
        shutil.copytree(ws / source, ws / fake, symlinks=True)
        (ws / fake / "hooks" / "pre-commit").write_text(planted)
        (ws / fake / "hooks" / "pre-commit").chmod(0o755)
        cfg = (ws / fake / "config").read_text()
        cfg = cfg.replace("worktree = ../../../sub", f"worktree = {top}") if top else cfg
        (ws / fake / "config").write_text(cfg + monitor)
    return world, ws


@pytest.mark.parametrize("tier", ["", "landlock"], ids=["probed", "landlock"])
@pytest.mark.parametrize("case", load("git_pointers.jsonl"), ids=lambda c: f"{c['at']}:{c['cmd'][:50]}")
def test_no_pointer_to_a_git_dir_can_be_rewritten(tmp_path, case, tier):
    """corpus/git_pointers.jsonl: a linked worktree's ``commondir`` and ``.git`` file, a
    submodule's ``.git`` file and a nested submodule's hooks and config were writable — a
    rewritten one points the host's next git at a fake git dir whose hook or fsmonitor runs."""
    if tier == "landlock":
        _landlock_or_skip()
    world, ws = _git_world(tmp_path)
    at = ws if case["at"] == "ws" else world["root"] / case["at"]
    world["work"] = at
    cmd = fill(world, case["cmd"], 0).replace("$WS", str(ws))
    line = _ours(confined_line(world, cmd, "write", tier))
    before = _state(at, case["kept"])
    proc = run_line(world, "bash", line)
    assert _state(at, case["kept"]) == before, proc.stderr
    host = {"ws": ws, "wt2": world["root"] / "wt2"}.get(case["in"], ws / case["in"])
    host_git({"ws": host.resolve(), "home": world["home"]})
    assert not (world["out"] / "hook-ran").exists(), proc.stderr


# --- host services' Unix sockets -------------------------------------------------------------

@pytest.fixture
def unix_world(tmp_path):
    """A world whose HOME holds an agent's socket (``~/.1password/agent.sock``), with a
    directory standing for /run (nscd's socket, journald's; under /var/tmp: the line's /tmp
    is its own) and an abstract socket, all listening."""
    world = make_world(tmp_path)
    run = Path(tempfile.mkdtemp(prefix="shellgate-run-", dir="/var/tmp"))
    (world["home"] / ".1password").mkdir()
    (run / "nscd").mkdir()
    paths = {"home": world["home"] / ".1password" / "agent.sock", "run": run / "nscd" / "socket"}
    listeners = UnixListeners(paths, f"shellgate-test-{os.getpid()}-{tmp_path.name}")
    yield world, listeners
    listeners.close()
    shutil.rmtree(run, ignore_errors=True)


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("grant", ["read", "write"])
@pytest.mark.parametrize("tier", ["", "landlock"], ids=["probed", "landlock"])
def test_no_host_unix_socket_is_reached_without_the_network(unix_world, tier, grant, shell):
    """A read-only mount does not stop connect(), and a socket file lies wherever its service
    put it: an agent under HOME (1Password, ssh-agent, gpg-agent), nscd or systemd-resolved
    under /run (which resolve any name from the host: a DNS query out with the network off).
    Without a network grant no Unix socket is made, whatever its path or abstract name."""
    if tier == "landlock":
        _landlock_or_skip()
    world, listeners = unix_world
    line = _ours(confined_line(world, unix_clients(listeners.targets), grant, tier))
    proc = run_line(world, shell, line)
    assert "reached" not in proc.stdout, proc.stdout
    assert listeners.settle() == [], (proc.stdout, proc.stderr)


@pytest.mark.parametrize("tier", ["", "landlock"], ids=["probed", "landlock"])
def test_a_network_grant_still_reaches_a_host_unix_socket(unix_world, tier):
    """The positive control: granted the network, the same command reaches the sockets under
    /run (so the test above can fail) — resolving a name needs nscd or systemd-resolved."""
    if tier == "landlock":
        _landlock_or_skip()
    world, listeners = unix_world
    line = _ours(confined_line(world, unix_clients(listeners.targets), "network", tier))
    proc = run_line(world, "bash", line)
    assert "run" in listeners.settle(), (proc.stdout, proc.stderr)


PAIRS = ("import socket, asyncio\n"
         "a, b = socket.socketpair(); a.send(b'x'); print(b.recv(1))\n"
         "a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET); a.send(b'y'); print(b.recv(1))\n"
         "asyncio.run(asyncio.sleep(0)); print('loop')")


@pytest.mark.parametrize("tier", ["", "landlock"], ids=["probed", "landlock"])
def test_a_connected_pair_still_works_without_the_network(tmp_path, tier):
    """Sockets that reach only each other stay: socketpair() (stream, seqpacket), and with
    it asyncio's event loop, libuv's pipes, the pre-spawned sandbox's control channel."""
    if tier == "landlock":
        _landlock_or_skip()
    world = make_world(tmp_path)
    line = _ours(confined_line(world, f"{shlex.quote(sys.executable)} -c {shlex.quote(PAIRS)}",
                               "read", tier))
    proc = run_line(world, "bash", line)
    assert (proc.returncode, proc.stdout) == (0, "b'x'\nb'y'\nloop\n"), proc.stderr


READERS_OF_RUN = [  # read-only commands whose answers come from /run, /var/log and /proc
    ("who", "who -a"), ("last", "last -n 20"), ("w", "w -h"), ("users", "users"),
    ("findmnt", "findmnt -n -o TARGET,SOURCE,FSTYPE /"), ("lsblk", "lsblk -o NAME,SIZE,TYPE"),
]


@pytest.mark.parametrize("tier", ["", "landlock"], ids=["probed", "landlock"])
@pytest.mark.parametrize("program,cmd", READERS_OF_RUN, ids=[c for c, _ in READERS_OF_RUN])
def test_readers_of_run_answer_as_they_do_unconfined(tmp_path, program, cmd, tier):
    """What a read-only command needs from /run (utmp, the mount table) is files, read as
    before: the refused Unix sockets cost them nothing."""
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    if tier == "landlock":
        _landlock_or_skip()
        if program in ("findmnt", "lsblk"):
            pytest.skip("the Landlock tier hides /proc/self (README): no mount table there")
    world = make_world(tmp_path)
    plain = run_line(world, "bash", cmd)
    confined = run_line(world, "bash", _ours(confined_line(world, cmd, "read", tier)))
    assert (confined.returncode, confined.stdout, confined.stderr) == (
        plain.returncode, plain.stdout, plain.stderr)
