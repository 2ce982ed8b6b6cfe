"""One local Ray instance per test module (Ray takes seconds to start on two cores).

The workers inherit the environment of the moment Ray starts: the XDG directories are pointed
at an empty place first, so that no worker reads the real user's shellgate config (the
function-scoped ``_private_xdg`` fixture comes too late for them).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        pytest.skip("Ray is not installed (pip install 'shellgate[ray]'): the Ray path is not tested",
                    allow_module_level=True)
    return ray


@contextmanager
def local_ray(base: Path, num_cpus: int = 2) -> Iterator[Any]:
    ray = import_ray()
    saved = {k: os.environ.get(k) for k in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")}
    for var in saved:
        (base / var).mkdir(parents=True, exist_ok=True)
        os.environ[var] = str(base / var)
    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    try:
        yield ray
    finally:
        ray.shutdown()
        for var, value in saved.items():
            if value is None:
                os.environ.pop(var, None)
            else:
                os.environ[var] = value
