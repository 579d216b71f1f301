"""The sandbox's rules as data: writable roots and protected paths from the settings, the write check the
write and edit tools use, the macOS Seatbelt profile text, and the seccomp program of a command
without network."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from atomic.core.sandbox.policy import SandboxPolicy, parse_sandbox_mode, policy_from_settings, temp_roots
from atomic.core.sandbox.seatbelt import quote, seatbelt_argv, seatbelt_profile
from atomic.core.sandbox.seccomp import no_unix_sockets_filter
from atomic.core.settings import SandboxSettings, Settings


def test_the_defaults_are_workspace_write_with_network_and_the_cache_folder() -> None:
    sandbox = Settings().sandbox
    assert (sandbox.mode, sandbox.network, sandbox.writable_roots, sandbox.escalation) == (
        "workspace-write", True, ["~/.cache"], "ask",
    )
    parsed = Settings.model_validate({"sandbox": {"mode": "read-only", "network": False, "writableRoots": ["/x"]}})
    assert parsed.sandbox.mode == "read-only" and parsed.sandbox.writable_roots == ["/x"]


def test_an_unknown_mode_is_refused_with_the_choices() -> None:
    assert parse_sandbox_mode("off") == "off"
    with pytest.raises(ValueError, match="workspace-write, read-only, off"):
        parse_sandbox_mode("loose")


def test_workspace_write_roots_are_the_folder_temp_and_the_cache(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".cache").mkdir(parents=True)
    cwd = tmp_path / "project"
    cwd.mkdir()
    policy = policy_from_settings(SandboxSettings(), cwd, home=home)
    assert policy.writable_roots[0] == cwd.resolve()
    assert Path("/tmp").resolve() in policy.writable_roots
    assert (home / ".cache").resolve() in policy.writable_roots
    assert [p.relative_to(cwd.resolve()).as_posix() for p in policy.protected] == [
        ".git/hooks", ".git/config", ".atomic", ".mcp.json",
    ]


def test_read_only_keeps_only_temp_and_the_flag_wins_over_the_setting(tmp_path: Path) -> None:
    policy = policy_from_settings(SandboxSettings(mode="workspace-write"), tmp_path, mode="read-only")
    assert policy.mode == "read-only"
    assert policy.writable_roots == temp_roots() and Path("/tmp").resolve() in policy.writable_roots
    assert policy_from_settings(SandboxSettings(mode="off"), tmp_path).active is False


def _policy(cwd: Path, roots: list[Path], mode: str = "workspace-write") -> SandboxPolicy:
    real = cwd.resolve()
    return SandboxPolicy(
        mode=parse_sandbox_mode(mode),
        network=True,
        cwd=real,
        writable_roots=tuple(r.resolve() for r in roots),
        protected=tuple(real / n for n in (".git/hooks", ".git/config", ".atomic", ".mcp.json")),
    )


def test_the_write_check_allows_the_roots_and_refuses_the_rest(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    elsewhere = tmp_path / "elsewhere"
    cwd.mkdir()
    elsewhere.mkdir()
    policy = _policy(cwd, [cwd])
    assert policy.write_refusal(cwd / "src" / "main.py") is None
    assert policy.write_refusal("relative/file.txt") is None
    refusal = policy.write_refusal(elsewhere / "x.txt")
    assert refusal is not None and "outside the writable roots" in refusal and str(elsewhere / "x.txt") in refusal
    for name in (".git/hooks/pre-commit", ".git/config", ".atomic/settings.json", ".mcp.json"):
        refusal = policy.write_refusal(cwd / name)
        assert refusal is not None and "protected" in refusal, name


def test_the_write_check_follows_a_symlink_out_of_the_roots(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    outside = tmp_path / "outside"
    cwd.mkdir()
    outside.mkdir()
    (cwd / "link").symlink_to(outside)
    (cwd / "hooks-link").symlink_to(cwd / ".atomic")
    policy = _policy(cwd, [cwd])
    assert policy.write_refusal(cwd / "link" / "evil.sh") is not None
    assert policy.write_refusal(cwd / "hooks-link" / "settings.json") is not None


def test_a_worktree_git_file_is_protected_itself(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("gitdir: /somewhere/else\n")
    policy = policy_from_settings(SandboxSettings(), tmp_path)
    assert tmp_path.resolve() / ".git" in policy.protected
    assert policy.write_refusal(tmp_path / ".git") is not None


def test_mode_off_checks_nothing(tmp_path: Path) -> None:
    policy = _policy(tmp_path, [], mode="off")
    assert policy.write_refusal("/etc/passwd") is None


# ---------------------------------------------------------------- macOS Seatbelt profile


def _mac_policy(network: bool) -> SandboxPolicy:
    cwd = Path("/Users/me/project")
    return SandboxPolicy(
        mode="workspace-write",
        network=network,
        cwd=cwd,
        writable_roots=(cwd, Path("/private/tmp"), Path("/Users/me/.cache")),
        protected=tuple(cwd / n for n in (".git/hooks", ".git/config", ".atomic", ".mcp.json")),
    )


def test_the_profile_denies_writes_then_allows_the_roots_then_denies_the_protected_paths() -> None:
    profile = seatbelt_profile(_mac_policy(network=True))
    lines = profile.splitlines()
    assert lines[:2] == ["(version 1)", "(allow default)"]
    deny_all = lines.index("(deny file-write*)")
    allow = lines.index("(allow file-write*")
    deny_protected = [i for i, line in enumerate(lines) if line == "(deny file-write*"]
    assert deny_all < allow < deny_protected[0], "in Seatbelt the last matching rule wins"
    allowed = profile[profile.index("(allow file-write*") : profile.index("(deny file-write*\n")]
    for root in ('(subpath "/Users/me/project")', '(subpath "/private/tmp")', '(subpath "/Users/me/.cache")',
                 '(literal "/dev/null")'):
        assert root in allowed
    protected = profile[profile.index("(deny file-write*\n") :]
    assert '(subpath "/Users/me/project/.git/hooks")' in protected
    assert '(literal "/Users/me/project/.git/config")' in protected
    assert '(subpath "/Users/me/project/.atomic")' in protected and '(literal "/Users/me/project/.atomic")' in protected
    assert '(literal "/Users/me/project/.mcp.json")' in protected
    assert "network" not in profile, "with network on, the network is left alone"
    assert profile.count("(") == profile.count(")")


def test_the_profile_without_network_keeps_loopback_and_the_roots_sockets_only() -> None:
    profile = seatbelt_profile(_mac_policy(network=False))
    network = profile[profile.index("(deny network*)") :]
    assert '(allow network-outbound (remote ip "localhost:*"))' in network
    assert '(allow network-inbound (local ip "localhost:*"))' in network
    assert '(remote unix-socket (subpath "/Users/me/project"))' in network
    assert '(remote unix-socket (subpath "/private/tmp"))' in network
    assert "/var/run" not in network
    assert profile.count("(") == profile.count(")")


def test_read_only_profile_has_no_project_root() -> None:
    policy = SandboxPolicy(
        mode="read-only", network=True, cwd=Path("/Users/me/project"),
        writable_roots=(Path("/private/tmp"),), protected=(),
    )
    profile = seatbelt_profile(policy)
    assert '(subpath "/Users/me/project")' not in profile and '(subpath "/private/tmp")' in profile


def test_paths_are_quoted_as_scheme_strings_and_the_argv_runs_the_shell() -> None:
    assert quote('/a "b"\\c') == '"/a \\"b\\"\\\\c"'
    argv = seatbelt_argv(_mac_policy(network=True), ["/bin/bash", "-c", b"echo hi"])
    assert argv[:2] == ["/usr/bin/sandbox-exec", "-p"] and argv[3:] == ["/bin/bash", "-c", b"echo hi"]


# ---------------------------------------------------------------- seccomp program


def _run_bpf(program: bytes, nr: int, arch: int, arg0: int) -> int:
    """A tiny classic-BPF interpreter for the instructions the filter uses."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)
    insns = [struct.unpack("<HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    acc = pc = 0
    while True:
        code, jt, jf, k = insns[pc]
        if code == 0x20:
            acc = struct.unpack("<I", data[k : k + 4])[0]
            pc += 1
        elif code in (0x15, 0x35):
            hit = acc == k if code == 0x15 else acc >= k
            pc += 1 + (jt if hit else jf)
        elif code == 0x06:
            return k
        else:
            raise AssertionError(f"unexpected instruction {code:#x}")


@pytest.mark.parametrize(("machine", "arch", "socket_nr"), [("x86_64", 0xC000003E, 41), ("aarch64", 0xC00000B7, 198)])
def test_the_filter_refuses_unix_sockets_and_io_uring_only(machine: str, arch: int, socket_nr: int) -> None:
    program = no_unix_sockets_filter(machine)
    assert program is not None and len(program) % 8 == 0
    allow, eperm = 0x7FFF0000, 0x00050001
    assert _run_bpf(program, socket_nr, arch, 1) == eperm  # socket(AF_UNIX, ...)
    assert _run_bpf(program, socket_nr, arch, 2) == allow  # socket(AF_INET, ...): the own loopback
    assert _run_bpf(program, socket_nr, arch, 10) == allow  # AF_INET6
    assert _run_bpf(program, 425, arch, 0) == eperm  # io_uring_setup
    assert _run_bpf(program, 0, arch, 1) == allow  # read(1, ...)
    assert _run_bpf(program, socket_nr, 0x40000003, 1) == eperm  # a 32-bit program
    if machine == "x86_64":
        assert _run_bpf(program, 0x40000000 + 41, arch, 1) == eperm  # the x32 ABI


def test_no_filter_is_guessed_for_an_unknown_machine() -> None:
    assert no_unix_sockets_filter("mips") is None


def test_the_cli_flag_offers_exactly_the_settings_modes() -> None:
    from atomic.cli import build_parser
    from atomic.core.sandbox.policy import SANDBOX_MODES

    [action] = [a for a in build_parser()._actions if "--sandbox" in a.option_strings]
    assert tuple(action.choices or ()) == SANDBOX_MODES
