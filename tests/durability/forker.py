"""A process that has imported Atomic once and forks a fresh `atomic --mode rpc` for each request.

The kill trials need hundreds of short-lived Atomic processes; starting each from a new interpreter
spends most of its time importing. A child forked from here runs `atomic.cli.main(argv)` (what
`python -m atomic` runs) with its own stdin, stdout and stderr (pipes sent over a Unix socket), its
own folder and environment; only the imports were done before. Children are reaped automatically.

Run by the trials as `python forker.py <socket fd>`; each request is one message with a JSON body
(`argv`, `cwd`, `env`) and three file descriptors; the answer is `{"pid": ...}`.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys


def _preload() -> None:
    """What `--mode rpc` loads on its way to the first answer, so a child starts with it in memory:
    the modules, and whatever opening one session caches (it is opened and shut down here)."""
    import asyncio
    import tempfile
    from pathlib import Path

    import atomic.cli
    import atomic.rpc.server  # noqa: F401
    from atomic.core.contract import SessionOptions, open_engine

    atomic.cli.skip_pydantic_plugin_scan()

    async def open_once(folder: Path) -> None:
        engine = await open_engine(SessionOptions(cwd=folder, provider="scripted", no_session=True))
        engine.state()
        await engine.shutdown()

    with tempfile.TemporaryDirectory() as folder:
        os.environ["ATOMIC_CODING_AGENT_DIR"] = folder
        asyncio.run(open_once(Path(folder)))


def _child(control: socket.socket, fds: list[int], request: dict[str, object]) -> None:
    control.close()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(str(request["cwd"]))
    env = request["env"]
    assert isinstance(env, dict)
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in env.items()})
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    import atomic.cli

    argv = request["argv"]
    assert isinstance(argv, list)
    code = 1
    try:
        code = atomic.cli.main([str(a) for a in argv])
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve(control: socket.socket) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # no zombies: nobody here waits for the children
    while True:
        message, fds, _flags, _address = socket.recv_fds(control, 1 << 20, 3)
        if not message:
            return
        request = json.loads(message)
        pid = os.fork()
        if pid == 0:
            _child(control, fds, request)
        for fd in fds:
            os.close(fd)
        control.sendall(json.dumps({"pid": pid}).encode() + b"\n")


if __name__ == "__main__":
    _preload()
    import gc

    # Children share the preloaded pages until they write to them; a collection walking them all
    # would touch (and copy) every one, so they are left out of collections.
    gc.freeze()
    serve(socket.socket(fileno=int(sys.argv[1])))
