"""Bounded capture of one output stream: the first and last bytes, and how much was cut.

Agents need both ends of long output (the command line echoed at the top, the error at the
bottom); the middle of `yes | head -c 50M` is worth a byte count.
"""

from __future__ import annotations


class HeadTail:
    __slots__ = ("head", "tail", "total", "_hmax", "_tmax")

    def __init__(self, head: int, tail: int) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self._hmax = max(0, head)
        self._tmax = max(0, tail)

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self._hmax - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data and self._tmax:
            self.tail += data[-self._tmax:]
            if len(self.tail) > 2 * self._tmax:  # trim lazily: amortised O(1) per byte
                del self.tail[: len(self.tail) - self._tmax]

    @property
    def cut(self) -> int:
        return max(0, self.total - len(self.head) - min(len(self.tail), self._tmax))

    @property
    def truncated(self) -> bool:
        return self.cut > 0

    def render(self) -> str:
        """Decoded text (UTF-8, undecodable bytes replaced), with a note where bytes were cut."""
        tail = bytes(self.tail[-self._tmax:]) if self._tmax else b""
        if not self.truncated:
            return (bytes(self.head) + tail).decode("utf-8", "replace")
        note = f"\n[… {self.cut} bytes cut …]\n"
        return bytes(self.head).decode("utf-8", "replace") + note + tail.decode("utf-8", "replace")
