"""Ray as the engine of the two bulk jobs: ``check --jsonl --ray`` and ``fuzz --ray``.

Nothing here is imported unless ``--ray`` is given (the hook and a plain ``check`` never load
Ray). Ray is an optional extra: ``pip install 'shellgate[ray]'``. Every worker process builds
what it needs itself (a :class:`~shellgate.check.Gate`, or a sandboxed fuzz world), so a node
needs shellgate installed, and for fuzzing bwrap and strace (``shellgate doctor --ray``).
"""

from __future__ import annotations

from typing import Any

LOCAL = "local"   # the address meaning "start a Ray instance on this machine for this run"


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster cannot be reached."""


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise RayUnavailable("Ray is not installed: pip install 'shellgate[ray]'") from exc
    return ray


CONNECT_TIMEOUT = 5.0


def _unreachable(address: str) -> str | None:
    """Why ``host:port`` (or ``ray://host:port``) takes no TCP connection within
    ``CONNECT_TIMEOUT``; None when it does or the address names no port (``auto``). Ray
    itself retries an absent head for minutes, so a wrong address would hang the run."""
    hostport = address.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit():
        return None
    import socket

    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)),
                                 timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        return f"no connection to {hostport} ({exc.strerror or exc})"
    return None


class Session:
    """A Ray connection for one run: reuses one already open in this process (a test's, a
    notebook's), else connects to ``address`` (``local``: a new instance here, sized by
    ``num_cpus``) and disconnects at the end."""

    def __init__(self, address: str | None, num_cpus: int | None = None) -> None:
        self.ray = import_ray()
        self._owned = not self.ray.is_initialized()
        if self._owned:
            kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False}
            if address in (None, "", LOCAL):
                kw.update(address="local", num_cpus=num_cpus)
            else:
                kw["address"] = address
                unreachable = _unreachable(address)
                if unreachable:
                    raise RayUnavailable(f"cannot start or reach Ray at {address}: {unreachable}")
            try:
                self.ray.init(**kw)
            except Exception as exc:  # ConnectionError, RuntimeError, ...: all mean "no cluster"
                raise RayUnavailable(f"cannot start or reach Ray at {address or LOCAL}: {exc}") from exc

    def cpus(self) -> int:
        """CPUs the cluster offers now (at least 1)."""
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    def close(self) -> None:
        if self._owned:
            self.ray.shutdown()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
