"""Serve the web app with uvicorn on a socket bound here, so a bad address is a clear error."""

from __future__ import annotations

import ipaddress
import socket
import sys

#: seconds a stopping server waits for requests in flight (a long search is cut short)
SHUTDOWN_GRACE_SECONDS = 2


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: one the system picks).

    Raises:
        ValueError: if ``port`` is outside 0..65535 or the address cannot be bound (the message
            names it and the system's reason, e.g. "Address already in use").
    """
    if not 0 <= port <= 65535:
        raise ValueError(f"--port: expected 0..65535, got {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise ValueError(f"--host: cannot resolve {host!r} ({error.strerror})") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as error:
        sock.close()
        raise ValueError(f"cannot listen on {host}:{port} ({error.strerror})") from None
    sock.setblocking(False)
    return sock


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(app, sock: socket.socket, stdout=None, on_stop=None) -> None:
    """Run ``app`` on ``sock`` until Ctrl-C or SIGTERM; prints the page's address first.

    ``on_stop``: called (from the signal handler) as soon as the server is asked to stop, before
    it waits for requests in flight; ``play --web`` uses it to end a running search.
    """
    import uvicorn  # heavy dependency (uvicorn): imported where it is used

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            if on_stop is not None:
                on_stop()
            super().handle_exit(sig, frame)

    stdout = stdout if stdout is not None else sys.stdout
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    stdout.write(f"serving http://{shown}:{port}/ (Ctrl-C stops)\n")
    stdout.flush()
    config = uvicorn.Config(
        app, log_level="warning", timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS, access_log=False
    )
    Server(config).run(sockets=[sock])
