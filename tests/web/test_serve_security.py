"""``zavandor serve`` against requests a stranger sends: real HTTP to a server on 127.0.0.1.

Each test starts the app on a free port and speaks HTTP over a plain socket, so it can send
what no well-behaved client would: another site's ``Host`` (DNS rebinding), a cross-origin
``text/plain`` POST (what a page of any site can send without a preflight), a
``Content-Length`` of ``-1`` or ``abc``, bodies nested thousands deep.  Every exchange is
bounded by a socket timeout, and every test sends a handful of requests.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from zavandor_env.cli import build_parser, main
from zavandor_env.web import server as web
from zavandor_env.web.server import MAX_BODY, MAX_CONNECTIONS, TOKEN_HEADER, AppServer, Table

TIMEOUT = 10.0  # seconds a test waits for one answer (a refusal comes in milliseconds)


@dataclass
class Answer:
    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes

    @property
    def error(self) -> str:
        """The one-line ``error`` of a refusal (the test fails if it is anything else)."""
        assert self.headers.get("content-type") == "application/json", self.headers
        text = self.body.decode()
        assert "\n" not in text.strip()
        message = json.loads(text)["error"]
        assert isinstance(message, str) and "\n" not in message
        assert not re.search(r"Traceback|\w+Error\b|Exception", message), message
        return message


def exchange(app: AppServer, raw: bytes, *, end_body: bool = False) -> Answer:
    """Send ``raw`` (a whole request) and read the answer up to the server's close (the
    server speaks HTTP/1.0: one request per connection); ``end_body``: close the sending
    side after ``raw`` (else it stays open, as a client that may send more)."""
    with socket.create_connection(app.server_address[:2], timeout=TIMEOUT) as sock:
        sock.sendall(raw)
        if end_body:
            sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    assert head, "the server closed the connection without an answer"
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return Answer(int(status_line.split()[1]), headers, body)


def send(app: AppServer, method: str, path: str, body: bytes | None = None, *,
         headers: Mapping[str, str | None] | None = None,
         extra: Sequence[tuple[str, str]] = ()) -> Answer:
    """A request as the app's page sends it (same Host, JSON, the token), with ``headers``
    changed (None: left out) and ``extra`` header lines added."""
    base: dict[str, str | None] = {"Host": f"127.0.0.1:{app.server_address[1]}"}
    if body is not None:
        base.update({"Content-Type": "application/json", TOKEN_HEADER: app.token,
                     "Content-Length": str(len(body))})
    lines = [f"{method} {path} HTTP/1.1"]
    lines += [f"{k}: {v}" for k, v in {**base, **(headers or {})}.items() if v is not None]
    lines += [f"{k}: {v}" for k, v in extra]
    return exchange(app, ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))


def post(app: AppServer, path: str, data: Any, **kwargs: Any) -> Answer:
    return send(app, "POST", path, json.dumps(data).encode(), **kwargs)


def table_now(app: AppServer) -> tuple[int, int]:
    """(seed, decisions so far) of the served game: what a refused request must not change."""
    with app.table.lock:
        return app.table.seed, len(app.table.game.history)


# ---- Host: DNS rebinding -------------------------------------------------------------------
@pytest.mark.parametrize("host", ["evil.example:{port}", "evil.example", "127.0.0.1",
                                  "127.0.0.1:1", "localhost.evil.example:{port}", ""])
def test_a_host_that_is_not_this_server_is_refused(app: AppServer, host: str) -> None:
    port = app.server_address[1]
    before = table_now(app)
    answer = send(app, "GET", "/api/state", headers={"Host": host.format(port=port) or None})
    assert answer.status == 421 and "Host" in answer.error
    answer = post(app, "/api/new", {"seed": 5}, headers={"Host": host.format(port=port)})
    assert answer.status == 421 and answer.error
    assert table_now(app) == before


def test_a_second_host_header_is_refused(app: AppServer) -> None:
    answer = send(app, "GET", "/api/state", extra=[("Host", "evil.example")])
    assert answer.status == 421 and answer.error


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LocalHost:{port}",
                                  "[::1]:{port}"])
def test_the_servers_own_names_are_answered(app: AppServer, host: str) -> None:
    port = app.server_address[1]
    answer = send(app, "GET", "/api/state", headers={"Host": host.format(port=port)})
    assert answer.status == 200 and json.loads(answer.body)["seed"] == 21


def test_allow_hosts_adds_a_name() -> None:
    server = AppServer(Table(["random"], seed=0), port=0, allow_hosts=["Zavandor.lan"])
    try:
        port = server.server_address[1]
        assert f"zavandor.lan:{port}" in server.allowed_hosts
        assert f"evil.example:{port}" not in server.allowed_hosts
    finally:
        server.server_close()


# ---- POST from another origin --------------------------------------------------------------
def test_a_cross_origin_text_plain_post_is_refused_and_changes_nothing(app: AppServer) -> None:
    """What a page on another site can send without a preflight: refused, game unchanged."""
    before = table_now(app)
    legal = app.table.state()["legal"][0]["action"]
    foreign = {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site",
               "Content-Type": "text/plain;charset=UTF-8", TOKEN_HEADER: None}
    assert post(app, "/api/new", {"seed": 5}, headers=foreign).status == 403
    assert post(app, "/api/act", {"action": legal}, headers=foreign).status == 403
    assert table_now(app) == before


@pytest.mark.parametrize("headers, status", [
    ({"Origin": "http://evil.example"}, 403),  # even with JSON and the token
    ({"Origin": "null"}, 403),  # a sandboxed frame or a file:// page
    ({"Origin": "http://localhost:1"}, 403),
    ({"Sec-Fetch-Site": "cross-site"}, 403),
    ({"Sec-Fetch-Site": "same-site"}, 403),  # another port of this machine
    ({"Content-Type": "text/plain"}, 415),  # the preflight-free types
    ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
    ({"Content-Type": "multipart/form-data; boundary=x"}, 415),
    ({"Content-Type": None}, 415),
    ({TOKEN_HEADER: None}, 403),
    ({TOKEN_HEADER: "guessed"}, 403),
    ({TOKEN_HEADER: "\xe9"}, 403),  # not ASCII
])
def test_a_post_without_the_pages_credentials_is_refused(app: AppServer,
                                                         headers: dict[str, str | None],
                                                         status: int) -> None:
    before = table_now(app)
    answer = post(app, "/api/new", {"seed": 5}, headers=headers)
    assert answer.status == status and answer.error
    assert table_now(app) == before


def test_the_pages_own_requests_play(app: AppServer) -> None:
    """The legitimate flow: the token read from the page, same-origin headers, JSON."""
    port = app.server_address[1]
    page = send(app, "GET", "/")
    assert page.status == 200
    token = re.search(rb'<meta name="zavandor-token" content="([^"]+)">', page.body)
    assert token is not None and token.group(1).decode() == app.token
    browser = {"Origin": f"http://localhost:{port}", "Host": f"localhost:{port}",
               "Sec-Fetch-Site": "same-origin", TOKEN_HEADER: token.group(1).decode()}
    state = json.loads(send(app, "GET", "/api/state", headers=browser).body)
    answer = post(app, "/api/act", {"action": state["legal"][0]["action"],
                                    "decision": state["decision"]}, headers=browser)
    assert answer.status == 200 and json.loads(answer.body)["decision"] > state["decision"]
    answer = post(app, "/api/new", {"seed": 8}, headers=browser)
    assert answer.status == 200 and json.loads(answer.body)["seed"] == 8
    # A game refusal still answers 400 with the state, so the page can redraw.
    answer = post(app, "/api/act", {"action": 10**6}, headers=browser)
    assert answer.status == 400 and "not legal" in answer.error
    assert json.loads(answer.body)["state"]["seed"] == 8


def test_another_server_gets_another_token(app: AppServer) -> None:
    other = AppServer(Table(["random"], seed=0), port=0)
    try:
        assert other.token != app.token and len(app.token) >= 32
    finally:
        other.server_close()


# ---- the body ------------------------------------------------------------------------------
@pytest.mark.parametrize("length, status", [
    ("-1", 400), ("abc", 400), ("+5", 400), ("1_0", 400), ("0x10", 400), ("", 400),
    ("\xb2", 400),  # superscript two: str.isdigit() says yes, int() says no
    (str(MAX_BODY + 1), 413), ("50000000", 413), ("9" * 5000, 413),
])
def test_a_content_length_that_is_not_a_byte_count_within_the_cap_is_refused(
        app: AppServer, length: str, status: int) -> None:
    """Refused at once: ``-1`` used to read the socket to its end (50 MB were read and
    played), ``abc`` was an HTTP 500 naming a Python error.  The connection is kept open
    after the body, so an answer that waited for more would time out."""
    before = table_now(app)
    started = time.monotonic()
    answer = send(app, "POST", "/api/new", b'{"seed": 5}',
                  headers={"Content-Length": length})
    assert answer.status == status and answer.error
    assert time.monotonic() - started < TIMEOUT / 2
    assert table_now(app) == before


def test_a_post_without_a_content_length_is_refused(app: AppServer) -> None:
    answer = send(app, "POST", "/api/new", b'{"seed": 5}', headers={"Content-Length": None})
    assert answer.status == 411 and "Content-Length" in answer.error
    chunked = send(app, "POST", "/api/new", b'b\r\n{"seed": 5}\r\n0\r\n\r\n',
                   headers={"Content-Length": None, "Transfer-Encoding": "chunked"})
    assert chunked.status == 411 and chunked.error
    assert table_now(app)[0] == 21


def test_two_content_lengths_are_refused(app: AppServer) -> None:
    answer = send(app, "POST", "/api/new", b'{"seed": 5}', extra=[("Content-Length", "2")])
    assert answer.status == 400 and "Content-Length" in answer.error


def test_a_body_shorter_than_its_length_is_refused(app: AppServer) -> None:
    raw = (f"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1:{app.server_address[1]}\r\n"
           f"Content-Type: application/json\r\n{TOKEN_HEADER}: {app.token}\r\n"
           "Content-Length: 100\r\n\r\n{}").encode()
    answer = exchange(app, raw, end_body=True)  # the body ends here, 98 bytes short
    assert answer.status == 400 and "ended before" in answer.error


@pytest.mark.parametrize("body", [
    b"[" * 100_000,  # past the cap: refused by its length
    b"[" * 5_000, b"{" * 5_000, b'{"a":' * 2_000,  # deeper than json's recursion limit
    b'{"seed": [[[[[[[[1]]]]]]]]}',  # shallower than that, deeper than a request needs
    b"{not json", b"", b"[1]", b'"seed"', b'{"seed": NaN}', b'{"seed": 1e400}',
    b'{"seed": ' + b"9" * 5000 + b"}", b"\xff\xfe{}", b'{"seed": -1}', b'{"seed": 2.5}',
    b'{"seed": true}', b'{"seed": 9223372036854775808}', b'{"action": "1"}',
    b'{"action": [1]}', b'{"action": true}',
])
def test_a_malformed_body_gets_a_one_line_4xx(app: AppServer, body: bytes) -> None:
    before = table_now(app)
    path = "/api/act" if b"action" in body else "/api/new"
    answer = send(app, "POST", path, body)
    if body == b"":  # an empty body is the empty object: a new game with a random seed
        assert answer.status == 200
        return
    assert 400 <= answer.status < 500 and answer.error
    assert table_now(app) == before


# ---- every answer --------------------------------------------------------------------------
def test_every_answer_carries_the_security_headers_and_no_cors(app: AppServer) -> None:
    answers = [send(app, "GET", "/"), send(app, "GET", "/api/state"),
               send(app, "GET", "/api/replay"), send(app, "GET", "/nowhere"),
               send(app, "GET", "/", headers={"Host": "evil.example"}),
               post(app, "/api/new", {}, headers={"Origin": "http://evil.example"}),
               send(app, "OPTIONS", "/api/new", headers={
                   "Origin": "http://evil.example", "Access-Control-Request-Method": "POST",
                   "Access-Control-Request-Headers": "content-type"}),
               send(app, "GET", "/", extra=[(f"X-{i}", "1") for i in range(101)])]
    for answer in answers:
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert "default-src 'none'" in answer.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
        assert answer.headers["referrer-policy"] == "no-referrer"
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["cross-origin-resource-policy"] == "same-origin"
        assert not [k for k in answer.headers if k.startswith("access-control-")]
        assert "python" not in answer.headers.get("server", "").lower()
    assert [a.status for a in answers] == [200, 200, 200, 404, 421, 403, 501, 431]
    assert all(a.error for a in answers[3:])  # http.server's own refusals are one line too


def test_the_csp_runs_exactly_the_pages_inline_script_and_style(app: AppServer) -> None:
    answer = send(app, "GET", "/")
    page = answer.body.decode()
    policy = answer.headers["content-security-policy"]

    def source(tag: str) -> str:
        texts = re.findall(rf"<{tag}>(.*?)</{tag}>", page, re.S)
        assert len(texts) == 1, f"one inline <{tag}>"
        digest = base64.b64encode(hashlib.sha256(texts[0].encode()).digest()).decode()
        return f"'sha256-{digest}'"

    assert f"script-src {source('script')};" in policy
    assert f"style-src {source('style')};" in policy
    assert "'unsafe-inline'" not in policy and "connect-src 'self'" in policy


# ---- resources -----------------------------------------------------------------------------
def test_open_connections_past_the_cap_are_closed_on_arrival(app: AppServer) -> None:
    idle = [socket.create_connection(app.server_address[:2], timeout=TIMEOUT)
            for _ in range(MAX_CONNECTIONS)]
    try:
        time.sleep(0.2)  # the server has accepted them all (each holds a thread, waiting)
        with socket.create_connection(app.server_address[:2], timeout=TIMEOUT) as extra:
            assert extra.recv(1) == b""  # closed at once, not queued behind the others
    finally:
        for sock in idle:
            sock.close()
    for _ in range(50):  # the threads see the closes and give their slots back
        try:
            send(app, "GET", "/api/state")
            break
        except AssertionError:  # still closed on arrival
            time.sleep(0.1)
    assert send(app, "GET", "/api/state").status == 200


def test_a_client_that_stops_mid_request_is_dropped(app: AppServer,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert web._Handler.timeout == web.SOCKET_TIMEOUT and 0 < web.SOCKET_TIMEOUT <= 60
    monkeypatch.setattr(web._Handler, "timeout", 0.5)  # the same, without waiting 15 s
    with socket.create_connection(app.server_address[:2], timeout=TIMEOUT) as sock:
        sock.sendall(b"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and then nothing
        started = time.monotonic()
        assert sock.recv(65536) == b""
        assert time.monotonic() - started < 5


def test_slow_trickling_clients_are_dropped_at_the_request_deadline(
        app: AppServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """32 connections sending a header byte now and then (each within the socket timeout)
    used to hold every slot for as long as they liked: now each is dropped when its request
    deadline is up, and a normal request is answered soon after."""
    monkeypatch.setattr(web, "REQUEST_DEADLINE", 1.5)
    slow = [socket.create_connection(app.server_address[:2], timeout=TIMEOUT) for _ in range(32)]
    started = time.monotonic()
    try:
        for sock in slow:
            sock.sendall(b"GET /api/state HTTP/1.1\r\n")
        closed: set[int] = set()
        while len(closed) < len(slow) and time.monotonic() - started < 8:
            for k, sock in enumerate(slow):  # a byte each 0.3 s: never silent for long
                if k in closed:
                    continue
                try:
                    sock.sendall(b"X")
                    sock.settimeout(0.01)
                    if sock.recv(1) == b"":
                        closed.add(k)
                except (BlockingIOError, TimeoutError):
                    pass
                except OSError:  # reset: closed by the server
                    closed.add(k)
                finally:
                    sock.settimeout(TIMEOUT)
            time.sleep(0.3)
        assert len(closed) == len(slow), f"{len(slow) - len(closed)} slow clients still held"
        assert time.monotonic() - started < 6  # the deadline, not the trickle, ended them
        answer = None
        for _ in range(50):  # the slots come back as the threads see the closes
            try:
                answer = send(app, "GET", "/api/state")
                break
            except (AssertionError, ConnectionError):
                time.sleep(0.1)
        assert answer is not None and answer.status == 200
    finally:
        for sock in slow:
            sock.close()


def test_one_client_cannot_take_every_slot(app: AppServer) -> None:
    """Past MAX_CONNECTIONS_PER_CLIENT open connections of one address, its next ones are
    closed on arrival, while another address (127.0.0.2, loopback too) is still served."""
    mine = [socket.create_connection(app.server_address[:2], timeout=TIMEOUT)
            for _ in range(web.MAX_CONNECTIONS_PER_CLIENT)]
    try:
        time.sleep(0.2)
        with socket.create_connection(app.server_address[:2], timeout=TIMEOUT) as extra:
            assert extra.recv(1) == b""  # this address is at its cap
        with socket.create_connection(app.server_address[:2], timeout=TIMEOUT,
                                      source_address=("127.0.0.2", 0)) as other:
            other.sendall(f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:"
                          f"{app.server_address[1]}\r\n\r\n".encode())
            assert other.recv(12).startswith(b"HTTP/1.0 200")
    finally:
        for sock in mine:
            sock.close()


# ---- the command line ----------------------------------------------------------------------
def test_serve_parses_allow_host() -> None:
    args = build_parser().parse_args(["serve", "--allow-host", "zavandor.lan",
                                      "--allow-host", "[fe80::1]"])
    assert args.allow_host == ["zavandor.lan", "[fe80::1]"]


@pytest.mark.parametrize("name", ["evil.example:80", "http://evil.example", "", "a b", "::1"])
def test_serve_refuses_an_allow_host_that_is_not_a_name(
        name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--allow-host", name])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "not a host name" in err and len(err.splitlines()) == 1
