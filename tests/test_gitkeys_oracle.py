"""Real git is the oracle for the program-key table (shellgate/bash/git/keys.py).

Each line of corpus/gitkeys_oracle.jsonl sets one key (with whatever it needs) to a program that
touches a canary file, in a real repository built here; every read form of
corpus/git_read_forms.jsonl is then asked of shellgate and, wherever shellgate calls it
read-only, run by real git under a terminal (so pagers run). A form whose run touches the canary
must not have been called read-only: the oracle decides, not a hand-written expectation.

The world: a workspace repository with attributes that name a diff, filter and merge driver,
commits signed three ways (OpenPGP, SSH, X.509 — fake signatures, enough for git to call the
verifier), a signed tag, an alternate object store, a modified work tree and a staged file; a
bare clone inside it (``vendor/lib``, reached with ``-C`` and ``--git-dir``); and for the promisor
lines a bare partial clone (``vendor/partial``) whose missing blobs a read form fetches lazily
from the server it came from. Lines marked ``fires`` are positive controls: real git must touch
the canary somewhere, or the harness would prove nothing.
"""

from __future__ import annotations

import os
import pty
import shlex
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import load

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context
from shellgate.bash.git import keys as gitkeys

GIT = shutil.which("git")
LINES = load("gitkeys_oracle.jsonl")
FORMS = [c["form"] for c in load("git_read_forms.jsonl")]
pytestmark = pytest.mark.skipif(GIT is None, reason="no git")

_CANARY_PROG = '#!/bin/sh\n: > "$SG_CANARY"\nexit 0\n'
_UPLOAD = '#!/bin/sh\n: > "$SG_CANARY"\nexec git upload-pack "$@"\n'
_SSH = '#!/bin/sh\n: > "$SG_CANARY"\nfor a; do last=$a; done\nexec sh -c "$last"\n'
_HOOKS = ("post-index-change", "reference-transaction", "post-checkout", "post-merge", "pre-auto-gc",
          "pre-push", "pre-commit", "fsmonitor-watchman", "push-to-checkout")
_SIGNATURES = {
    "openpgp": "-----BEGIN PGP SIGNATURE-----\n\niQEzBAABCAAdFiEEcanary\n=abcd\n-----END PGP SIGNATURE-----",
    "ssh": "-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQcanary\n-----END SSH SIGNATURE-----",
    "x509": "-----BEGIN SIGNED MESSAGE-----\nMIIcanary\n-----END SIGNED MESSAGE-----",
}
_STAMP = "t <t@example.invalid> 1700000000 +0000"
_ATTRIBUTES = "*.txt diff=drv filter=flt merge=mrg\n"


class World:
    """The repositories, the canary programs and the environment real git runs with."""

    def __init__(self, base: Path) -> None:
        self.base, self.home, self.ws = base, base / "home", base / "ws"
        self.canary, self.server = base / "canary", base / "server.git"
        bin_ = base / "bin"
        self.hooks = base / "tmpl" / "hooks"
        for d in (self.home, bin_, self.hooks):
            d.mkdir(parents=True)
        self.values = {"$PROG": self._script(bin_ / "prog", _CANARY_PROG),
                       "$UPLOAD": self._script(bin_ / "upload", _UPLOAD),
                       "$SSH": self._script(bin_ / "ssh", _SSH),
                       "$HOOKS": str(self.hooks), "$CANARY": str(self.canary),
                       "$SERVER": str(self.server)}
        for name in _HOOKS:
            self._script(self.hooks / name, _CANARY_PROG)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home),
                    "GIT_CONFIG_NOSYSTEM": "1", "SG_CANARY": str(self.canary), "TERM": "xterm",
                    "PAGER": "cat", "LANG": "C", "GIT_TERMINAL_PROMPT": "0",
                    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
                    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
        self._build()

    @staticmethod
    def _script(path: Path, text: str) -> str:
        path.write_text(text)
        path.chmod(0o755)
        return str(path)

    def git(self, *args: str, cwd: Path | None = None, stdin: str | None = None) -> str:
        return subprocess.run([GIT or "git", *args], cwd=cwd or self.ws, env=self.env, check=True,
                              capture_output=True, text=True, input=stdin).stdout.strip()

    def _build(self) -> None:
        ws = self.ws
        self.git("init", "-q", "-b", "main", str(ws), cwd=self.base)
        (ws / ".gitattributes").write_text(_ATTRIBUTES)
        (ws / "a.txt").write_text("hello\nworld\n")
        self.git("add", ".gitattributes", "a.txt")
        self.git("commit", "-qm", "one")
        (ws / "a.txt").write_text("hello\nthere\n")
        self.git("commit", "-qam", "two")
        tree, head = self.git("rev-parse", "HEAD^{tree}"), self.git("rev-parse", "HEAD")
        for kind, sig in _SIGNATURES.items():   # commits git hands to a signature verifier
            body = sig.replace("\n", "\n ")
            raw = (f"tree {tree}\nparent {head}\nauthor {_STAMP}\ncommitter {_STAMP}\ngpgsig {body}\n"
                   f"\nsigned ({kind})\n")
            head = self.git("hash-object", "-t", "commit", "-w", "--stdin", stdin=raw)
        self.git("update-ref", "refs/heads/main", head)
        tag = (f"object {head}\ntype commit\ntag v1\ntagger {_STAMP}\n\nrelease\n"
               f"{_SIGNATURES['openpgp']}\n")
        self.git("update-ref", "refs/tags/v1", self.git("hash-object", "-t", "tag", "-w", "--stdin",
                                                        stdin=tag))
        self.git("init", "-q", "--bare", str(self.server), cwd=self.base)
        for k, v in (("uploadpack.allowFilter", "true"), ("uploadpack.allowAnySHA1InWant", "true")):
            self.git("config", k, v, cwd=self.server)
        self.git("remote", "add", "origin", f"file://{self.server}")
        self.git("push", "-q", "origin", "main", "v1")
        self.git("fetch", "-q", "origin")
        alt = self.base / "alt.git"
        self.git("clone", "-q", "--bare", f"file://{self.server}", str(alt), cwd=self.base)
        lib = ws / "vendor" / "lib"
        self.git("clone", "-q", "--bare", f"file://{self.server}", str(lib), cwd=self.base)
        (lib / "info").mkdir(exist_ok=True)
        (lib / "info" / "attributes").write_text(_ATTRIBUTES)
        for objects in (ws / ".git" / "objects", lib / "objects"):
            (objects / "info" / "alternates").write_text(f"{alt / 'objects'}\n")
        (ws / "a.txt").write_text("hello\nchanged\n")   # a modified work tree
        (ws / "b.txt").write_text("b\n")
        self.git("add", "b.txt")                        # and a staged file

    def partial(self) -> Path:
        """A fresh bare partial clone (no blobs) at vendor/partial: a read form that needs a blob
        fetches it from the server, once."""
        part = self.ws / "vendor" / "partial"
        shutil.rmtree(part, ignore_errors=True)
        self.git("clone", "-q", "--bare", "--filter=blob:none", f"file://{self.server}", str(part),
                 cwd=self.base)
        return part

    def fill(self, text: str) -> str:
        for name, value in self.values.items():
            text = text.replace(name, value)
        return text

    def run_forms(self, commands: list[str]) -> set[int]:
        """Indices of ``commands`` (git command lines, run in the workspace) whose run touched the
        canary, each run alone, all of them under one terminal."""
        results = self.base / "fired"
        results.write_text("")
        lines = [f"rm -f {shlex.quote(str(self.canary))}; {cmd} </dev/null; "
                 f"[ -e {shlex.quote(str(self.canary))} ] && echo {i} >> {shlex.quote(str(results))}"
                 for i, cmd in enumerate(commands)]
        leader, follower = pty.openpty()
        proc = subprocess.Popen(["bash", "-c", "\n".join(lines) + "\ntrue"], cwd=self.ws, env=self.env,
                                stdin=subprocess.DEVNULL, stdout=follower, stderr=follower,
                                start_new_session=True)
        os.close(follower)
        while True:  # drain the terminal until every writer is gone
            try:
                if not os.read(leader, 65536):
                    break
            except OSError:
                break
        proc.wait()
        os.close(leader)
        return {int(n) for n in results.read_text().split()}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(Path(os.path.realpath(tmp_path_factory.mktemp("gitkeys"))))


@pytest.fixture
def configured(world: World, request: pytest.FixtureRequest) -> Iterator[Callable[[dict], list[str]]]:
    """Sets a line's keys in its config files (restored afterwards) and returns the ``-C`` /
    ``--git-dir`` prefixes the forms are run with."""
    saved: list[tuple[Path, bytes | None]] = []

    def apply(line: dict) -> list[str]:
        if line.get("repo") == "partial":
            world.partial()
            prefixes = ["-C vendor/partial ", "--git-dir=vendor/partial "]
            repos = [world.ws / "vendor" / "partial"]
        else:
            prefixes = ["", "-C vendor/lib ", "--git-dir=vendor/lib "]
            repos = [world.ws / ".git", world.ws / "vendor" / "lib"]
        files = [r / "config" for r in repos]
        if line.get("where") == "global":
            files = [world.home / ".gitconfig"]
        for f in files:
            saved.append((f, f.read_bytes() if f.exists() else None))
            for key in line.get("unset", ()):
                world.git("config", "-f", str(f), "--unset-all", key)
            for key, value in line.get("set", ()):
                world.git("config", "-f", str(f), world.fill(key), world.fill(value))
            with f.open("a") as out:   # text git's own writer would spell otherwise
                out.write(world.fill(line.get("raw", "")))
        if "attributes" in line:
            for r in repos:
                f = r / "info" / "attributes"
                saved.append((f, f.read_bytes() if f.exists() else None))
                f.parent.mkdir(exist_ok=True)
                f.write_text(line["attributes"])
        return prefixes

    yield apply
    for f, data in reversed(saved):
        if data is None:
            f.unlink()
        else:
            f.write_bytes(data)


def _readonly(world: World, cmd: str) -> bool:
    ctx = Context(cwd=world.ws, workspace=world.ws, home=world.home)
    return analyse(cmd, ctx).readonly


@pytest.mark.parametrize("line", LINES, ids=lambda c: (" ".join(f"{k}={v}" for k, v in c.get("set", ()))
                                                       + c.get("raw", ""))[:70])
def test_a_form_that_runs_the_program_is_not_readonly(world: World, configured, line: dict) -> None:
    prefixes = configured(line)
    commands = [f"git {p}{form}" for p in prefixes for form in FORMS]
    verdicts = [_readonly(world, c) for c in commands]
    chosen = [i for i, ro in enumerate(verdicts) if ro or line.get("fires")]
    fired = world.run_forms([commands[i] for i in chosen])
    ran_it = [commands[chosen[j]] for j in sorted(fired)]
    called_readonly = [c for c in ran_it if verdicts[commands.index(c)]]
    assert not called_readonly, (
        f"real git ran the program; shellgate calls these read-only: {called_readonly}")
    if line.get("fires"):
        assert ran_it, "positive control: real git never touched the canary (the harness proves nothing)"
    if line.get("inactive"):
        assert any(verdicts[:len(FORMS)]), "a value that runs nothing keeps the read forms read-only"


def test_every_program_key_has_an_oracle_line() -> None:
    covered = {line["table"] for line in LINES}
    assert covered <= {k.name for k in gitkeys.PROGRAM_KEYS}, covered - {k.name for k in gitkeys.PROGRAM_KEYS}
    assert {k.name for k in gitkeys.PROGRAM_KEYS} <= covered, {k.name for k in gitkeys.PROGRAM_KEYS} - covered
