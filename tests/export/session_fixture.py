"""A realistic session (wire form) for the export tests, with hostile text in every corner."""

from __future__ import annotations

from typing import Any

SCRIPT_PAYLOAD = "<script>document.title='pwned'</script>"
IMG_PAYLOAD = "<img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">"
ABANDONED_TEXT = "THIS-BRANCH-WAS-ABANDONED"
HEADER = {
    "type": "session",
    "version": 3,
    "id": "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
    "timestamp": "2026-12-02T13:32:49.597Z",
    "cwd": "/tmp/proj<b>x</b>",
}


def _entry(entry_id: str, parent: str | None, kind: str, minute: int, **fields: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "id": entry_id,
        "parentId": parent,
        "timestamp": f"2026-12-02T13:{minute:02d}:00.000Z",
        **fields,
    }


def _usage(inp: int, out: int, read: int, write: int, cost: float) -> dict[str, Any]:
    return {
        "input": inp,
        "output": out,
        "cacheRead": read,
        "cacheWrite": write,
        "totalTokens": inp + out + read + write,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost},
    }


def _assistant(content: list[dict[str, Any]], usage: dict[str, Any], stop: str = "stop") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "usage": usage,
        "stopReason": stop,
        "timestamp": 1_700_000_000_000,
    }


EDIT_DIFF = "\n".join(
    [
        "  1 import os",
        "- 2 print('<old>')",
        "+ 2 print('<script>new</script>')",
        "  3 ",
        "    ...",
    ]
)


def build_entries() -> list[dict[str, Any]]:
    """Entries in file order. The active branch ends at `m9`; `x1`..`x2` are an abandoned branch."""
    user_text = f"Please fix it {SCRIPT_PAYLOAD} and {IMG_PAYLOAD}\n\n```html\n{SCRIPT_PAYLOAD}\n```"
    return [
        _entry("e1", None, "model_change", 30, provider="anthropic", modelId="claude-sonnet-4-5"),
        _entry("e2", "e1", "thinking_level_change", 30, thinkingLevel="medium"),
        _entry("m1", "e2", "message", 31, message={"role": "user", "content": user_text, "timestamp": 1}),
        _entry(
            "m2",
            "m1",
            "message",
            32,
            message=_assistant(
                [
                    {"type": "thinking", "thinking": "Let me think about <b>this</b>."},
                    {
                        "type": "text",
                        "text": "Here is **code**:\n\n```python\ndef hello():\n    return '<script>'\n```",
                    },
                    {
                        "type": "toolCall",
                        "id": "call-bash",
                        "name": "bash",
                        "arguments": {"command": "ls <dir>"},
                    },
                ],
                _usage(100, 20, 1000, 50, 0.0125),
                "toolUse",
            ),
        ),
        _entry(
            "m3",
            "m2",
            "message",
            33,
            message={
                "role": "toolResult",
                "toolCallId": "call-bash",
                "toolName": "bash",
                "content": [{"type": "text", "text": f"file-one.txt\n{IMG_PAYLOAD}.txt"}],
                "isError": False,
                "timestamp": 2,
            },
        ),
        # An abandoned branch from m3: the user went back and tried something else.
        _entry(
            "x1", "m3", "message", 34, message={"role": "user", "content": ABANDONED_TEXT, "timestamp": 3}
        ),
        _entry(
            "x2",
            "x1",
            "message",
            35,
            message=_assistant([{"type": "text", "text": ABANDONED_TEXT}], _usage(5000, 5000, 0, 0, 9.5)),
        ),
        _entry(
            "m4",
            "m3",
            "message",
            36,
            message=_assistant(
                [
                    {
                        "type": "toolCall",
                        "id": "call-edit",
                        "name": "edit",
                        "arguments": {
                            "path": "src/<evil>.py",
                            "edits": [{"oldText": "a", "newText": "b"}],
                        },
                    }
                ],
                _usage(200, 30, 2000, 0, 0.02),
                "toolUse",
            ),
        ),
        _entry(
            "m5",
            "m4",
            "message",
            37,
            message={
                "role": "toolResult",
                "toolCallId": "call-edit",
                "toolName": "edit",
                "content": [{"type": "text", "text": "Successfully replaced 1 block(s) in src/<evil>.py."}],
                "details": {"diff": EDIT_DIFF, "firstChangedLine": 2},
                "isError": False,
                "timestamp": 4,
            },
        ),
        _entry(
            "m6",
            "m5",
            "message",
            38,
            message={
                "role": "bashExecution",
                "command": "echo '<script>x</script>'",
                "output": "<script>x</script>\n",
                "exitCode": 3,
                "cancelled": False,
                "truncated": False,
                "fullOutputPath": None,
                "timestamp": 5,
            },
        ),
        _entry("e3", "m6", "model_change", 39, provider="openai", modelId="gpt-5<i>"),
        _entry(
            "m7",
            "e3",
            "message",
            40,
            message={
                **_assistant([{"type": "text", "text": "Done. All good."}], _usage(300, 40, 0, 10, 0.03)),
                "provider": "openai",
                "model": "gpt-5<i>",
            },
        ),
        _entry("l1", "m7", "label", 41, targetId="m7", label="<u>checkpoint</u>"),
        _entry("s1", "l1", "session_info", 41, name=f"Fix {SCRIPT_PAYLOAD} bug"),
        _entry("m8", "s1", "message", 42, message={"role": "user", "content": "thanks", "timestamp": 6}),
        _entry(
            "m9",
            "m8",
            "message",
            43,
            message={
                **_assistant([], _usage(1, 0, 0, 0, 0.0), "error"),
                "errorMessage": "overloaded <again>",
            },
        ),
    ]


ACTIVE_LEAF = "m9"
# Sums over the active branch (m2, m4, m7, m9); the abandoned x2 must not count.
EXPECTED_INPUT = 100 + 200 + 300 + 1
EXPECTED_OUTPUT = 20 + 30 + 40
EXPECTED_CACHE_READ = 1000 + 2000
EXPECTED_CACHE_WRITE = 50 + 10
EXPECTED_COST = 0.0125 + 0.02 + 0.03
