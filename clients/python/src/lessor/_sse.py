"""Server-Sent Events as an EventSource reads them (the WHATWG HTML standard, "Parsing an event
stream"), for the streams lessor answers: a lease's log and its events (docs/agent.md, docs/events.md).

The parser is pure: bytes in, frames out, so the sync and async clients share it, and a frame
split across reads, a CRLF split between two, or a character split between two, is read whole.
httpx's own ``iter_lines`` is not used: it also splits on the line separators of
``str.splitlines`` (U+2028, form feed...), which an event stream's data may hold.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass


@dataclass(frozen=True)
class Frame:
    """One dispatched event: its ``id:`` (the last one seen, as EventSource keeps it), ``event:`` and ``data:``."""

    id: str | None
    event: str
    data: str


class SseParser:
    """Feeds an event stream's bytes; answers the frames each feed completes.

    A frame without ``data:`` (a ``retry:``, a ``: keep-alive`` comment) dispatches nothing;
    ``data:`` lines join with LF. What is left when the stream ends without a blank line is not
    a frame (the standard drops it).
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self._after_cr = False
        self._data: list[str] = []
        self._event = "message"
        self._id: str | None = None

    def feed(self, chunk: bytes) -> list[Frame]:
        text = self._buffer + self._decoder.decode(chunk)
        if self._after_cr and text:
            # The LF of a CRLF whose CR ended the last read: that line has ended already.
            text = text[1:] if text.startswith("\n") else text
            self._after_cr = False
        frames: list[Frame] = []
        start = 0
        while True:
            cr = text.find("\r", start)
            lf = text.find("\n", start)
            if cr < 0 and lf < 0:
                break
            end = lf if cr < 0 or 0 <= lf < cr else cr
            frame = self._line(text[start:end])
            if frame is not None:
                frames.append(frame)
            if text.startswith("\r\n", end):
                start = end + 2
            else:
                start = end + 1
                self._after_cr = text[end] == "\r" and start == len(text)
        self._buffer = text[start:]
        return frames

    def _line(self, line: str) -> Frame | None:
        if line == "":
            frame = Frame(self._id, self._event, "\n".join(self._data)) if self._data else None
            self._data = []
            self._event = "message"
            return frame
        if line.startswith(":"):
            return None
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "id" and "\0" not in value:
            self._id = value
        return None
