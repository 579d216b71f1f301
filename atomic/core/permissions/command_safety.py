"""What "always" may remember of a bash command, and the options that always need a fresh yes.

A remembered prefix is the program and its subcommand (`git status`, `npm test`), or for an
interpreter the script or module it runs (`python3 -m pytest`, `node build.js`). Wrappers run
whatever follows them and interpreters run any code they are handed, so neither is ever remembered
by itself; `git` alone neither. Options that turn a reader into a writer or a runner
(`git diff --output`, `find -exec`, `sed -i`, `rg --pre`, ...) are asked about even under a
remembered prefix or an allow rule: the approval for the reader never covered them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

WRAPPERS = frozenset({
    "timeout", "env", "nice", "nohup", "xargs", "sudo", "doas", "su", "command", "exec", "time", "builtin",
    "eval", "source", ".", "stdbuf", "ionice", "setsid", "chroot", "watch", "strace", "ltrace", "unbuffer",
    "flock", "nsenter", "unshare", "runuser", "busybox", "parallel", "script", "chrt", "taskset", "caffeinate",
})
_INTERPRETER = re.compile(
    r"(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|bash|sh|zsh|dash|ksh|fish|csh|tcsh|perl[0-9.]*|ruby|php|"
    r"lua[0-9.]*|luajit|tclsh|wish|Rscript|osascript|pwsh|powershell|awk|gawk|mawk|nawk|jshell|irb|ipython[0-9]*)"
)
# A bare lower-case word is a subcommand (`git status`, `npm test`); a file name or flag is not.
_SUBCOMMAND = re.compile(r"[a-z][a-z0-9:_-]*")
# git subcommands that change what later git commands run (config, hooks, aliases): never remembered.
_GIT_NEVER_REMEMBERED = frozenset({"config", "submodule", "filter-branch", "daemon", "instaweb"})


def program_name(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def is_wrapper(word: str) -> bool:
    return program_name(word) in WRAPPERS


def is_interpreter(word: str) -> bool:
    return _INTERPRETER.fullmatch(program_name(word)) is not None


def remembered_prefix(words: Sequence[str]) -> tuple[str, ...] | None:
    """The words "always" remembers for this command, or None when it must be asked every time."""
    if not words:
        return None
    program = words[0]
    name = program_name(program)
    if is_wrapper(program):
        return None
    if is_interpreter(program):
        return _interpreter_prefix(words)
    if name == "git":
        if len(words) < 2 or not _SUBCOMMAND.fullmatch(words[1]) or words[1] in _GIT_NEVER_REMEMBERED:
            return None
        return (program, words[1])
    if len(words) > 1 and _SUBCOMMAND.fullmatch(words[1]):
        return (program, words[1])
    return (program,)


def _interpreter_prefix(words: Sequence[str]) -> tuple[str, ...] | None:
    """`python3 -m pytest` or `node script.js`; None for code given inline (`-c`, `-e`) or no script."""
    if program_name(words[0]) in ("awk", "gawk", "mawk", "nawk"):
        return None  # the program text is the first argument: nothing fixed to remember
    if len(words) >= 3 and words[1] == "-m" and not words[2].startswith("-"):
        return (words[0], "-m", words[2])
    if len(words) >= 2 and not words[1].startswith("-"):
        return (words[0], words[1])
    return None


def matches_prefix(prefix: Sequence[str], words: Sequence[str]) -> bool:
    return len(words) >= len(prefix) and tuple(words[: len(prefix)]) == tuple(prefix)


def _has_option(words: Sequence[str], *names: str) -> str | None:
    for word in words:
        for name in names:
            if word == name or (name.startswith("--") and word.startswith(name + "=")):
                return name
    return None


def _short_cluster_has(words: Sequence[str], letter: str) -> bool:
    """`-i`, `-ni`, `-i.bak`: a short option cluster that holds `letter` (GNU style)."""
    return any(re.fullmatch(rf"-[a-zA-Z]*{letter}.*", w) is not None and not w.startswith("--") for w in words)


def _git_risk(words: Sequence[str]) -> str | None:
    found = _has_option(
        words, "--output", "-c", "--config-env", "--exec-path", "--upload-pack", "--receive-pack", "--exec",
        "-O", "--open-files-in-pager", "--extcmd", "-x", "--ext-diff", "--textconv", "--git-dir", "--work-tree",
    )
    if found:
        return f"git {found}"
    if any(w.startswith(("-O", "--output-directory")) for w in words[1:]):
        return "git -O"
    return None


def _find_risk(words: Sequence[str]) -> str | None:
    found = _has_option(
        words, "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"
    )
    return f"find {found}" if found else None


def _sed_script_risky(script: str) -> bool:
    """True when a sed script may write files or run commands (`w`, `W`, `e`, `s///w`, `s///e`).

    Anything this small reader does not follow counts as risky."""
    index = 0
    text = script
    while index < len(text):
        ch = text[index]
        if ch in " \t\n;{}!":
            index += 1
            continue
        address = re.match(r"(\d+(~\d+)?|\$|/(\\.|[^/\\])*/I?M?)(,(\d+|\$|/(\\.|[^/\\])*/|[+~]\d+))?", text[index:])
        if address and address.group(0):
            index += len(address.group(0))
            continue
        if ch in "ewW":
            return True
        if ch == "s":
            end = _skip_replacement(text, index + 1)
            if end is None:
                return True
            flags = re.match(r"[a-zA-Z0-9]*", text[end:])
            flag_text = flags.group(0) if flags else ""
            if "e" in flag_text or "w" in flag_text:
                return True
            index = end + len(flag_text)
            continue
        if ch in "pPdDnNgGhHxlq=Qz":
            index += 1
            continue
        if ch in "aictbTrR:y":
            # Text or labels to the end of the line: nothing that writes or runs.
            newline = text.find("\n", index)
            if ch == "y":
                end = _skip_replacement(text, index + 1)
                if end is None:
                    return True
                index = end
                continue
            index = len(text) if newline < 0 else newline + 1
            continue
        return True
    return False


def _skip_replacement(text: str, start: int) -> int | None:
    """Past `/re/replacement/` (any delimiter); None when it does not close."""
    if start >= len(text):
        return None
    delimiter = text[start]
    index = start + 1
    closed = 0
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == delimiter:
            closed += 1
            if closed == 2:
                return index + 1
        index += 1
    return None


def _sed_risk(words: Sequence[str]) -> str | None:
    args = list(words[1:])
    if _has_option(args, "--in-place") or _short_cluster_has(args, "i"):
        return "sed -i"
    if _has_option(args, "-f", "--file") or _short_cluster_has(args, "f"):
        return "sed -f"
    scripts: list[str] = []
    take_next = False
    plain: list[str] = []
    for word in args:
        if take_next:
            scripts.append(word)
            take_next = False
        elif word in ("-e", "--expression"):
            take_next = True
        elif word.startswith("--expression="):
            scripts.append(word.split("=", 1)[1])
        elif not word.startswith("-"):
            plain.append(word)
    if not scripts and plain:
        scripts.append(plain[0])
    if any(_sed_script_risky(s) for s in scripts):
        return "sed w/W/e"
    return None


def _awk_risk(words: Sequence[str]) -> str | None:
    if _has_option(words[1:], "-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec"):
        return "awk -f"
    for word in words[1:]:
        if "system" in word or "|" in word or ">" in word or "getline" in word:
            return "awk system(/pipes/redirection"
    return None


def _rg_risk(words: Sequence[str]) -> str | None:
    found = _has_option(words, "--pre")
    return "rg --pre" if found else None


def _tar_risk(words: Sequence[str]) -> str | None:
    found = _has_option(
        words, "--to-command", "--checkpoint-action", "--use-compress-program", "-I", "--rsh-command",
        "--info-script", "--new-volume-script", "-F", "--rmt-command",
    )
    return f"tar {found}" if found else None


def _sort_risk(words: Sequence[str]) -> str | None:
    found = _has_option(words, "-o", "--output", "--compress-program")
    return f"sort {found}" if found else None


def _fd_risk(words: Sequence[str]) -> str | None:
    found = _has_option(words, "-x", "--exec", "-X", "--exec-batch")
    return f"fd {found}" if found else None


def _curl_risk(words: Sequence[str]) -> str | None:
    """Options that write files, read a config, or send a local file away."""
    found = _has_option(
        words, "-o", "--output", "-O", "--remote-name", "--remote-name-all", "-K", "--config", "-T",
        "--upload-file", "-F", "--form", "--output-dir", "-D", "--dump-header", "-c", "--cookie-jar",
        "--trace", "--trace-ascii", "--libcurl", "--stderr",
    )
    if found:
        return f"curl {found}"
    if any(w.startswith("@") or "=@" in w for w in words[1:]):
        return "curl @file"
    return None


def _wget_risk(words: Sequence[str]) -> str | None:
    found = _has_option(
        words, "-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "-P",
        "--directory-prefix", "-i", "--input-file", "--post-file", "--body-file", "-e", "--execute",
        "--config",
    )
    return f"wget {found}" if found else None


_RISKS = {
    "git": _git_risk,
    "find": _find_risk,
    "sed": _sed_risk,
    "gsed": _sed_risk,
    "awk": _awk_risk,
    "gawk": _awk_risk,
    "mawk": _awk_risk,
    "nawk": _awk_risk,
    "rg": _rg_risk,
    "tar": _tar_risk,
    "gtar": _tar_risk,
    "bsdtar": _tar_risk,
    "sort": _sort_risk,
    "fd": _fd_risk,
    "fdfind": _fd_risk,
    "curl": _curl_risk,
    "wget": _wget_risk,
}


def risky_option(words: Sequence[str]) -> str | None:
    """Which reader-turned-writer (or runner) option the command uses, e.g. `find -exec`; None if none."""
    if not words:
        return None
    check = _RISKS.get(program_name(words[0]))
    return check(words) if check is not None else None
