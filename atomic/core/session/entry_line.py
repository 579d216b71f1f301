"""One entry line of a session file: its record (id, parent, type, the raw line and its parsed dict)
and the fast parse of the message entries Atomic and pi write."""

from __future__ import annotations

import json
import json.scanner
import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class EntryRecord:
    id: str
    parent_id: str | None
    type: str
    timestamp: str
    raw: str
    _data: dict[str, Any] | None = field(default=None, repr=False)
    # Where the `message` value starts in `raw` when it is the line's last member (0: unknown);
    # the message's own JSON text is then raw[message_at:-1], sent without re-encoding.
    message_at: int = field(default=0, repr=False)

    @property
    def data(self) -> dict[str, Any]:
        if self._data is None:
            self._data = json.loads(self.raw)
        return self._data

    @property
    def message_json(self) -> str | None:
        """The stored JSON text of this entry's message, when known."""
        return self.raw[self.message_at : -1] if self.message_at else None


# The layout Atomic and pi write message entries in (no escapes in ids and times): the message is
# parsed at its offset, and when only the closing brace follows it, its span in the line is known.
_MESSAGE_PREFIX = re.compile(
    r'\{"type":"message","id":"([^"\\]*)","parentId":(null|"[^"\\]*"),"timestamp":"([^"\\]*)","message":'
)
# typeshed types make_scanner's argument as a make_scanner (its TODO: any object with a decoder's attributes).
_decoder: Any = json.JSONDecoder()
_scan_value = json.scanner.make_scanner(_decoder)


def parse_entry_line(line: str) -> tuple[Any, int]:
    """One entry line: its parsed value, and the offset of its `message` value (0 when unknown).

    ValueError (or RecursionError) when the line is not JSON.
    """
    match = _MESSAGE_PREFIX.match(line)
    if match is not None:
        try:
            message, end = _scan_value(line, match.end())
        except StopIteration:
            raise ValueError(f"invalid JSON at column {match.end() + 1}") from None
        if line[end:] == "}":
            parent = match.group(2)
            data = {
                "type": "message",
                "id": match.group(1),
                "parentId": None if parent == "null" else parent[1:-1],
                "timestamp": match.group(3),
                "message": message,
            }
            return data, match.end()
    return json.loads(line), 0
