"""`--list-providers [--json]`, `--list-models --provider X --json`, `--refresh-models` (a local server
stands in for models.dev) and `atomic --login` on the terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from atomic.cli import main
from atomic.core.models.catalog import builtin_providers
from tests.logins.standins import GITHUB_TOKEN, StandInServer
from tests.support import LocalHTTPServer

PI_PROVIDERS = [
    "vercel-ai-gateway", "zai", "minimax", "minimax-cn", "moonshotai", "moonshotai-cn", "huggingface",
    "fireworks", "opencode", "kimi-coding", "cloudflare-workers-ai", "cloudflare-ai-gateway",
    "github-copilot", "openai-codex",
]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_list_providers_json_has_the_exact_shape(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZAI_API_KEY", "zk-test")
    rows = run_json(capsys, "--list-providers", "--json")
    by_id = {row["id"]: row for row in rows}
    for row in rows:
        assert list(row) == ["id", "name", "api", "baseUrl", "envVars", "auth", "models", "configured"]
        assert row["auth"] in ("api-key", "oauth", "cloud", "none")
        assert isinstance(row["models"], int) and isinstance(row["configured"], bool)
    for name in [*PI_PROVIDERS, "together", "deepinfra", "nebius", "lmstudio", "llama-cpp", "vllm", "ollama"]:
        assert name in by_id, name
    assert by_id["zai"] == {
        "id": "zai", "name": "Z.AI (GLM Coding Plan)", "api": "openai-completions",
        "baseUrl": "https://api.z.ai/api/coding/paas/v4", "envVars": ["ZAI_API_KEY"], "auth": "api-key",
        "models": by_id["zai"]["models"], "configured": True,
    }
    assert by_id["zai"]["models"] > 0
    assert by_id["github-copilot"]["auth"] == "oauth" and by_id["github-copilot"]["configured"] is False
    assert by_id["openai-codex"]["api"] == "openai-codex-responses"
    assert by_id["vllm"]["auth"] == "none" and by_id["vllm"]["configured"] is False
    assert by_id["cloudflare-workers-ai"]["envVars"] == ["CLOUDFLARE_API_KEY", "CLOUDFLARE_ACCOUNT_ID"]
    assert by_id["anthropic"]["envVars"] == ["ANTHROPIC_API_KEY"]


def test_a_models_json_base_url_and_the_account_id_are_what_is_listed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, agent_dir: Path
) -> None:
    monkeypatch.setenv("CLOUDFLARE_API_KEY", "cf-key")
    by_id = {row["id"]: row for row in run_json(capsys, "--list-providers", "--json")}
    # The key alone is not enough: the address needs the account id.
    assert by_id["cloudflare-workers-ai"]["configured"] is False
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", "acc123")
    (agent_dir / "models.json").write_text(json.dumps({"providers": {
        "vllm": {"baseUrl": "http://gpu-box:8000/v1", "models": [{"id": "Qwen/Qwen3-Coder-30B"}]}}}))
    by_id = {row["id"]: row for row in run_json(capsys, "--list-providers", "--json")}
    assert by_id["cloudflare-workers-ai"]["baseUrl"] == "https://api.cloudflare.com/client/v4/accounts/acc123/ai/v1"
    assert by_id["cloudflare-workers-ai"]["configured"] is True
    assert by_id["cloudflare-ai-gateway"]["configured"] is False  # CLOUDFLARE_GATEWAY_ID is missing
    assert by_id["vllm"] == {**by_id["vllm"], "baseUrl": "http://gpu-box:8000/v1", "models": 1, "configured": True}


def test_list_models_for_one_provider_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    models = run_json(capsys, "--list-models", "--provider", "GitHub-Copilot", "--json")
    assert models and {m["provider"] for m in models} == {"github-copilot"}
    apis = {m["id"]: m["api"] for m in models}
    assert apis["claude-sonnet-4.5"] == "anthropic-messages" and apis["gpt-5.1-codex"] == "openai-responses"
    assert apis["gpt-4.1"] == "openai-completions"
    assert all(m["configured"] is False for m in models)
    only = run_json(capsys, "--list-models", "sonnet", "--provider", "github-copilot", "--json")
    assert only and all("sonnet" in m["id"] for m in only)
    assert main(["--list-models", "--provider", "nope", "--json"]) == 1
    assert "Unknown provider" in capsys.readouterr().err


def test_list_providers_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list-providers"]) == 0
    out = capsys.readouterr().out
    assert "github-copilot" in out and "oauth" in out and "HF_TOKEN" in out


@pytest.fixture
def models_dev() -> Iterator[str]:
    data = {"zai": {"id": "zai", "name": "Z.AI", "env": ["ZHIPU_API_KEY"], "models": {
        "glm-9": {"id": "glm-9", "name": "GLM-9", "reasoning": True, "tool_call": True,
                  "modalities": {"input": ["text"], "output": ["text"]},
                  "limit": {"context": 300000, "output": 64000}, "cost": {"input": 1, "output": 3}},
        "glm-image": {"id": "glm-image", "name": "GLM Image", "tool_call": False,
                      "modalities": {"input": ["text"], "output": ["image"]}, "limit": {"context": 1}},
    }}}
    body = json.dumps(data).encode()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = LocalHTTPServer(Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/api.json"
    httpd.shutdown()
    httpd.server_close()


def test_refresh_models_fetches_into_the_agent_dir_and_is_used_from_then_on(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, agent_dir: Path, models_dev: str
) -> None:
    from atomic.core.models.catalog import reload_catalog

    shipped_anthropic = len(builtin_providers()["anthropic"].models)
    monkeypatch.setenv("ATOMIC_MODELS_DEV_URL", models_dev)
    try:
        assert main(["--refresh-models"]) == 0
        assert "zai 1" in capsys.readouterr().out
        assert (agent_dir / "models-dev-catalog.json").exists()
        models = run_json(capsys, "--list-models", "--provider", "zai", "--json")
        assert [(m["id"], m["contextWindow"], m["maxTokens"]) for m in models] == [("glm-9", 300000, 64000)]
        # Atomic's own providers stay as shipped; one models.dev no longer lists keeps its shipped models.
        assert len(builtin_providers()["anthropic"].models) == shipped_anthropic
        assert builtin_providers()["huggingface"].models
    finally:
        reload_catalog()


def test_refresh_models_reports_an_unreachable_server(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, agent_dir: Path
) -> None:
    monkeypatch.setenv("ATOMIC_MODELS_DEV_URL", "http://127.0.0.1:9/api.json")
    assert main(["--refresh-models"]) == 1
    assert "Could not fetch" in capsys.readouterr().err
    assert not (agent_dir / "models-dev-catalog.json").exists()


def test_login_on_the_command_line_with_the_device_flow(standin: StandInServer, agent_dir: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "atomic", "--login", "github-copilot"], env=dict(os.environ),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert "ABCD-1234" in done.stderr and "https://github.com/login/device" in done.stderr
    assert "Logged in to github-copilot" in done.stdout
    assert GITHUB_TOKEN not in done.stdout + done.stderr
    assert json.loads((agent_dir / "auth.json").read_text())["github-copilot"]["refresh"] == GITHUB_TOKEN


def test_login_on_the_command_line_by_pasting_the_address(
    standin: StandInServer, agent_dir: Path, callback_port: int
) -> None:
    from tests.logins.test_codex_login import authorize

    process = subprocess.Popen([sys.executable, "-m", "atomic", "--login", "openai-codex"], env=dict(os.environ),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None and process.stdin is not None
    url = ""
    while not url:
        line = process.stderr.readline()
        assert line, "the login ended before showing the address"
        url = next((word for word in line.split() if "/oauth/authorize?" in word), "")
    process.stdin.write(authorize(url) + "\n")
    process.stdin.flush()
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "Logged in to openai-codex" in out
    assert json.loads((agent_dir / "auth.json").read_text())["openai-codex"]["type"] == "oauth"
