"""web_fetch approvals: asked per domain in ask, accept-edits and plan modes, "always" saves
`WebFetch(domain:...)` for that host only, and a deny rule holds in yolo."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from atomic.core.messages import ToolResultMessage
from atomic.core.permissions import needs_approval
from atomic.core.permissions.policy import PermissionPolicy
from tests.engine.test_permissions import ScriptedApprover


def fetch(url: str, call_id: str) -> dict[str, Any]:
    return {"toolCalls": [{"name": "web_fetch", "arguments": {"url": url}, "id": call_id}]}


@pytest.mark.parametrize(("mode", "asked"), [("ask", True), ("accept-edits", True), ("plan", True), ("yolo", False)])
def test_the_modes_that_ask(mode: Any, asked: bool) -> None:
    assert needs_approval(mode, "web_fetch", False) is asked


async def test_always_covers_the_domain_and_nothing_else(tmp_path: Path, agent_dir: Path) -> None:
    policy = PermissionPolicy(mode="ask", cwd=tmp_path, agent_dir=agent_dir)
    approver = ScriptedApprover("allow_always", "reject_once", "reject_once")
    policy.approver = approver
    assert await policy.check("1", "web_fetch", {"url": "https://docs.example.org/a"}, False) is None
    assert approver.asked[0].always_rules == ("WebFetch(domain:docs.example.org)",)
    assert approver.asked[0].title == "Fetch https://docs.example.org/a"
    assert await policy.check("2", "web_fetch", {"url": "https://docs.example.org/b?q=1"}, False) is None
    assert len(approver.asked) == 1
    refused = await policy.check("3", "web_fetch", {"url": "https://evil.example.net/x"}, False)
    assert refused is not None and len(approver.asked) == 2
    # A look-alike host is not the approved one.
    assert await policy.check("4", "web_fetch", {"url": "https://docs.example.org.evil.net/"}, False) is not None
    assert len(approver.asked) == 3


async def test_a_deny_rule_holds_in_yolo(make_session: Any, agent_dir: Path) -> None:
    (agent_dir / "settings.json").write_text(json.dumps({"permissions": {"deny": ["WebFetch(domain:example.com)"]}}))
    session, _provider, _recorder = await make_session(
        [fetch("https://api.example.com/secrets", "f1"), {"text": "ok"}], permission_mode="yolo", tools=["web_fetch"]
    )
    await session.prompt("fetch it")
    await session.wait_idle()
    [result] = [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]
    assert result.is_error and "WebFetch(domain:example.com)" in result.content[0].text
