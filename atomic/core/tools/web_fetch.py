"""The `web_fetch` tool: one web page, as Markdown, for the model to read.

A plain GET over http(s): no cookies, no stored credentials (netrc, proxies from the environment and
the user's keys are never used), a timeout, a size limit, at most a few redirects, each one named
when it changes the host. HTML becomes Markdown (markdownify over BeautifulSoup, imported on first use and
run off the event loop); other text comes as it is; binary content is refused. The result is truncated like
`read` output, the whole text kept in the session's temp folder.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from atomic.core.temp_output import SpillFile
from atomic.core.tools.base import Tool, ToolContext, ToolError, ToolOutput
from atomic.core.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head

WEB_FETCH_TOOL = "web_fetch"
MAX_DOWNLOAD_BYTES = 5 * 1024 * 1024
MAX_REDIRECTS = 5
TIMEOUT_S = 30.0
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript", "application/xhtml")
_USER_AGENT = "Atomic-web_fetch/1 (a coding agent reading one page for its user)"


@dataclass
class FetchedPage:
    url: str  # where the content came from, after redirects
    status: int
    content_type: str
    body: bytes
    redirects: list[tuple[str, str]]  # (from, to) for each redirect that changed the host
    cut: bool  # the body passed MAX_DOWNLOAD_BYTES


def domain_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def _check_url(url: str) -> str:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ToolError(f"web_fetch takes an http or https URL, not {url!r}")
    if parts.username or parts.password:
        raise ToolError("web_fetch never sends credentials: remove the user and password from the URL")
    return url.strip()


async def fetch_page(url: str, *, timeout_s: float = TIMEOUT_S, max_bytes: int = MAX_DOWNLOAD_BYTES) -> FetchedPage:
    import httpx2

    redirects: list[tuple[str, str]] = []
    # trust_env=False: no netrc credentials and no proxy settings are picked up from the user's files.
    async with httpx2.AsyncClient(
        timeout=httpx2.Timeout(timeout_s), follow_redirects=False, trust_env=False,
        headers={"User-Agent": _USER_AGENT, "Accept": "text/html,text/*;q=0.9,*/*;q=0.5"},
    ) as client:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            async with client.stream("GET", current) as response:
                location = response.headers.get("location")
                if response.status_code in (301, 302, 303, 307, 308) and location:
                    target = _check_url(urljoin(current, location))
                    if domain_of(target) != domain_of(current):
                        redirects.append((current, target))
                    current = target
                    continue
                body = bytearray()
                cut = False
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > max_bytes:
                        del body[max_bytes:]
                        cut = True
                        break
                return FetchedPage(current, response.status_code, response.headers.get("content-type", ""),
                                   bytes(body), redirects, cut)
    raise ToolError(f"More than {MAX_REDIRECTS} redirects from {url}")


def _is_text(content_type: str, body: bytes) -> bool:
    kind = content_type.split(";")[0].strip().lower()
    if kind:
        return kind.startswith(_TEXT_TYPES) or kind.endswith(("+xml", "+json"))
    return b"\x00" not in body[:4096]


def _charset(content_type: str) -> str:
    for part in content_type.split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip('"')
    return "utf-8"


def page_text(page: FetchedPage) -> str:
    """The page as the model reads it: Markdown for HTML, the text itself otherwise."""
    try:
        text = page.body.decode(_charset(page.content_type), errors="replace")
    except LookupError:
        text = page.body.decode("utf-8", errors="replace")
    kind = page.content_type.split(";")[0].strip().lower()
    if kind in ("text/html", "application/xhtml+xml") or (not kind and "<html" in text[:2000].lower()):
        from bs4 import BeautifulSoup
        from markdownify import MarkdownConverter

        soup = BeautifulSoup(text, "html.parser")
        # Code and styling the page runs, not text a reader sees.
        for hidden in soup(["script", "style", "noscript", "iframe", "svg", "template"]):
            hidden.decompose()
        text = MarkdownConverter(heading_style="ATX").convert_soup(soup)
        # markdownify leaves runs of blank lines where layout elements were.
        lines = [line.rstrip() for line in text.splitlines()]
        text = "\n".join(line for i, line in enumerate(lines) if line or (i and lines[i - 1]))
    return text.strip()


class WebFetchTool(Tool):
    name = WEB_FETCH_TOOL
    label = "web fetch"
    description = (
        "Fetch one web page (http or https GET) and read it as Markdown. Use it for documentation, "
        "issues or references the user points to. No cookies or credentials are sent; binary files are "
        f"refused; output stops at {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB. `prompt` says "
        "what you are looking for on the page."
    )
    parameters = {
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "The http(s) URL to fetch"},
            "prompt": {"type": "string", "description": "What to look for on the page"},
        },
        "required": ["url"],
        "additionalProperties": False,
    }
    prompt_snippet = "Fetch a web page as Markdown"

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        url = _check_url(args["url"])
        try:
            page = await fetch_page(url)
        except ToolError:
            raise
        except Exception as exc:  # every network failure is the model's to read, never a crash
            raise ToolError(f"Could not fetch {url}: {type(exc).__name__}: {exc}") from None
        if not _is_text(page.content_type, page.body):
            raise ToolError(f"{page.url} is {page.content_type or 'binary'} ({format_size(len(page.body))}): "
                            "web_fetch reads only text and HTML")
        text = await asyncio.to_thread(page_text, page)
        notes = [f"URL: {page.url}", f"Status: {page.status}"]
        notes += [f"Note: redirected from {a} to another host: {b}" for a, b in page.redirects]
        if page.cut:
            notes.append(f"Note: the page is larger than {format_size(MAX_DOWNLOAD_BYTES)}; only the start was read")
        prompt = args.get("prompt", "").strip()
        if prompt:
            notes.append(f"Looking for: {prompt}")
        truncation = truncate_head(text)
        body = truncation.content
        details: dict[str, Any] = {"url": page.url, "status": page.status, "contentType": page.content_type}
        if truncation.truncated:
            spill = SpillFile.create(ctx.session_id, f"web-{call_id}.md")
            if spill is not None:
                spill.write(text)
                spill.close()
                details["fullOutputPath"] = str(spill.path)
            where = f" Full text: {spill.path}" if spill is not None else ""
            body += (f"\n\n[Showing {truncation.output_lines} of {truncation.total_lines} lines "
                     f"({format_size(truncation.total_bytes)}).{where}]")
        if page.status >= 400:
            raise ToolError("\n".join(notes) + "\n\n" + body)
        return ToolOutput.text("\n".join(notes) + "\n\n" + body, details)
