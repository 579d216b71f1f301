"""Small pure helpers for the chrome: token counts, paths with `~`, the git branch."""

from __future__ import annotations

from pathlib import Path


def format_tokens(count: int) -> str:
    """999, 1.2k, 12k, 1.2M: the compact form pi's footer uses."""
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    if count < 10_000_000:
        return f"{count / 1_000_000:.1f}M"
    return f"{round(count / 1_000_000)}M"


def tilde_path(path: Path, home: Path | None = None) -> str:
    home = home or Path.home()
    try:
        relative = path.resolve().relative_to(home.resolve())
    except ValueError:
        return str(path)
    return "~" if str(relative) == "." else f"~/{relative}"


def find_git_head(start: Path) -> Path | None:
    """The HEAD file of the repository holding `start` (worktrees point at it with a `.git` file)."""
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return dot_git / "HEAD"
        if dot_git.is_file():
            try:
                text = dot_git.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if text.startswith("gitdir:"):
                gitdir = Path(text.removeprefix("gitdir:").strip())
                if not gitdir.is_absolute():
                    gitdir = folder / gitdir
                return gitdir / "HEAD"
    return None


def read_git_branch(start: Path) -> str | None:
    """The current branch name, or a short commit hash when detached. Read from the file, no subprocess."""
    head = find_git_head(start)
    if head is None:
        return None
    try:
        text = head.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if text.startswith("ref:"):
        return text.removeprefix("ref:").strip().removeprefix("refs/heads/")
    return text[:7] or None


def first_line(text: str, limit: int = 80) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def format_elapsed(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, rest = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m {rest:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"
