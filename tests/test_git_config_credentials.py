"""A repository's own ``.git/config`` holds credentials where a checkout persisted them
(actions/checkout's ``http.<url>.extraheader``) or a remote URL carries a token. The secret
walk of recursive readers skips ``.git`` but reads that config: ``grep -r basic .`` prints the
token (real grep is the oracle), so it asks; a config without credentials changes nothing, and
the hook sandbox masks the config only where it holds them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context
from shellgate.bash.paths.resolve import leaks_below

TOKEN = "dG9rZW4tY2FuYXJ5"
# (git config arguments, whether the config then holds a credential)
CONFIGS = [
    (["http.https://github.com/.extraheader", f"AUTHORIZATION: basic {TOKEN}"], True),
    (["remote.origin.url", f"https://x-access-token:{TOKEN}@github.com/o/r"], True),
    (["remote.origin.url", f"https://{TOKEN}@github.com/o/r"], True),
    (["remote.origin.url", "ssh://git@github.com/o/r"], False),
    (["remote.origin.url", "https://github.com/o/r"], False),
    (["user.name", "A U Thor"], False),
]
READERS = ["grep -r {needle} .", "grep -rn {needle} --include=config .", "rg --hidden {needle}",
           "grep -rl {needle}"]


def _repo(tmp_path: Path, key: str, value: str) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("print(1)\n")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    subprocess.run(["git", "-C", str(ws), "config", key, value], check=True)
    return ws


@pytest.mark.parametrize(("config", "secret"), CONFIGS, ids=[c[0][0] + "=" + c[0][1][:20] for c in CONFIGS])
@pytest.mark.parametrize("reader", READERS)
def test_a_recursive_read_of_a_repository_sees_its_config(config: list[str], secret: bool, reader: str,
                                                         tmp_path: Path) -> None:
    ws = _repo(tmp_path, *config)
    needle = TOKEN if secret else "print"
    cmd = reader.format(needle=needle)
    if reader.startswith("grep -r "):
        out = subprocess.run(["bash", "-c", cmd], cwd=ws, capture_output=True, text=True, timeout=30).stdout
        assert (TOKEN in out) == secret, "the oracle disagrees with the case"
    a = analyse(cmd, Context(cwd=ws, workspace=ws, home=tmp_path / "home"))
    assert a.readonly is not secret, [r.message for r in a.reasons]
    assert not a.readonly or not a.sensitive


@pytest.mark.parametrize(("config", "secret"), CONFIGS, ids=[c[0][0] + "=" + c[0][1][:20] for c in CONFIGS])
def test_the_sandbox_hides_a_config_with_credentials(config: list[str], secret: bool, tmp_path: Path) -> None:
    ws = _repo(tmp_path, *config)
    hidden, complete = leaks_below(str(ws), str(tmp_path / "home"))
    assert complete and ((str(ws / ".git" / "config") in hidden) == secret), hidden


def test_below_the_repository_nothing_changes(tmp_path: Path) -> None:
    ws = _repo(tmp_path, *CONFIGS[0][0])
    assert analyse("grep -r basic src", Context(cwd=ws, workspace=ws, home=tmp_path / "home")).readonly
