"""rpc/wire.py: each contract record becomes the protocol's camelCase JSON, keys in protocol order."""

from __future__ import annotations

from pathlib import Path

from atomic.core.contract import (
    CommandInfo,
    ContextUsage,
    QueueSnapshot,
    SessionStats,
    SkippedResources,
    TokenTotals,
    TrustStatus,
)
from atomic.rpc import wire


def _trust(skipped: tuple[SkippedResources, ...] | None, how: str | None) -> TrustStatus:
    return TrustStatus(
        trusted=False, source="undecided", cwd=Path("/p"), decided_by=None, undecided=True,
        description="not trusted", skipped=skipped, how_to_trust=how,
    )


def test_extension_commands_omit_an_empty_description_and_have_no_location() -> None:
    extension = CommandInfo(name="hello", description="", source="extension", path="/x/ext.py")
    template = CommandInfo(name="review", description="Review", source="prompt", path="/p/review.md", location="user")
    assert wire.command_json(extension) == {"name": "hello", "source": "extension", "path": "/x/ext.py"}
    assert list(wire.command_json(template)) == ["name", "description", "source", "location", "path"]


def test_trust_carries_skipped_only_when_asked() -> None:
    assert wire.trust_json(_trust(None, None)) == {"trusted": False, "source": "undecided", "cwd": "/p"}
    asked = wire.trust_json(_trust((SkippedResources("skills", ("a",)),), "run /trust"))
    assert asked["skipped"] == [{"kind": "skills", "items": ["a"]}] and asked["howToTrust"] == "run /trust"


def test_stats_tokens_total_and_optional_fields() -> None:
    stats = SessionStats(
        session_id="s", session_file=None, user_messages=1, assistant_messages=1, tool_calls=0, tool_results=0,
        total_messages=2, tokens=TokenTotals(input=3, output=4, cache_read=5, cache_write=6), cost=0.5,
        context_usage=ContextUsage(tokens=None, context_window=1000, percent=None),
    )
    data = wire.stats_json(stats)
    assert data["tokens"] == {"input": 3, "output": 4, "cacheRead": 5, "cacheWrite": 6, "total": 18}
    assert "sessionFile" not in data
    assert data["contextUsage"] == {"tokens": None, "contextWindow": 1000, "percent": None}


def test_queue_uses_the_protocols_follow_up_spelling() -> None:
    assert wire.queue_json(QueueSnapshot(("a",), ("b", "c"))) == {"steering": ["a"], "followUp": ["b", "c"]}
