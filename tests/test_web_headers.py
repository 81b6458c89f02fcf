"""Security headers on every response, the app's and the errors waitress answers itself; Allow on 405."""

from __future__ import annotations

import socket

import pytest

from tests._webkb import make_generation
from web import create_app
from web.headers import SECURITY_HEADERS
from web.server import start_in_thread


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return make_generation(tmp_path_factory.mktemp("headers-home"))


@pytest.fixture(scope="module")
def client(home):
    return create_app(home).test_client()


def _assert_secure(headers) -> None:
    for name, value in SECURITY_HEADERS.items():
        assert headers.get(name) == value, name
    assert SECURITY_HEADERS["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in SECURITY_HEADERS["Content-Security-Policy"]


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/", 200),
        ("GET", "/api/versions", 200),
        ("GET", "/mtg/ja/latest/999.9z", 404),
        ("GET", "/mtg/ja/latest/509.x", 400),
        ("POST", "/", 405),
        ("DELETE", "/api/versions", 405),
        ("GET", "/static/missing.css", 404),
    ],
)
def test_every_app_response_carries_the_security_headers(client, method, path, status):
    resp = client.open(path, method=method)
    assert resp.status_code == status
    _assert_secure(resp.headers)


def test_method_not_allowed_says_what_is_allowed(client):
    for path in ("/", "/api/versions"):
        resp = client.post(path)
        assert resp.status_code == 405
        assert set(resp.headers["Allow"].split(", ")) >= {"GET", "HEAD"}, resp.headers


@pytest.mark.parametrize("label", ["20991231%0A", "20991231%0D%0A", "2099%201231"])
def test_a_label_with_a_newline_is_refused_not_linked(client, label):
    resp = client.get(f"/mtg/ja/{label}/")
    assert resp.status_code == 400
    assert b"20991231\n" not in resp.data and b"20991231\r" not in resp.data  # the JSON link is percent-encoded


def _raw(port: int, request: bytes) -> dict[str, str]:
    """Send raw bytes; the status line and headers of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        data = b""
        try:
            s.sendall(request)
            while chunk := s.recv(65536):
                data += chunk
        except (ConnectionResetError, BrokenPipeError):
            pass  # the server may close before reading all of an oversized request
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in head[1:])
    return {"status": head[0], **headers}


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 300_000 + b"\r\n\r\n", "431"),
        (b"NONSENSE\r\n\r\n", "400"),
        (b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n", "400"),
    ],
    ids=["431-headers-too-large", "400-bad-request-line", "400-bad-content-length"],
)
def test_errors_waitress_answers_itself_carry_the_security_headers(home, request_bytes, status):
    server = start_in_thread(home)
    try:
        answer = _raw(server.effective_port, request_bytes)
    finally:
        server.close()
    assert answer["status"].split()[1] == status, answer
    _assert_secure(answer)
