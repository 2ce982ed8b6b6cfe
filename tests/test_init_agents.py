"""``shellgate init`` for today's agents (issue #15): the output is checked against fixtures in
the agents' documented formats (tests/fixtures/init/README.md says where each comes from),
handler keys against each agent's documented field list, the command against the real script,
version detection, ``--serve``, byte-compiling, and doctor's fail-open / stale checks."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from shellgate.integrations import doctor, install, serve
from shellgate.integrations.install import InstallError

FIXTURES = Path(__file__).parent / "fixtures" / "init"
CMD = "/opt/sg/bin/shellgate hook {agent}"

# Documented handler fields (fixtures/init/README.md): nothing else may be written.
FIELDS = {
    ("claude-code", "command"): {"type", "command", "args", "timeout", "async", "asyncRewake",
                                 "shell", "if", "statusMessage", "onFailure"},
    ("claude-code", "http"): {"type", "url", "headers", "allowedEnvVars", "timeout", "if",
                              "statusMessage", "onFailure"},
    ("codex", "command"): {"type", "command", "timeout", "statusMessage"},
    ("gemini", "command"): {"type", "command", "name", "description", "timeout"},
}


def fixture(name: str, **subs: str) -> str:
    text = (FIXTURES / name).read_text()
    for key, value in subs.items():
        text = text.replace(f"@{key.upper()}@", value)
    return text


@pytest.mark.parametrize("agent,rel,name,version", [
    ("claude-code", ".claude/settings.json", "claude-code.settings.json", (2, 1, 302)),
    ("codex", ".codex/hooks.json", "codex.hooks.json", (0, 120, 0)),
    ("gemini", ".gemini/settings.json", "gemini.settings.json", (0, 30, 0)),
])
def test_json_output_matches_the_documented_format(tmp_path, agent, rel, name, version):
    p = install.init(agent, "user", home=tmp_path, command=CMD.format(agent=agent),
                     version=version, compile=False)
    assert p.path == tmp_path / rel
    assert p.path.read_text() == fixture(name, command=CMD.format(agent=agent))
    for _, handler in install.find_handlers(json.loads(p.path.read_text()), agent):
        assert set(handler) <= FIELDS[agent, handler["type"]]


def test_codex_config_toml_matches_the_documented_format(tmp_path):
    codex = tmp_path / ".codex"
    codex.mkdir()
    user_part = 'model = "gpt-5.2-codex"\n\n[features]\nhooks = true\n'
    (codex / "config.toml").write_text(user_part)
    p = install.init("codex", "user", home=tmp_path, command=CMD.format(agent="codex"),
                     version=(0, 153, 3), compile=False)
    assert p.path == codex / "config.toml"
    assert p.path.read_text() == fixture("codex.config.toml", command=CMD.format(agent="codex"))
    data = tomllib.loads(p.path.read_text())
    assert data["model"] == "gpt-5.2-codex" and data["features"] == {"hooks": True}
    [(matcher, handler)] = install.find_handlers(data, "codex")
    assert set(handler) <= FIELDS["codex", "command"]
    assert handler["timeout"] == install.HOOK_TIMEOUT_S
    # idempotent, and an update replaces the block in place
    again = install.init("codex", "user", home=tmp_path, command=CMD.format(agent="codex"),
                         version=(0, 153, 3), compile=False)
    assert not again.changed
    moved = install.init("codex", "user", home=tmp_path, command="/new/shellgate hook codex",
                         version=(0, 153, 3), compile=False)
    assert moved.changed and moved.path.read_text().count("[[hooks.PreToolUse]]") == 1
    assert (codex / "config.toml.shellgate.bak").read_text() == again.after


def test_codex_toml_keeps_other_hooks_and_refuses_what_it_cannot_merge(tmp_path):
    codex = tmp_path / ".codex"
    codex.mkdir()
    other = ('[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n\n[[hooks.PreToolUse.hooks]]\n'
             'type = "command"\ncommand = "/usr/local/bin/other-guard"\n')
    (codex / "config.toml").write_text(other)
    p = install.init("codex", "user", home=tmp_path, command=CMD.format(agent="codex"),
                     version=None, compile=False)
    groups = tomllib.loads(p.after)["hooks"]["PreToolUse"]
    assert [g["hooks"][0]["command"] for g in groups] == ["/usr/local/bin/other-guard",
                                                           CMD.format(agent="codex")]
    (codex / "config.toml").write_text("hooks = { PreToolUse = [] }\n")
    with pytest.raises(InstallError, match="by hand"):
        install.init("codex", "user", home=tmp_path, version=None, compile=False)
    (codex / "config.toml").write_text(other.replace("/usr/local/bin/other-guard",
                                                     "shellgate hook codex"))
    with pytest.raises(InstallError, match="outside"):
        install.init("codex", "user", home=tmp_path, version=None, compile=False)


def test_codex_notes_a_leftover_hooks_json(tmp_path):
    install.init("codex", "user", home=tmp_path, command=CMD.format(agent="codex"),
                 version=(0, 120, 0), compile=False)
    p = install.init("codex", "user", home=tmp_path, command=CMD.format(agent="codex"),
                     version=(0, 124, 0), compile=False)
    assert any("hooks.json also runs shellgate" in n for n in p.notes)


def test_default_command_is_the_real_script_by_absolute_path():
    cmd = shlex.split(install.hook_command("claude-code"))
    exe = cmd[0]
    assert os.path.isabs(exe) and os.access(exe, os.X_OK)
    assert Path(exe).parent == Path(sys.executable).parent or cmd[1:3] == ["-m", "shellgate"]
    assert cmd[-2:] == ["hook", "claude-code"] and install.is_shellgate_handler(
        {"command": shlex.join(cmd)}, "claude-code")


@pytest.mark.parametrize("agent,version,fragment", [
    ("claude-code", (2, 1, 200), "predates onFailure"),
    ("claude-code", (2, 1, 295), "found claude 2.1.295"),
    ("codex", (0, 123, 9), "reads hooks.json"),
    ("codex", None, "gave no version"),
    ("gemini", (0, 26, 0), "hooksConfig"),
    ("gemini", (0, 27, 0), "found gemini 0.27.0"),
])
def test_version_notes(agent, version, fragment):
    assert any(fragment in n for n in install.version_notes(agent, version))


def test_version_detection_reads_the_installed_agent(tmp_path, monkeypatch):
    """A stand-in `claude` on PATH that prints what Claude Code prints."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "claude"
    fake.write_text("#!/bin/sh\necho '2.1.302 (Claude Code)'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    assert install.agent_version("claude-code") == (2, 1, 302)
    assert install.parse_version("codex-cli 0.153.3") == (0, 153, 3)


def test_serve_for_claude_code_runs_the_client_and_replaces_an_http_hook(tmp_path):
    """No http hook any more (it trusts whatever answers on the port): the verifying client,
    as a command hook with onFailure block, in place of one an older init wrote."""
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "http", "url": "http://127.0.0.1:8477/hook/claude-code",
         "headers": {"Authorization": "Bearer t"}, "timeout": 30, "onFailure": "block"}]}]}}))
    p = install.init("claude-code", "user", home=tmp_path, serve="127.0.0.1:8477",
                     version=(2, 1, 302), compile=False)
    [(_, handler)] = install.find_handlers(install.read_settings(p.path), "claude-code",
                                           ("command", "http"))
    assert set(handler) == {"type", "command", "timeout", "onFailure"}
    argv = shlex.split(handler["command"])
    assert argv[1:3] == ["-I", "-S"] and argv[3].endswith("hookclient.py")
    assert argv[4:] == ["claude-code", "--listen", "127.0.0.1:8477"]


def test_serve_needs_a_loopback_address(tmp_path):
    with pytest.raises(serve.ServeError):
        install.init("claude-code", "project", project=tmp_path, serve="0.0.0.0:8477",
                     version=None, compile=False)
    assert not (tmp_path / ".claude").exists()


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_serve_for_command_agents_runs_the_client(tmp_path, agent):
    p = install.init(agent, "user", home=tmp_path, serve="unix:/run/user/1/sg.sock",
                     version=None, compile=False)
    [(_, handler)] = install.find_handlers(install.read_settings(p.path), agent)
    argv = shlex.split(handler["command"])
    assert argv[1:3] == ["-I", "-S"] and argv[3].endswith("hookclient.py")
    assert os.path.isfile(argv[3]) and argv[4:] == [agent, "--listen", "unix:/run/user/1/sg.sock"]


def test_init_byte_compiles_the_package(tmp_path):
    p = install.init("gemini", "user", home=tmp_path, command="x hook gemini", version=None)
    assert any(n.startswith("byte-compiled") for n in p.notes)
    assert install.missing_bytecode() == []


def test_dry_run_writes_and_compiles_nothing(tmp_path):
    p = install.init("claude-code", "user", home=tmp_path, dry_run=True, version=None)
    assert p.changed and not p.path.exists()
    assert not any("byte-compiled" in n for n in p.notes)


# --- doctor ------------------------------------------------------------------------------

def findings(tmp_path):
    return install.health_checks(home=tmp_path, project=tmp_path / "proj",
                                 environ={"HOME": str(tmp_path)})


def test_doctor_flags_a_fail_open_claude_hook(tmp_path):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "shellgate hook claude-code"}]}]}}))
    got = findings(tmp_path)
    assert any(not ok and level == "error" and "fail open" in d for _, ok, d, level in got)
    assert any(not ok and "no explicit timeout" in d for _, ok, d, _ in got)
    assert any(not ok and "through PATH" in d for _, ok, d, _ in got)
    install.init("claude-code", "user", home=tmp_path, version=(2, 1, 302), compile=False)
    got = [f for f in findings(tmp_path) if f[0].startswith("hook")]
    assert got == []


def test_doctor_flags_gemini_hooks_switched_off(tmp_path):
    p = install.init("gemini", "user", home=tmp_path, version=None, compile=False)
    data = json.loads(p.path.read_text())
    p.path.write_text(json.dumps({**data, "hooksConfig": {"enabled": False}}))
    got = findings(tmp_path)
    assert any(not ok and level == "error" and "hooksConfig.enabled is false" in d
               for _, ok, d, level in got)


def test_doctor_flags_a_stale_script_path(tmp_path):
    install.init("gemini", "user", home=tmp_path, command="/old/venv/bin/shellgate hook gemini",
                 version=None, compile=False)
    got = findings(tmp_path)
    assert any(not ok and "not this shellgate" in d for _, ok, d, _ in got)


def test_doctor_flags_an_http_hook(tmp_path):
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "http", "url": "http://127.0.0.1:9/hook/claude-code", "timeout": 30,
         "onFailure": "block"}]}]}}))
    got = findings(tmp_path)
    assert any(not ok and level == "error" and "cannot tell shellgate's server" in d
               for _, ok, d, level in got)


def test_doctor_reports_the_serve_clients_server(tmp_path, monkeypatch):
    import threading

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    install.init("claude-code", "user", home=tmp_path, serve="127.0.0.1:9",
                 version=(2, 1, 302), compile=False)
    assert any(not ok and level == "warn" and "decides in-process" in d
               for _, ok, d, level in findings(tmp_path))
    server = serve.make_server("127.0.0.1:0")
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        port = server.server_address[1]
        install.init("claude-code", "user", home=tmp_path, serve=f"127.0.0.1:{port}",
                     version=(2, 1, 302), compile=False)
        got = findings(tmp_path)
        assert any(ok and "is up and current" in d for _, ok, d, _ in got)
        server.state.code = "older"   # what a server from before an upgrade reports
        got = findings(tmp_path)
        assert any(not ok and "stale" in d for _, ok, d, _ in got)
    finally:
        server.shutdown()
        server.server_close()
        t.join(timeout=30)


def test_doctor_flags_missing_bytecode(tmp_path):
    """A module without bytecode (or with bytecode of another source) counts as missing."""
    import importlib.util

    src = Path(install.__file__)
    pyc = Path(importlib.util.cache_from_source(str(src)))
    install.compile_package()
    pyc.unlink()
    try:
        assert str(src) in install.missing_bytecode()
        report = doctor.run(tmp_path, home=tmp_path, agents=(), self_tests=False)
        [check] = [c for c in report.checks if c.name == "bytecode"]
        assert not check.ok and check.level == "warn"
    finally:
        install.compile_package()
    assert str(src) not in install.missing_bytecode()


def test_cli_init_dry_run_serve(tmp_path):
    exe = Path(sys.executable).with_name("shellgate")
    if not exe.exists():
        pytest.skip("no shellgate script")
    env = dict(os.environ, HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    proc = subprocess.run([str(exe), "init", "claude-code", "--dry-run", "--serve", "--json"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "hookclient.py" in out["diff"] and '"type": "http"' not in out["diff"]
    assert not (tmp_path / ".claude").exists()
    assert not (tmp_path / "cfg" / "shellgate").exists()   # the server makes the key
