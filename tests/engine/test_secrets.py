"""Keys and secret headers never reach the wire, the session file or an export."""

from __future__ import annotations

import json
from pathlib import Path

from atomic.core.contract import Engine
from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.rpc.wire import state_json

SECRET = "sk-very-secret-value-123"


async def test_model_headers_and_keys_stay_off_the_wire(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "corp": {
                        "baseUrl": "http://127.0.0.1:9/v1",
                        "api": "openai-completions",
                        "apiKey": SECRET,
                        "headers": {"X-Api-Token": SECRET},
                        "models": [{"id": "corp-model"}],
                    }
                }
            }
        )
    )
    session = await create_session(SessionOptions(cwd=tmp_path, provider="corp", model="corp-model"))
    assert session.model is not None and session.models.headers_for(session.model) == {"X-Api-Token": SECRET}
    state = state_json(Engine(session, SessionOptions(cwd=tmp_path)).state(), None)
    wire = json.dumps([state, [m.to_wire() for m in session.models.available_models()]])
    assert SECRET not in wire
    session.files.set_session_name("named")
    assert session.store.path is not None
    assert SECRET not in session.store.path.read_text()
