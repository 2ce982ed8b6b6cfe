"""The throwaway world a fuzzed command runs in: a git workspace, a fake HOME, a scratch /tmp.

The template is built once per oracle; each run works on a copy that is only rebuilt when a
command changed it (the snapshot diff says so), which makes a clean run cost a directory walk
instead of a copy. Every secret file holds a unique canary token, so that a read is visible
both in the trace (the file was opened) and in the output (the token was printed).
"""

from __future__ import annotations

import io
import os
import secrets
import shutil
import subprocess
import tarfile
from pathlib import Path

from .._record import record

# Old, fixed timestamps: git's "racy clean" check never fires, so a settled index stays settled.
_EPOCH = 1_600_000_000

# Workspace files (relative path -> text). Plain project files; `.env` is a canary.
WORKSPACE_FILES: dict[str, str] = {
    "README.md": "# demo\n\nA small project used as a fuzzing fixture.\n",
    "data.txt": "pear\napple\nfig\napple\nbanana\n",
    "data.csv": "name,qty\npear,3\napple,5\nfig,1\n",
    "notes.log": "2024-01-01 start\n2024-01-02 stop\n",
    "src/main.py": "import util\n\nprint(util.greet('world'))\n",
    "src/util.py": "def greet(name):\n    return f'hello {name}'\n",
    "docs/guide.txt": "Step one.\nStep two.\n",
    "my file.txt": "a file name with a space\n",
    "package.json": '{"name": "demo", "version": "1.0.0", "scripts": {"test": "true"}}\n',
    "data.json": '[{"name": "pear", "qty": 3}, {"name": "fig", "qty": 1}]\n',
    ".gitignore": "*.pyc\nbuild/\n.env\n",   # as in real projects: the secret is never committed
}

# Secret files (relative to HOME or, for ".env", to the workspace) whose reads must be caught.
HOME_SECRETS: tuple[str, ...] = (
    ".ssh/id_rsa",
    ".ssh/id_ed25519",
    ".aws/credentials",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".docker/config.json",
    ".kube/config",
    ".config/gcloud/application_default_credentials.json",
)
WORKSPACE_SECRETS: tuple[str, ...] = (".env",)

HOME_FILES: dict[str, str] = {
    ".bashrc": "# fake bashrc\n",
    ".profile": "# fake profile\n",
    ".gitconfig": "[user]\n\tname = Fuzz\n\temail = fuzz@example.invalid\n"
                  "[safe]\n\tdirectory = *\n[init]\n\tdefaultBranch = main\n",
    ".ssh/id_rsa.pub": "ssh-rsa AAAAB3Nza fuzz@example\n",
    ".ssh/known_hosts": "example.invalid ssh-ed25519 AAAAC3Nz\n",
}


@record
class Canary:
    """A secret file and the token only it contains."""

    path: Path
    token: str


@record
class Layout:
    """Where the pieces of one world live. Paths are the same inside and outside the sandbox."""

    root: Path

    @property
    def workspace(self) -> Path:
        return self.root / "ws"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    @property
    def watched(self) -> tuple[Path, ...]:
        """The directories whose every change is a side effect."""
        return (self.workspace, self.home, self.tmp)


def _canary_text(rel: str, token: str) -> str:
    if rel.endswith("id_rsa") or rel.endswith("id_ed25519"):
        return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{token}\n-----END OPENSSH PRIVATE KEY-----\n"
    if rel.endswith(".json"):
        return f'{{"secret": "{token}"}}\n'
    if rel == ".env":
        return f"API_KEY={token}\nDEBUG=0\n"
    return f"secret = {token}\n"


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)


def _age(top: Path) -> None:
    """Give every file and directory the same old timestamp (before the index is written)."""
    for dirpath, dirnames, filenames in os.walk(top):
        for name in (*filenames, *dirnames):
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                os.utime(p, (_EPOCH, _EPOCH))
    os.utime(top, (_EPOCH, _EPOCH))


def _git(ws: Path, *args: str, home: Path) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "GIT_CONFIG_NOSYSTEM": "1", "LANG": "C"}
    subprocess.run(["git", *args], cwd=ws, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def settle_git(ws: Path, home: Path) -> None:
    """Refresh the index's stat cache so that read-only git commands find nothing to rewrite."""
    if (ws / ".git").is_dir() and shutil.which("git"):
        st = os.stat(ws / ".git")
        _git(ws, "update-index", "-q", "--refresh", home=home)
        # Rewriting the index moves .git's times; a command listing the workspace must read the
        # same after any number of restores.
        os.utime(ws / ".git", ns=(st.st_atime_ns, st.st_mtime_ns))


def _archive(path: Path, members: dict[str, str]) -> None:
    """A small tar file, so that listing it is read-only and extracting it is a write."""
    with tarfile.open(path, "w") as tar:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), _EPOCH, 0o644
            tar.addfile(info, io.BytesIO(data))


def build_template(layout: Layout, token_seed: str | None = None) -> tuple[Canary, ...]:
    """Create the template world under ``layout.root``; return its canaries."""
    tag = token_seed or secrets.token_hex(6)
    canaries: list[Canary] = []
    for rel, text in WORKSPACE_FILES.items():
        _write(layout.workspace / rel, text)
    for rel, text in HOME_FILES.items():
        _write(layout.home / rel, text)
    for base, rels in ((layout.home, HOME_SECRETS), (layout.workspace, WORKSPACE_SECRETS)):
        for rel in rels:
            token = f"SGCANARY{tag}{len(canaries):02d}X"
            _write(base / rel, _canary_text(rel, token), 0o600)
            canaries.append(Canary(base / rel, token))
    _archive(layout.workspace / "archive.tar", {"inside.txt": "from the archive\n"})
    layout.tmp.mkdir(parents=True, exist_ok=True)
    (layout.tmp / "scratch.txt").write_text("scratch\n", encoding="utf-8")
    if shutil.which("git"):
        _git(layout.workspace, "init", "-q", "-b", "main", home=layout.home)
        _age(layout.workspace)
        _git(layout.workspace, "add", "-A", home=layout.home)
        _git(layout.workspace, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "initial",
             home=layout.home)
        # A second, untracked-but-ignored and a modified file make status/diff non-trivial.
        _write(layout.workspace / "build" / "out.pyc", "x")
        _write(layout.workspace / "docs" / "guide.txt", WORKSPACE_FILES["docs/guide.txt"] + "Step three.\n")
    for top in layout.watched:
        _age(top)
    settle_git(layout.workspace, layout.home)
    return tuple(canaries)


SYSTEM_LOCALES = Path("/usr/lib/locale")


def locale_archive(dest: Path, localedef: str, system: Path = SYSTEM_LOCALES) -> Path | None:
    """``dest``/usr/lib/locale: the system's compiled locales and an archive of them, to be seen
    as ``/usr/lib/locale`` in the sandbox; None when the system has an archive already (or no
    compiled locale, or ``localedef`` fails).

    Without an archive glibc opens every category of ``LANG`` (C.UTF-8) as a file of its own,
    twice (C.UTF-8, then C.utf8): 24 opens and 12 mmaps in every program, each a ptrace stop
    under the oracle's trace. With one it opens one file. The locale data is the same."""
    if (system / "locale-archive").exists() or not system.is_dir():
        return None
    names = [e.name for e in system.iterdir() if e.is_dir() and not e.is_symlink()]
    if not names:
        return None
    out = dest / "usr" / "lib" / "locale"
    if out.exists():
        remove_tree(out)
    out.mkdir(parents=True)
    for name in names:
        shutil.copytree(system / name, out / name, symlinks=True)
    argv = [localedef, "--prefix", str(dest), "--add-to-archive", *(str(system / n) for n in names)]
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=60, check=False,
                       env={"PATH": "/usr/bin:/bin", "LANG": "C"})
    if p.returncode != 0 or not (out / "locale-archive").is_file():
        return None
    return out


def copy_world(src: Layout, dst: Layout) -> None:
    """Replace ``dst``'s world by a fresh copy of ``src``'s (timestamps kept, index re-settled)."""
    for s, d in zip(src.watched, dst.watched, strict=True):
        if d.exists() or d.is_symlink():
            remove_tree(d)
        shutil.copytree(s, d, symlinks=True)
    settle_git(dst.workspace, dst.home)


def remove_tree(path: Path) -> None:
    """Remove a tree even where a command made it unwritable (chmod 000 dirs and the like)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
        return

    def onerror(func, p, _exc):  # noqa: ANN001 - shutil's callback signature
        try:
            os.chmod(os.path.dirname(p), 0o700)
            os.chmod(p, 0o700)
            func(p)
        except OSError:
            pass

    shutil.rmtree(path, onerror=onerror)
    if path.exists():
        subprocess.run(["rm", "-rf", "--", str(path)], check=False)
