"""tshark is read-only only while the personal Wireshark directories hold nothing it runs: a Lua
plug-in or init.lua planted there runs under ``tshark -r`` (proved by effect when tshark is
installed), so the gate looks at the Context's home at decision time."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_readers_strace import write_pcap

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

LINE = "tshark -n -r a.pcap -q -z io,phs"
TSHARK = shutil.which("tshark")
PLANTS = [".config/wireshark/init.lua", ".config/wireshark/plugins/x.lua",
          ".local/lib/wireshark/plugins/x.lua", ".wireshark/init.lua", ".wireshark/plugins/x.lua"]


def _ctx(tmp: Path) -> Context:
    (tmp / "home").mkdir(exist_ok=True)
    return Context(cwd=tmp, workspace=tmp, home=tmp / "home")


@pytest.fixture(autouse=True)
def _no_wireshark_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for name in ("WIRESHARK_CONFIG_DIR", "WIRESHARK_DATA_DIR", "WIRESHARK_PLUGIN_DIR",
                 "WIRESHARK_EXTCAP_DIR", "WIRESHARK_RUN_FROM_BUILD_DIRECTORY"):
        monkeypatch.delenv(name, raising=False)


def test_clean_home_is_read_only(tmp_path: Path) -> None:
    a = analyse(LINE, _ctx(tmp_path))
    assert a.readonly, [r.message for r in a.reasons]


@pytest.mark.parametrize("plant", [*PLANTS, ".local/lib/wireshark/extcap/x.sh"])
def test_planted_code_makes_it_not_read_only(plant: str, tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    f = ctx.home / plant
    f.parent.mkdir(parents=True)
    f.write_text("os.exit(0)\n")
    a = analyse(LINE, ctx)
    assert not a.readonly
    assert any("tshark" in r.message and "wireshark" in r.message for r in a.reasons)


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
@pytest.mark.parametrize("plant", PLANTS)
def test_planted_lua_really_runs(plant: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    f = home / plant
    f.parent.mkdir(parents=True)
    proof = tmp_path / "proof"
    f.write_text(f'local f = io.open("{proof}", "w") f:write("ran") f:close()\n')
    write_pcap(tmp_path / "a.pcap")
    env = {k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"}
    subprocess.run(LINE.split(), cwd=tmp_path, capture_output=True, timeout=60,
                   env={**env, "HOME": str(home)})
    assert proof.read_text() == "ran"


def test_environment_redirect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIRESHARK_PLUGIN_DIR", str(tmp_path))
    assert not analyse(LINE, _ctx(tmp_path)).readonly


def test_xdg_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "xdg" / "wireshark").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert not analyse(LINE, _ctx(tmp_path)).readonly


@pytest.mark.parametrize("line", [
    "mkdir -p ~/.config/wireshark/plugins; " + LINE,
    "cp x.lua ~/.local/lib/wireshark/plugins/x.lua && " + LINE,
    "mkdir ~/.local; " + LINE,
])
def test_same_line_write_there(line: str, tmp_path: Path) -> None:
    a = analyse(line, _ctx(tmp_path))
    assert not a.readonly
    assert any(r.message.startswith("tshark: this line writes") for r in a.reasons), \
        [r.message for r in a.reasons]


# TShark 4.0 lists these long options in --help but does not accept them: "unrecognized option",
# and the usage it prints enumerates the capture interfaces, running every extcap program.
_UNRECOGNIZED = ["tshark --read-file=a.pcap", "tshark --read-file a.pcap",
                 "tshark -r a.pcap --display-filter=http", "tshark -r a.pcap -2 --read-filter=http"]


@pytest.mark.parametrize("cmd", _UNRECOGNIZED)
def test_help_only_long_options_are_refused(cmd: str, tmp_path: Path) -> None:
    assert not analyse(cmd, _ctx(tmp_path)).readonly


@pytest.mark.parametrize("cmd", _UNRECOGNIZED)
def test_help_only_long_options_are_unknown_to_tshark(cmd: str, tmp_path: Path) -> None:
    """The oracle: tshark rejects them; without -r first, its usage runs extcap programs."""
    if not TSHARK or not shutil.which("strace"):
        pytest.skip("needs tshark and strace")
    write_pcap(tmp_path / "a.pcap")
    trace = tmp_path / "trace"
    run = subprocess.run(["strace", "-f", "-qq", "-e", "trace=execve", "-o", str(trace), "bash", "-c", cmd],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         stdin=subprocess.DEVNULL, env={**os.environ, "HOME": str(tmp_path)})
    assert "unrecognized option" in run.stderr
    execs = [ln for ln in trace.read_text().splitlines() if "execve(" in ln and "= 0" in ln]
    shells = {shutil.which("bash"), TSHARK, "/usr/bin/bash", "/bin/bash"}
    programs = {ln.split('"')[1] for ln in execs} - shells
    assert bool(programs) == cmd.startswith("tshark --read-file"), programs
