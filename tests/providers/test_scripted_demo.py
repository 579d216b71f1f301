"""The scripted provider without a script: a demonstration turn over the real engine and tools."""

from __future__ import annotations

from pathlib import Path

from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.engine.session_stats import last_assistant_text
from atomic.core.messages import ToolResultMessage
from atomic.core.providers.scripted import ScriptedProvider
from atomic.core.providers.scripted_demo import LIST_COMMAND, choose_file


async def demo_turn(cwd: Path, text: str = "hello") -> tuple[list[ToolResultMessage], str]:
    session = await create_session(SessionOptions(cwd=cwd, scripted=ScriptedProvider(), no_session=True))
    await session.prompt(text)
    await session.wait_idle()
    results = [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]
    answer = last_assistant_text(session.context_messages()) or ""
    await session.shutdown()
    return results, answer


def test_choose_file_prefers_the_readme_and_never_hidden_files() -> None:
    assert choose_file(".env\nsrc/\nmain.py\nREADME.md\n") == "README.md"
    assert choose_file(".env\n.secrets.json\nsrc/\nnotes.txt\n") == "notes.txt"
    assert choose_file(".env\nsrc/\nimage.png\n") is None


async def test_no_script_lists_the_folder_reads_a_file_and_answers_in_markdown(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("print('hi')\n")
    (tmp_path / ".env").write_text("TOKEN=secret\n")
    results, answer = await demo_turn(tmp_path, "what is here?")
    assert [r.tool_name for r in results] == ["bash", "read"]
    assert not any(r.is_error for r in results)
    assert "main.py" in results[0].content[0].text and ".env" not in results[0].content[0].text
    assert answer.startswith("## What just happened")
    assert "> what is here?" in answer
    assert "```python\nprint('hi')\n```" in answer
    assert "secret" not in answer
    assert "(1 entry shown)" in answer  # ls without -a leaves .env out, so one entry


async def test_a_file_with_its_own_fences_is_quoted_with_a_longer_fence(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Title\n\n```sh\nmake\n```\n")
    _results, answer = await demo_turn(tmp_path)
    assert "````markdown\n# Title\n\n```sh\nmake\n```\n````" in answer


async def test_an_empty_folder_still_gets_an_answer_with_a_code_block(tmp_path: Path) -> None:
    results, answer = await demo_turn(tmp_path)
    assert [r.tool_name for r in results] == ["bash"]
    assert "```python" in answer and "no text file here" in answer


async def test_a_given_script_still_echoes_when_it_runs_out(tmp_path: Path) -> None:
    session = await create_session(SessionOptions(cwd=tmp_path, scripted=ScriptedProvider([]), no_session=True))
    await session.prompt("ping")
    await session.wait_idle()
    assert last_assistant_text(session.context_messages()) == "You said: ping"
    await session.shutdown()


def test_the_listing_command_is_multi_line_and_harmless() -> None:
    assert LIST_COMMAND.count("\n") == 1
    assert all(word in ("pwd", "ls", "-1p", "|", "head", "-n", "20") for word in LIST_COMMAND.split())
