"""Small pure helpers for the chrome and the screens: token counts, sizes, ages, lines, paths with `~`,
the git branch. The only place the TUI formats these, so the footer and the pickers cannot drift apart."""

from __future__ import annotations

from pathlib import Path


def format_tokens(count: int, *, whole: bool = False) -> str:
    """999, 1.2k, 12k, 1.2M: the compact form pi's footer uses.

    `whole` drops the decimal a list of model context windows does not need: 8192 -> "8k", 1000000 -> "1M"
    (1.5M keeps it). At 10k and above both forms agree.
    """
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{round(count / 1000)}k" if whole else f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    if count < 10_000_000:
        value = count / 1_000_000
        return f"{value:.0f}M" if whole and value == int(value) else f"{value:.1f}M"
    return f"{round(count / 1_000_000)}M"


def format_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def format_age(seconds: float) -> str:
    """How long ago, in the short form lists use: "just now", "5m ago", "3h ago", "2d ago"."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return "just now"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes}m ago"
    hours = minutes // 60
    if hours < 24:
        return f"{hours}h ago"
    days = hours // 24
    if days < 30:
        return f"{days}d ago"
    months = days // 30
    if months < 12:
        return f"{months}mo ago"
    return f"{days // 365}y ago"


def format_elapsed(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, rest = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m {rest:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def first_line(text: str, limit: int = 80) -> str:
    """The first non-empty line of text, stripped and cut to `limit` characters with an ellipsis."""
    line = next((candidate.strip() for candidate in text.splitlines() if candidate.strip()), "")
    return line if len(line) <= limit else line[: max(0, limit - 1)] + "…"


def flat_line(text: str, limit: int = 200) -> str:
    """All of text on one line (whitespace runs become one space), cut to `limit` with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def tilde(path: str | Path, home: Path | None = None) -> str:
    """The path with the home folder shown as `~` (as given, or else once symlinks are resolved)."""
    home = home or Path.home()
    path = Path(path)
    for candidate, base in ((path, home), (path.resolve(), home.resolve())):
        if candidate == base:
            return "~"
        if candidate.is_relative_to(base):
            return f"~/{candidate.relative_to(base)}"
    return str(path)


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
