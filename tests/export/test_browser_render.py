"""Open an exported session in real headless Chromium and check what the page shows.

Skipped only when Chromium is missing outside CI; in CI (`CI` set) a missing browser fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from atomic.core.export import markdown_render, write_session_html
from tests.export.html_probe import probe
from tests.export.session_fixture import ACTIVE_LEAF, HEADER, IMG_PAYLOAD, SCRIPT_PAYLOAD, build_entries


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail("chromium is required in CI for the HTML export browser test")
    pytest.skip("chromium is not installed")


def dump_dom(browser: str, page: Path, profile: Path) -> str:
    """The DOM after load and after scripts had time to run (virtual time, no wall-clock wait)."""
    command = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=3000",
        "--dump-dom",
        page.as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "<html" in done.stdout, done.stderr[-2000:]
    return done.stdout


def test_exported_page_in_chromium_shows_text_and_runs_nothing_injected(tmp_path: Path) -> None:
    browser = chromium_path()
    page = tmp_path / "export.html"
    write_session_html(
        page,
        header=HEADER,
        entries=build_entries(),
        leaf_id=ACTIVE_LEAF,
        system_prompt=f"system {SCRIPT_PAYLOAD}",
        tools=[{"name": "bash", "description": IMG_PAYLOAD, "parameters": {"type": "object"}}],
    )
    dom = probe(dump_dom(browser, page, tmp_path / "profile"))

    # The injected script did not run: the title is ours, and the onerror handler left no mark.
    assert dom.title == f"Fix {SCRIPT_PAYLOAD} bug - Atomic session"
    body = dom.tags("body")
    assert body and "data-pwned" not in body[0].attrs
    # No element came from the injected markup: our one script, no images, no handlers.
    assert [s.attrs.get("id") for s in dom.tags("script")] == ["atomic-export-script"]
    assert dom.tags("img") == []
    assert not any(name.startswith("on") for e in dom.elements for name in e.attrs)

    # What a reader sees: the user's text as text, the code block, the tool result and diff.
    text = dom.text
    assert f"Please fix it {SCRIPT_PAYLOAD} and {IMG_PAYLOAD}" in text
    assert "def hello():\n    return '<script>'" in text
    assert f"file-one.txt\n{IMG_PAYLOAD}.txt" in text
    assert "print('<script>new</script>')" in text
    assert "Done. All good." in text
    # Our own small script did run (the CSP hash admits it): the toolbar is revealed.
    toolbar = [e for e in dom.tags("div") if e.attrs.get("id") == "toolbar"]
    assert toolbar and "hidden" not in toolbar[0].attrs


def test_blocks_left_to_the_browser_are_coloured_by_the_page_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    browser = chromium_path()
    # No server-side budget: every code block is left to the page's script.
    monkeypatch.setattr(markdown_render, "HIGHLIGHT_BUDGET_CHARS", 0)
    page = tmp_path / "export.html"
    write_session_html(page, header=HEADER, entries=build_entries(), leaf_id=ACTIVE_LEAF)
    assert 'data-hl="py"' in page.read_text()
    html = dump_dom(browser, page, tmp_path / "profile")
    assert "data-hl=" not in html
    assert '<span class="k">def</span> hello():\n    <span class="k">return</span> <span class="s">\'&lt;script&gt;\'</span>' in html
    # The text a reader sees is unchanged, and the painting added no element but spans.
    dom = probe(html)
    assert "def hello():\n    return '<script>'" in dom.text
    assert [s.attrs.get("id") for s in dom.tags("script")] == ["atomic-export-script"]
