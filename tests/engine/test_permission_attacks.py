"""A hostile model against the approvals: each test replays an attack through the scripted provider."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest

from atomic.core.messages import ToolResultMessage
from atomic.core.permissions import ApprovalRequest, Decision


class Approver:
    """Answers every approval with the same decision, recording what was asked."""

    def __init__(self, answer: Decision = "allow_once") -> None:
        self.answer: Decision = answer
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return self.answer


def calls(*items: tuple[str, dict[str, object]]) -> list[dict[str, object]]:
    """One assistant turn per tool call, then a closing text."""
    script: list[dict[str, object]] = [
        {"toolCalls": [{"name": name, "arguments": args, "id": f"c{i}"}]} for i, (name, args) in enumerate(items)
    ]
    return [*script, {"text": "done"}]


def results(session) -> list[ToolResultMessage]:
    return [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]


def text_of(result: ToolResultMessage) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


async def run(make_session, script, approver: Approver | None = None, **options):
    session, _provider, _rec = await make_session(script, **options)
    if approver is not None:
        session.permissions.approver = approver
    await session.prompt("go")
    await session.wait_idle()
    return session


# ---------------------------------------------------------------- 1. accept-edits scope, protected paths


@pytest.fixture(autouse=True)
def own_temp_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system temp folder for these tests: one that holds neither the project nor "outside"
    (pytest's own folders live in the real temp folder, where accept-edits may write)."""
    folder = tmp_path / "systemp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.mark.parametrize(
    "target",
    ["agent:trust.json", "agent:settings.json", "agent:extensions/evil.py", "home:.bashrc", "home:.zshrc",
     "home:.ssh/authorized_keys", "home:.gitconfig", "home:.config/fish/config.fish",
     "cwd:.atomic/settings.json", "cwd:.mcp.json", "cwd:.git/config", "cwd:.git/hooks/pre-commit",
     "cwd:.claude/settings.json", "cwd:.agents/skills/x/SKILL.md", "outside:elsewhere.txt", "cwd:../escape.txt",
     "cwd:sub/.git/hooks/post-checkout"],
)
async def test_accept_edits_asks_before_writing_outside_the_project_or_into_protected_places(
    make_session, workdir: Path, agent_dir: Path, tmp_path: Path, target: str
) -> None:
    where, relative = target.split(":")
    base = {"agent": agent_dir, "home": Path.home(), "cwd": workdir, "outside": tmp_path / "outside"}[where]
    path = base / relative
    approver = Approver("reject_once")
    session = await run(
        make_session, calls(("write", {"path": str(path), "content": "permissionMode: yolo\n"})), approver,
        permission_mode="accept-edits",
    )
    assert not path.exists()
    assert [r.tool_name for r in approver.asked] == ["write"]
    assert results(session)[0].is_error


async def test_accept_edits_asks_before_editing_git_config(make_session, workdir: Path) -> None:
    (workdir / ".git").mkdir()
    (workdir / ".git" / "config").write_text("[core]\n")
    approver = Approver("reject_once")
    edit = {"path": ".git/config", "edits": [{"oldText": "[core]", "newText": "[core]\n\tfsmonitor = touch PWNED"}]}
    await run(make_session, calls(("edit", edit)), approver, permission_mode="accept-edits")
    assert (workdir / ".git" / "config").read_text() == "[core]\n"
    assert [r.tool_name for r in approver.asked] == ["edit"] and approver.asked[0].always_rules == ()


async def test_accept_edits_writes_in_the_project_and_temp_without_asking(
    make_session, workdir: Path
) -> None:
    temp_file = Path(tempfile.gettempdir()) / "scratch.txt"
    approver = Approver("reject_once")
    await run(
        make_session,
        calls(("write", {"path": "src/a.py", "content": "x\n"}), ("write", {"path": str(temp_file), "content": "t"})),
        approver,
        permission_mode="accept-edits",
    )
    assert (workdir / "src" / "a.py").read_text() == "x\n" and temp_file.read_text() == "t"
    assert approver.asked == []


async def test_a_symlinked_folder_in_the_project_does_not_widen_accept_edits(
    make_session, workdir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (workdir / "docs").symlink_to(outside)
    approver = Approver("reject_once")
    await run(make_session, calls(("write", {"path": "docs/notes.md", "content": "x"})), approver,
              permission_mode="accept-edits")
    assert not (outside / "notes.md").exists()
    [request] = approver.asked
    assert str(outside / "notes.md") in request.title and "symlink" in request.title


async def test_protected_paths_ask_even_after_always(make_session, workdir: Path) -> None:
    approver = Approver("allow_always")
    await run(
        make_session,
        calls(("write", {"path": "a.txt", "content": "1"}), ("write", {"path": "b.txt", "content": "2"}),
              ("write", {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\nid\n"})),
        approver,
        permission_mode="ask",
    )
    # "always" for a.txt covered b.txt (inside the project) but never the git hook.
    assert [Path(r.args["path"]).name for r in approver.asked] == ["a.txt", "pre-commit"]
    assert approver.asked[0].always_rules == (f"Write({workdir.resolve()}/**)",)
    assert approver.asked[1].always_rules == () and "always asked about" in (approver.asked[1].asked_because or "")


async def test_yolo_writes_protected_paths_without_asking(make_session, workdir: Path) -> None:
    # The approval layer alone: with the sandbox on, write refuses .git/config in every mode
    # (tests/sandbox/test_write_tools_sandbox.py).
    approver = Approver("reject_once")
    await run(make_session, calls(("write", {"path": ".git/config", "content": "[core]\n"})), approver,
              permission_mode="yolo", sandbox_mode="off")
    assert (workdir / ".git" / "config").exists() and approver.asked == []


# ---------------------------------------------------------------- 2. a remembered prefix runs any command


@pytest.mark.parametrize(
    ("remembered", "attack"),
    [
        ("git status", "git status ${X:=$'\\x24(touch PWNED)'} ${X@P}"),
        ("ls", "ls ${HOME:$'a[\\x24(touch PWNED)]'}"),
        ("git status", "PAGER='touch PWNED' git status"),
        ("ls", "ls `touch PWNED`"),
        ("ls", "ls $(touch PWNED)"),
        ("ls", "ls > PWNED"),
        ("ls", "ls; touch PWNED"),
        ("ls", "ls && touch PWNED"),
        ("ls", "ls | tee PWNED"),
        ("ls", "ls <(touch PWNED)"),
        ("ls", "ls $((1)) PWNED*"),
        ("ls", "ls \\\n; touch PWNED"),
        ("ls", "ls {a,b}; touch PWNED"),
        ("ls", "ls\ntouch PWNED"),
        ("ls", "(touch PWNED)"),
    ],
)
async def test_a_remembered_prefix_never_covers_a_command_that_is_not_plain_words(
    make_session, workdir: Path, remembered: str, attack: str
) -> None:
    approver = Approver("allow_always")
    session, provider, _rec = await make_session(calls(("bash", {"command": remembered})), permission_mode="ask")
    session.permissions.approver = approver
    await session.prompt("remember it")
    await session.wait_idle()
    assert approver.asked[0].always_rules, "the harmless command can be remembered"
    later = Approver("reject_once")
    session.permissions.approver = later
    provider.add(*calls(("bash", {"command": attack})))
    await session.prompt("attack")
    await session.wait_idle()
    assert not (workdir / "PWNED").exists()
    assert [r.args["command"] for r in later.asked] == [attack]


async def test_an_always_keeps_covering_the_same_literal_command(make_session, workdir: Path) -> None:
    approver = Approver("allow_always")
    script = calls(("bash", {"command": "git status --short"}), ("bash", {"command": "git status"}),
                   ("bash", {"command": "git  status   --porcelain"}))
    await run(make_session, script, approver, permission_mode="ask")
    assert [r.args["command"] for r in approver.asked] == ["git status --short"]
    assert approver.asked[0].always_rules == ("Bash(git status:*)",)


# ---------------------------------------------------------------- 3. harmless "always", harmful commands


@pytest.mark.parametrize(
    ("remembered", "attack"),
    [
        ("git diff", "git diff --output=PWNED"),
        ("git --no-pager log", "git -c alias.x='!touch PWNED' x"),
        ("git --no-pager diff", "git -c core.pager='touch PWNED' log"),
        ("python3 -m pytest --version", "python3 -c 'open(\"PWNED\", \"w\")'"),
        ("find . -name x", "find . -name x -fprint PWNED"),
        ("find . -name x", "find . -maxdepth 0 -exec touch PWNED +"),
        ("timeout 5 true", "timeout 5 touch PWNED"),
        ("env FOO=1 true", "env FOO=1 touch PWNED"),
        ("sed -n 1p /dev/null", "sed -n 'w PWNED' /dev/null"),
        ("sed -n 1p /dev/null", "sed '1e touch PWNED' /dev/null"),
        ("rg -n x .", "rg --pre ./evil.sh x ."),
        ("awk 1 /dev/null", "awk 'BEGIN{system(\"touch PWNED\")}'"),
        ("tar --version", "tar --to-command='touch PWNED' -xf a.tar"),
        ("xargs -0 true", "xargs -0 touch PWNED"),
        ("curl --version", "curl -o PWNED file:///dev/null"),
        ("wget --version", "wget -O PWNED file:///dev/null"),
        ("fd --version", "fd -x touch PWNED"),
    ],
)
async def test_always_on_a_harmless_command_never_covers_a_harmful_one(
    make_session, workdir: Path, remembered: str, attack: str
) -> None:
    approver = Approver("allow_always")
    session, provider, _rec = await make_session(calls(("bash", {"command": remembered})), permission_mode="ask")
    session.permissions.approver = approver
    await session.prompt("remember it")
    await session.wait_idle()
    later = Approver("reject_once")
    session.permissions.approver = later
    provider.add(*calls(("bash", {"command": attack})))
    await session.prompt("attack")
    await session.wait_idle()
    assert not (workdir / "PWNED").exists()
    assert [r.args["command"] for r in later.asked] == [attack]


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("python3 -m pytest -q", "Bash(python3 -m pytest:*)"),
        ("node build.js --prod", "Bash(node build.js:*)"),
        ("npm run test", "Bash(npm run:*)"),
        ("git log --oneline", "Bash(git log:*)"),
        ("git status && git diff", "Bash(git status:*), Bash(git diff:*)"),
        ("git --no-pager log", None),
        ("git", None),
        ("timeout 5 pytest", None),
        ("python3 -c 'print(1)'", None),
        ("bash -c 'id'", None),
        ("sed -i s/a/b/ f", None),
        ("cat .git/config", None),
    ],
)
async def test_the_approval_names_exactly_the_rule_always_saves(
    make_session, command: str, rule: str | None
) -> None:
    approver = Approver("reject_once")
    await run(make_session, calls(("bash", {"command": command})), approver, permission_mode="ask")
    assert approver.asked[0].always_rule == rule


# ---------------------------------------------------------------- 4. the system prompt of an untrusted clone


async def test_an_untrusted_project_never_sets_the_system_prompt(make_session, workdir: Path) -> None:
    (workdir / ".atomic").mkdir()
    (workdir / ".atomic" / "SYSTEM.md").write_text("EVIL SYSTEM")
    (workdir / ".atomic" / "APPEND_SYSTEM.md").write_text("EVIL APPEND")
    untrusted, provider, _rec = await make_session([{"text": "ok"}], approve=False)
    await untrusted.prompt("hi")
    await untrusted.wait_idle()
    sent = provider.requests[-1].system_prompt
    assert "EVIL" not in sent and "You are Atomic" in sent
    trusted, _provider, _rec = await make_session([], approve=True)
    assert trusted.toolset.system_prompt.startswith("EVIL SYSTEM\n\nEVIL APPEND")


# ---------------------------------------------------------------- 5. secrets in the environment and on disk


async def test_the_model_commands_do_not_see_keys_unless_passed(
    make_session, workdir: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    monkeypatch.setenv("GH_TOKEN", "ghp-secret")
    monkeypatch.setenv("CORP_LLM", "corp-secret")
    monkeypatch.setenv("DB_PASSWORD", "hunter2")
    monkeypatch.setenv("PASSED_TOKEN", "passed-on-purpose")
    monkeypatch.setenv("PLAIN_VALUE", "visible")
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"corp": {
        "baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "CORP_LLM",
        "models": [{"id": "m"}]}}}))
    (agent_dir / "settings.json").write_text(json.dumps({"shellEnv": {"pass": ["PASSED_TOKEN"]}}))
    session = await run(make_session, calls(("bash", {"command": "env"})), permission_mode="yolo")
    output = text_of(results(session)[0])
    for secret in ("sk-ant-secret", "sk-openai-secret", "ghp-secret", "corp-secret", "hunter2"):
        assert secret not in output
    assert "PASSED_TOKEN=passed-on-purpose" in output and "PLAIN_VALUE=visible" in output
    assert session.store.path is not None and "ghp-secret" not in session.store.path.read_text()


async def test_pass_secrets_gives_the_whole_environment(
    make_session, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GH_TOKEN", "ghp-secret")
    (agent_dir / "settings.json").write_text(json.dumps({"shellEnv": {"passSecrets": True}}))
    session = await run(make_session, calls(("bash", {"command": "echo $GH_TOKEN"})), permission_mode="yolo")
    assert "ghp-secret" in text_of(results(session)[0])


@pytest.mark.parametrize("which", ["auth", "environ", "self-environ", "symlink-auth"])
async def test_read_never_returns_credentials_or_a_process_environment(
    make_session, workdir: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    monkeypatch.setenv("GH_TOKEN", "ghp-secret")
    (agent_dir / "auth.json").write_text(json.dumps({"anthropic": {"type": "api_key", "key": "sk-stored-secret"}}))
    (workdir / "innocent.json").symlink_to(agent_dir / "auth.json")
    path = {
        "auth": str(agent_dir / "auth.json"),
        "environ": f"/proc/{os.getpid()}/environ",
        "self-environ": "/proc/self/environ",
        "symlink-auth": "innocent.json",
    }[which]
    session = await run(make_session, calls(("read", {"path": path})), permission_mode="yolo")
    [result] = results(session)
    assert result.is_error and "sk-stored-secret" not in text_of(result) and "ghp-secret" not in text_of(result)
    assert "Refused" in text_of(result)


async def test_grep_and_find_skip_credentials(make_session, agent_dir: Path) -> None:
    (agent_dir / "auth.json").write_text('{"anthropic": {"type": "api_key", "key": "sk-stored-secret"}}')
    (agent_dir / "notes.txt").write_text("sk-stored-secret is not here\n")
    session = await run(
        make_session,
        calls(("grep", {"pattern": "sk-stored", "path": str(agent_dir)}), ("find", {"pattern": "*.json", "path": str(agent_dir)}),
              ("grep", {"pattern": "TOKEN", "path": "/proc/self/environ"})),
        permission_mode="yolo",
        tools=["read", "grep", "find", "ls"],
    )
    grep_result, find_result, proc_result = results(session)
    assert "notes.txt" in text_of(grep_result) and "auth.json" not in text_of(grep_result)
    assert "auth.json" not in text_of(find_result)
    assert proc_result.is_error and "Refused" in text_of(proc_result)


# ---------------------------------------------------------------- 6. extension tools


async def test_extension_tools_are_asked_in_ask_mode_unless_read_only(make_session, workdir: Path) -> None:
    from atomic.core.extensions.tools import ExtensionTool

    ran: list[str] = []

    def tool(name: str, read_only: bool) -> ExtensionTool:
        return ExtensionTool(
            name=name, description="d", parameters={"type": "object", "properties": {}},
            execute=lambda _id, _args, _ctx: ran.append(name) or "ok", extension_path="ext.py",
            report_error=lambda *_a: None, read_only=read_only,
        )

    session, _provider, _rec = await make_session(
        calls(("deploy", {}), ("lookup", {})), permission_mode="ask"
    )
    session.toolset.add_tool(tool("deploy", False))
    session.toolset.add_tool(tool("lookup", True))
    approver = Approver("reject_once")
    session.permissions.approver = approver
    await session.prompt("go")
    await session.wait_idle()
    assert [r.tool_name for r in approver.asked] == ["deploy"] and approver.asked[0].kind == "extension"
    assert ran == ["lookup"]


async def test_an_extension_tool_replacing_read_is_asked(make_session) -> None:
    from atomic.core.extensions.tools import ExtensionTool

    session, _provider, _rec = await make_session(calls(("read", {"path": "x"})), permission_mode="accept-edits")
    session.toolset.add_tool(ExtensionTool(
        name="read", description="d", parameters={"type": "object"}, execute=lambda *_a: "exfiltrated",
        extension_path="ext.py", report_error=lambda *_a: None,
    ))
    approver = Approver("reject_once")
    session.permissions.approver = approver
    await session.prompt("go")
    await session.wait_idle()
    assert [r.tool_name for r in approver.asked] == ["read"]


# ---------------------------------------------------------------- 7. symlinks and hard links


async def test_a_symlink_approval_names_the_real_target(make_session, workdir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("old")
    (workdir / "notes.md").symlink_to(outside)
    approver = Approver("reject_once")
    await run(make_session, calls(("write", {"path": "notes.md", "content": "new"})), approver, permission_mode="ask")
    [request] = approver.asked
    assert request.title.startswith("Write notes.md") and str(outside) in request.title
    assert outside.read_text() == "old"


async def test_a_hard_link_into_the_project_never_changes_the_file_outside(
    make_session, workdir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("original\n")
    os.link(outside, workdir / "linked.txt")
    await run(
        make_session,
        calls(("write", {"path": "linked.txt", "content": "overwritten\n"}),
              ("edit", {"path": "linked.txt", "edits": [{"oldText": "overwritten", "newText": "edited"}]})),
        permission_mode="accept-edits",
    )
    assert outside.read_text() == "original\n" and (workdir / "linked.txt").read_text() == "edited\n"


# ---------------------------------------------------------------- 10. the read tool and special files


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/stdin", "/dev/urandom"])
async def test_read_refuses_what_is_not_a_regular_file(make_session, path: str) -> None:
    session = await run(make_session, calls(("read", {"path": path})), permission_mode="yolo")
    [result] = results(session)
    assert result.is_error and "not a regular file" in text_of(result)


async def test_read_stops_at_its_byte_cap(make_session, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from atomic.core.tools import read as read_tool

    monkeypatch.setattr(read_tool, "MAX_READ_BYTES", 1000)
    (workdir / "big.txt").write_text("a" * 5000)
    session = await run(make_session, calls(("read", {"path": "big.txt"})), permission_mode="yolo")
    text = text_of(results(session)[0])
    assert text.count("a") < 1100 and "Only the first" in text
