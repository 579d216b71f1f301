"""Fixtures for the RPC conformance suite: a temp cwd, the env, and a scripted `atomic --mode rpc`."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.rpc.helpers import RecordingClient

StartRpc = Callable[..., Awaitable[RecordingClient]]


@pytest.fixture
def work_dir(tmp_path: Path) -> Path:
    """The agent's working directory (kept apart from the script and export files)."""
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def rpc_env(isolated_home: Path) -> dict[str, str]:
    """The subprocess environment: os.environ already points HOME and the agent dir at temp folders."""
    env = dict(os.environ)
    env["ATOMIC_CODING_AGENT_DIR"] = str(isolated_home)
    env["ATOMIC_TEST"] = "1"
    env.pop("ATOMIC_SCRIPT", None)
    return env


@pytest.fixture
async def start_rpc(
    work_dir: Path, rpc_env: dict[str, str], write_script: Callable[[list[dict[str, Any]]], Path]
) -> AsyncIterator[StartRpc]:
    """Start `atomic --mode rpc --provider scripted` with a script; every client is closed at the end."""
    clients: list[RecordingClient] = []

    async def start(
        script: list[dict[str, Any]] | None = None,
        *extra_args: str,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> RecordingClient:
        run_env = dict(env or rpc_env)
        run_env["ATOMIC_SCRIPT"] = str(write_script(script or []))
        client = RecordingClient(["--provider", "scripted", *extra_args], cwd=cwd or work_dir, env=run_env)
        clients.append(client)
        await client.start()
        return client

    yield start
    for client in clients:
        await client.close()
