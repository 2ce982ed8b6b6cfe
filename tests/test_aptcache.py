"""apt-cache's queries stay refused (commands/refused.py), for the reason measured here: with a
cache file configured, ``apt-cache policy`` run as root writes pkgcache.bin and srcpkgcache.bin
(a temporary file renamed into place) when they are stale or missing, and run as a user who
cannot write the cache directory it builds them in memory only (O_TMPFILE: no name, nothing
left). The experiment points ``Dir::Cache`` at a directory of its own with ``-o`` (this
machine's apt.conf.d may disable both caches: docker-clean does); the gate reads no apt
configuration, so it cannot tell which case a command meets."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

APT_CACHE = shutil.which("apt-cache")
SETPRIV = shutil.which("setpriv")


def _policy(cache: Path, *runner: str) -> subprocess.CompletedProcess:
    opts = ["-o", f"Dir::Cache={cache}", "-o", "Dir::Cache::pkgcache=pkgcache.bin",
            "-o", "Dir::Cache::srcpkgcache=srcpkgcache.bin"]
    return subprocess.run([*runner, APT_CACHE or "apt-cache", *opts, "policy", "bash"], capture_output=True,
                          timeout=300, stdin=subprocess.DEVNULL, cwd="/")


@pytest.mark.skipif(APT_CACHE is None or os.geteuid() != 0, reason="needs apt-cache, run as root")
def test_root_writes_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    assert _policy(cache).returncode == 0
    assert {p.name for p in cache.iterdir()} == {"pkgcache.bin", "srcpkgcache.bin"}
    a = analyse("apt-cache policy bash", Context(cwd=tmp_path, workspace=tmp_path, home=tmp_path,
                                                  terminal=False))
    assert not a.readonly and any("pkgcache.bin" in r.message and r.span == (0, 9) for r in a.reasons)


@pytest.mark.skipif(APT_CACHE is None or SETPRIV is None or os.geteuid() != 0,
                    reason="needs apt-cache and setpriv, run as root")
def test_a_user_who_cannot_write_builds_it_in_memory(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    tmp_path.chmod(0o755)
    r = _policy(cache, SETPRIV or "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
    assert r.returncode == 0 and b"bash:" in r.stdout, r.stderr
    assert list(cache.iterdir()) == []
