"""A stored login is removed by RPC `logout_provider`, and its tokens never reach the protocol, the
session file or a repr."""

from __future__ import annotations

import json
import time
from pathlib import Path

from atomic.core.auth import AuthStorage
from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from tests.logins.standins import StandInServer
from tests.logins.test_copilot_login import COPILOT_MODELS
from tests.logins.test_copilot_requests import store_login
from tests.rpc.inprocess import InProcessRpc


async def test_logout_provider_removes_the_login_and_no_token_is_ever_shown(
    standin: StandInServer, agent_dir: Path, workdir: Path
) -> None:
    store_login(agent_dir, standin, expires=int(time.time() * 1000) - 1, models=COPILOT_MODELS)
    (agent_dir / "auth.json").write_text(json.dumps({
        **json.loads((agent_dir / "auth.json").read_text()),
        "anthropic": {"type": "api_key", "key": "sk-ant-keep-me"},
    }))
    options = SessionOptions(cwd=workdir, provider="github-copilot", model="gpt-4.1")
    session = await create_session(options)
    rpc = InProcessRpc(session, options)
    try:
        await rpc.send('{"id":"p","type":"prompt","message":"hi"}')
        await rpc.send('{"id":"s","type":"get_state"}', '{"id":"m","type":"get_available_models"}',
                       '{"id":"x","type":"export_html"}')
        await rpc.send('{"id":"o","type":"logout_provider","provider":"github-copilot"}')
        out = rpc.stdout.getvalue().decode()
        session_file = Path(session.store.path).read_text() if session.store.path else ""
    finally:
        await rpc.close()
        await session.shutdown()
    logout = next(r for r in rpc.responses() if r.get("id") == "o")
    assert logout["success"] is True and logout["data"]["authStatus"] == {"configured": False}
    assert all(m["provider"] != "github-copilot" for m in logout["data"]["models"])
    stored = json.loads((agent_dir / "auth.json").read_text())
    assert "github-copilot" not in stored and stored["anthropic"]["key"] == "sk-ant-keep-me"
    for secret in ("gho_standin_github_token", standin.state.copilot_token(), "old-copilot-token"):
        assert secret not in out and secret not in session_file
        exports = list(workdir.glob("*.html"))
        assert all(secret not in page.read_text() for page in exports)


def test_the_auth_storage_repr_names_providers_only(agent_dir: Path) -> None:
    auth = AuthStorage(agent_dir)
    auth.set_oauth("openai-codex", {"access": "tok-access", "refresh": "tok-refresh", "expires": 1})
    text = repr(auth) + str(auth)
    assert "openai-codex" in text and "tok-" not in text
