"""Security headers on every response: the app's own, and the errors waitress answers by itself.

Waitress answers some requests without calling the app (431 for oversized headers, 400 for a
malformed request line, 413, 501): those responses come from its error task, which the app's
``after_request`` hook never sees. ``harden(server)`` gives the server's channels an error task
that adds the same headers.
"""

from __future__ import annotations

import functools

CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"

SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate CSP 2
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


def add_security_headers(headers) -> None:
    """Set each security header a response does not already carry (werkzeug ``Headers``)."""
    for name, value in SECURITY_HEADERS.items():
        headers.setdefault(name, value)


@functools.cache
def _secure_channel():
    """An HTTPChannel whose error task adds the security headers (waitress imported only when serving)."""
    from waitress.channel import HTTPChannel
    from waitress.task import ErrorTask

    class SecureErrorTask(ErrorTask):
        def execute(self) -> None:
            # Before the body is written: the first write sends the header block.
            self.response_headers.extend(SECURITY_HEADERS.items())
            super().execute()

    class SecureChannel(HTTPChannel):
        error_task_class = SecureErrorTask

    return HTTPChannel, SecureChannel


def harden(server) -> None:
    """Make every listening socket of a waitress server answer its own errors with the security headers."""
    plain, secure = _secure_channel()
    socket_map = getattr(server, "map", None) or getattr(server, "_map", {})
    for dispatcher in list(socket_map.values()):
        if getattr(dispatcher, "channel_class", None) is plain:
            dispatcher.channel_class = secure
