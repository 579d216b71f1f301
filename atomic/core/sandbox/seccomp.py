"""The seccomp filter of a command without network: no new Unix-domain sockets, no io_uring.

A new network namespace already cuts every IP connection and the abstract Unix sockets (they belong to
the namespace), but a socket *file* such as /var/run/docker.sock or an ssh-agent's is reached through
the file system, and Landlock (ABI 7) has no rule for connecting to one. Refusing `socket(AF_UNIX, ...)`
closes that door; `socketpair` (pipes between a program's own processes) keeps working. io_uring could
create sockets without the `socket` system call, so it goes too.

The program is classic BPF as bubblewrap's `--seccomp FD` reads it: an array of `struct sock_filter`.
"""

from __future__ import annotations

import errno
import platform
import struct

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]
_NR_OFFSET = 0
_ARCH_OFFSET = 4
_ARG0_OFFSET = 16  # the low 32 bits of args[0] on a little-endian machine

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_AF_UNIX = 1
_X32_SYSCALL_BIT = 0x40000000


class _Arch:
    def __init__(self, audit_arch: int, socket_nr: int, io_uring_setup_nr: int, x32: bool) -> None:
        self.audit_arch = audit_arch
        self.socket_nr = socket_nr
        self.io_uring_setup_nr = io_uring_setup_nr
        self.x32 = x32


_ARCHES = {
    "x86_64": _Arch(0xC000003E, 41, 425, x32=True),
    "aarch64": _Arch(0xC00000B7, 198, 425, x32=False),
}


# A jump target: the absolute index of an instruction, "next", or one of the two returns at the end.
_Target = int | str


def no_unix_sockets_filter(machine: str | None = None) -> bytes | None:
    """The filter for this machine, or None where it is not written (then sockets stay as they are)."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    # (code, jump if true, jump if false, k)
    steps: list[tuple[int, _Target, _Target, int]] = [
        (_LD_W_ABS, "next", "next", _ARCH_OFFSET),
        # A foreign ABI (a 32-bit program): refuse every call rather than guess its numbers.
        (_JEQ_K, "next", "deny", arch.audit_arch),
        (_LD_W_ABS, "next", "next", _NR_OFFSET),
    ]
    if arch.x32:
        steps.append((_JGE_K, "deny", "next", _X32_SYSCALL_BIT))
    socket_at = len(steps)
    steps.extend(
        [
            (_JEQ_K, "next", socket_at + 3, arch.socket_nr),  # not socket(): on to the io_uring check
            (_LD_W_ABS, "next", "next", _ARG0_OFFSET),
            (_JEQ_K, "deny", "allow", _AF_UNIX),
            (_JEQ_K, "deny", "allow", arch.io_uring_setup_nr),
        ]
    )
    returns = {"allow": len(steps), "deny": len(steps) + 1}

    def offset(index: int, target: _Target) -> int:
        # BPF jumps count the instructions skipped after this one; 0 is the next instruction.
        if target == "next":
            return 0
        absolute = returns[target] if isinstance(target, str) else target
        return absolute - index - 1

    out = bytearray()
    for index, (code, when_true, when_false, k) in enumerate(steps):
        out += struct.pack("<HBBI", code, offset(index, when_true), offset(index, when_false), k)
    out += struct.pack("<HBBI", _RET_K, 0, 0, _RET_ALLOW)
    out += struct.pack("<HBBI", _RET_K, 0, 0, _RET_ERRNO | errno.EPERM)
    return bytes(out)
