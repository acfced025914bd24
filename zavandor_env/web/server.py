"""Play in the browser against agents: ``zavandor serve`` (one game per process, in memory).

The page (``static/app.html``) shows the table from the person's seat
(``to_svg(game, seat)``), the legal actions as buttons, every auction won with its price
(:attr:`Game.purchases`, through :class:`~zavandor_env.agents.human.AuctionWatcher`), the
other seats' decisions, and the result; it can start a new game and download the replay.

Why the standard library (``http.server``) and not a web framework: the app is one page and
four JSON endpoints on 127.0.0.1 for one person, so routing is a dictionary lookup; a
``ThreadingHTTPServer`` keeps a browser's idle pre-opened connections from stalling the
server, and ``shutdown()`` ends it cleanly from a test.  No dependency means ``zavandor
serve`` works on a plain install.

Endpoints (all JSON but ``/``; errors are ``{"error": one line}``)::

    GET  /              the app page (self-contained: inline CSS and JS)
    GET  /api/state     the table as the person sees it (see Table.state)
    POST /api/act       {"action": index, "decision": n}: the person's decision; the agents
                        then play up to the person's next decision or the end of the game
    POST /api/new       {"seed": int or null}: a new game with the same agents
    GET  /api/replay    the replay JSON so far (a download; ``zavandor replay`` reads it)

What keeps other web pages and other machines out (a page of any site the person visits can
send requests to 127.0.0.1, and a DNS name of its own can be made to point there)::

    Host          must name this server: the address it listens on, localhost, 127.0.0.1
                  or [::1] with its port (or a name given to ``allow_hosts``), else 421 --
                  a DNS-rebinding page's requests carry its own name
    POST          must come from the page itself: an ``Origin`` equal to the served one and a
                  ``Sec-Fetch-Site`` of same-origin where the browser sends them, a JSON body
                  (``Content-Type: application/json``) and the server's token (made at start,
                  written into the page) in ``X-Zavandor-Token``, else 403 / 415; another
                  origin can send neither of the last two without a CORS preflight, which the
                  server never grants (it sends no CORS headers at all)
    body          one ``Content-Length`` of at most ``MAX_BODY`` bytes (411 / 400 / 413),
                  never read past it; JSON through ``io.files.parse_json`` (bounded
                  depth, finite numbers), else 400 in one line
    every answer  nosniff, a Content-Security-Policy that runs only the page's own inline
                  script and style, no framing, no referrer, same-origin resource policy

A GET changes nothing, so it needs only the Host check.  At most ``MAX_CONNECTIONS`` are
served at once (``MAX_CONNECTIONS_PER_CLIENT`` of one address), one that falls silent
mid-request is dropped after ``SOCKET_TIMEOUT``, and one whose request is not read whole
within ``REQUEST_DEADLINE`` (a slow trickle) is dropped then.

The agents' moves are played inside the request that follows the person's move (not with
``play_game``, which owns its loop until the game ends), through the same agent contract:
``act(observation, view, legal_actions)``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import secrets
import socket
import threading
import time
from collections.abc import Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from zavandor_env.agents.base import Agent
from zavandor_env.agents.human import HELP, AuctionWatcher
from zavandor_env.agents.registry import make_agent
from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine.actions import ACTION_NAMES, action_block, action_to_string
from zavandor_env.engine.errors import PicklableError
from zavandor_env.engine.outcome import game_outcome
from zavandor_env.eval.match import ObservationFn, default_observation_fn
from zavandor_env.io.files import UntrustedInputError, parse_json
from zavandor_env.render.svg import to_svg
from zavandor_env.web import asset, fill, script
from zavandor_env.web.connections import ConnectionSlots, deadline_reader

#: Decisions the agents may take in one request before the server gives up on the game (a
#: safety net far above any real game: GameConfig.max_decisions ends games long before).
_MAX_AGENT_STEPS = 1_000_000
#: Bytes a request body may have: it is one small JSON object.
MAX_BODY = 10_000
_MAX_BODY_DEPTH = 4  # {"action": 3, "decision": 10} is depth 1
#: The largest seed ``/api/new`` takes (a signed 64-bit integer, as every seed elsewhere fits).
MAX_SEED = 2**63 - 1
#: Open connections served at once; more are closed on arrival (a browser opens about six).
MAX_CONNECTIONS = 32
#: Open connections of one client address at once: one client cannot take every slot.
MAX_CONNECTIONS_PER_CLIENT = 16
#: Seconds a connection may stay silent in the middle of a request.
SOCKET_TIMEOUT = 15.0
#: Seconds from a request's first awaited byte to its last (request line, headers, body): a
#: client that trickles a byte now and then is dropped when they are up, however it paces
#: itself (the socket timeout alone restarts with every byte).
REQUEST_DEADLINE = 10.0
#: The header that carries the server's token (made at start, written into the page); a page
#: of another origin cannot read it, and cannot send a custom header without a preflight.
TOKEN_HEADER = "X-Zavandor-Token"
#: Headers of every response, beside the page's Content-Security-Policy.
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


class BadRequest(ValueError):
    """A request the game refuses (answered with 400 and one line)."""


class Table:
    """One game between a person (``seat``) and agents, advanced one request at a time.

    Args:
        agent_specs: the agents' specs (``zavandor_env.agents.registry``), in seat order
            without the person; ``1 + len(agent_specs)`` players.
        seat: the person's seat.
        seed: the first game's deal seed (None: drawn); later games draw a new one.
        config: rule options (the player count is set from the specs).

    Raises:
        ValueError: a bad seat, player count or agent spec (one line).
    """

    def __init__(self, agent_specs: Sequence[str], seat: int = 0, seed: int | None = None,
                 config: GameConfig | None = None) -> None:
        n = 1 + len(agent_specs)
        if not 2 <= n <= 6:
            raise ValueError(f"give 1 to 5 agents, got {n - 1}")
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1} in a {n}-player game, got {seat}")
        self.seat = seat
        self.specs = list(agent_specs)
        base = config.to_dict() if config is not None else {}
        self.config = GameConfig.from_dict({**base, "num_players": n})
        self.agents: list[Agent | None] = [None] * n  # None: the person's seat
        for i, spec in enumerate(self.specs):
            self.agents[i + (i >= seat)] = make_agent(spec)  # fails here, before serving
        self.labels = [a.name if a is not None else "you" for a in self.agents]
        # The encoder (numpy) only for agents that read observations, as play_game does.
        needs = any(a is not None and a.needs_observation for a in self.agents)
        self._observe: ObservationFn | None = default_observation_fn() if needs else None
        self.lock = threading.Lock()  # one request at a time touches the game
        self.new_game(seed)

    # ---- the game ------------------------------------------------------------------------
    def new_game(self, seed: int | None = None) -> None:
        """Deal a new game (``seed`` None: a fresh random one) and let the agents play up to
        the person's first decision."""
        self.seed = random.randrange(2**31) if seed is None else seed
        self.game = Game.new(self.config, seed=self.seed)
        n = self.config.num_players
        for s, agent in enumerate(self.agents):
            if agent is not None:
                agent.reset(s, n, self.seed * 7919 + s)  # as play_game seeds its agents
        self.watcher = AuctionWatcher(self.labels)  # it names seats "player_<s> (<label>)"
        self.auctions: list[str] = []
        self.log: list[str] = []
        self._advance()

    def _who(self, seat: int) -> str:
        return f"player_{seat} ({self.labels[seat]})"

    def _record(self, seat: int, action: int) -> None:
        self.log.append(f"round {self.game.round}: {self._who(seat)}: "
                        f"{ACTION_NAMES[action]}")
        # The page lists them under "Auctions won": the watcher's "auction: " prefix would
        # only repeat the heading.
        self.auctions += [line.removeprefix("auction: ") for line in self.watcher.after(self.game)]

    def _advance(self) -> None:
        """The agents decide until it is the person's turn or the game is over."""
        game = self.game
        for _ in range(_MAX_AGENT_STEPS):
            if game.is_over or game.current_player == self.seat:
                return
            seat = game.current_player
            agent = self.agents[seat]
            assert agent is not None  # only the person's seat has no agent
            observe = self._observe if agent.needs_observation else None
            obs = observe(game, seat) if observe is not None else None
            action = agent.act(obs, game.view(seat), game.legal_actions())
            game.apply(action)
            self._record(seat, action)
        raise RuntimeError("the agents did not reach the person's turn")

    def play(self, action: object, decision: object = None) -> None:
        """Apply the person's decision, then the agents' up to the person's next one.

        ``decision`` is the number of decisions the page saw; a stale page (a double click,
        a second tab) is refused instead of playing a move the person did not see.

        Raises:
            BadRequest: not the person's turn, a stale page, or an illegal action.
        """
        game = self.game
        if game.is_over:
            raise BadRequest("the game is over: start a new one")
        if decision is not None and decision != len(game.history):
            raise BadRequest("the table changed since this page was drawn: reloaded")
        if type(action) is not int or action not in game.legal_actions():
            raise BadRequest(f"action {action!r} is not legal now")
        game.apply(action)
        self._record(self.seat, action)
        self._advance()

    # ---- what the page shows ---------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """The table as the person sees it, for the page's script."""
        game = self.game
        outcome = game_outcome(game)
        mine = not game.is_over and game.current_player == self.seat
        legal = game.legal_actions() if mine else ()
        if outcome.terminated:
            who = " and ".join("you" if w == self.seat else self._who(w)
                               for w in outcome.winners)
            shared = " (shared)" if len(outcome.winners) > 1 else ""
            result = f"Game over: {who} won{shared} in round {outcome.rounds}."
        elif outcome.truncated:
            result = f"Game over: cut off by a safety limit in round {outcome.rounds}; no winner."
        else:
            result = ""
        return {
            "seat": self.seat,
            "labels": self.labels,
            "seed": self.seed,
            "round": game.round,
            "decision": len(game.history),
            "yourTurn": mine,
            "deciding": game.current_player,
            "legal": [{"action": a, "name": action_to_string(a), "block": action_block(a)}
                      for a in legal],
            "svg": to_svg(game, self.seat),
            "scores": game.scores(),
            "eliminated": [p.eliminated for p in game.state.players],
            "auctions": self.auctions,
            "log": self.log,
            "over": game.is_over,
            "winners": list(outcome.winners),
            "result": result,
            "outcome": outcome.describe() if game.is_over else "",
        }

    def replay_record(self) -> dict[str, Any]:
        """The game so far as a replay file (``zavandor replay`` / ``--html`` read it)."""
        return {**self.game.replay_record(), "agents": self.labels}


def _style() -> str:
    """The page's CSS, its one inline ``<style>``."""
    return asset("common.css") + asset("app.css")


def page(token: str) -> str:
    """The app page, everything inline; ``token`` is the server's :data:`TOKEN_HEADER` value,
    which the page's script sends with every request (a ``<meta>`` tag, so the inline
    script stays the same text and its hash in :func:`content_security_policy` holds)."""
    import html

    return fill(asset("app.html"), style=_style(), help=html.escape(HELP),
                token=html.escape(token), script=script("app.js"))


def _sha256_source(text: str) -> str:
    digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
    return f"'sha256-{digest}'"


def content_security_policy() -> str:
    """The page's policy: only its own inline script and style (by hash), ``fetch`` to the
    server itself, no frames around it, no forms sent anywhere, no other loads at all.  A
    script slipped into the board's SVG or a label would not run."""
    return "; ".join((
        "default-src 'none'",
        f"script-src {_sha256_source(script('app.js'))}",
        f"style-src {_sha256_source(_style())}",
        "img-src data:",  # the page's empty favicon
        "connect-src 'self'",
        "form-action 'none'",  # the new-game form is sent by the script
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ))


class Refused(PicklableError, ValueError):
    """A request refused before it reaches the game: its HTTP status and one line."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


def _one_line(text: str, limit: int = 200) -> str:
    """``text`` on one line, cut to ``limit`` characters (it may quote the request)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _content_length(values: list[str]) -> int:
    """The body's length from the request's ``Content-Length`` headers.

    Raises:
        Refused: no header (411); a second one, or not plain ASCII digits (400: ``-1``
            once meant "read to the end of the connection", and ``int()`` takes ``+5``,
            ``1_0`` and fails on ``abc``); more than :data:`MAX_BODY` (413).
    """
    if not values:
        raise Refused(HTTPStatus.LENGTH_REQUIRED, "a POST needs a Content-Length header")
    text = values[0].strip()
    if len(values) > 1 or not text.isascii() or not text.isdigit():
        raise Refused(HTTPStatus.BAD_REQUEST,
                      f"Content-Length must be one byte count, got "
                      f"{_one_line(', '.join(values), 60)!r}")
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(MAX_BODY)) or int(digits) > MAX_BODY:  # no int() of 60 kB
        raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                      f"the request body may be at most {MAX_BODY:,} bytes")
    return int(digits)


class _Handler(BaseHTTPRequestHandler):
    """Routes the app's few requests to the server's :class:`Table`, after the checks that
    keep other web pages and other machines' names out (see the module's docstring)."""

    server: AppServer
    server_version = "zavandor"
    timeout = SOCKET_TIMEOUT  # a client that stops sending mid-request is dropped
    deadline = 0.0  # (monotonic) when the request being read must be read whole

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # the plain reader: every read now goes through the deadline
        self.rfile = deadline_reader(self)

    def handle_one_request(self) -> None:
        # The deadline covers the wait for the request and its reading; http.server answers
        # a TimeoutError by closing the connection.
        self.deadline = time.monotonic() + REQUEST_DEADLINE
        super().handle_one_request()

    def version_string(self) -> str:
        """The ``Server`` header: the app's name, not the Python version."""
        return self.server_version

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 -- the base's name
        if self.server.verbose:
            super().log_message(format, *args)

    def end_headers(self) -> None:
        """Every response, http.server's own errors included, gets the security headers."""
        for key, value in self.server.security_headers.items():
            self.send_header(key, value)
        super().end_headers()

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        """http.server's own refusals (a malformed request line, too many headers, a method
        the app has not: ``PUT``, ``OPTIONS``...) as one JSON line, like the app's."""
        self.close_connection = True
        self._json({"error": _one_line(message or HTTPStatus(code).phrase)}, code)

    def _send(self, status: int, body: bytes, content_type: str,
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, data: Any, status: int = HTTPStatus.OK,
              extra: dict[str, str] | None = None) -> None:
        body = json.dumps(data, separators=(",", ":")).encode()
        self._send(status, body, "application/json", extra)

    def _refuse(self, exc: Refused) -> None:
        # The body may be unread: the connection must not be read again as a next request.
        self.close_connection = True
        self._json({"error": str(exc)}, exc.status)

    def _check_host(self) -> str:
        """The request's ``Host``, if it names this server (DNS rebinding gives a page of
        another site this server's address under that site's name: its requests carry the
        other name)."""
        hosts = self.headers.get_all("Host") or [""]
        host = hosts[0].strip().lower()
        if len(hosts) > 1 or host not in self.server.allowed_hosts:  # two: which one is it?
            raise Refused(HTTPStatus.MISDIRECTED_REQUEST, "this server does not answer to "
                          f"Host {_one_line(', '.join(hosts), 80)!r}: open {self.server.url}")
        return host

    def _check_same_origin(self, host: str) -> None:
        """Refuse a state-changing request that a page of another origin sent.

        A browser names the sending page's origin (``Origin``, ``Sec-Fetch-Site``) where it
        can; the JSON content type and the page's token cover the rest: another origin can
        send neither without a CORS preflight, which this server never grants.
        """
        origin = self.headers.get("Origin")
        if origin is not None and origin.strip().lower() != f"http://{host}":
            raise Refused(HTTPStatus.FORBIDDEN,
                          f"a request from another origin ({_one_line(origin, 80)!r}) is refused")
        site = self.headers.get("Sec-Fetch-Site")
        if site is not None and site.strip().lower() not in ("same-origin", "none"):
            raise Refused(HTTPStatus.FORBIDDEN,
                          f"a {_one_line(site, 40)} request is refused: use the app's page")
        if self.headers.get_content_type() != "application/json":
            raise Refused(HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                          "the request body must be sent as Content-Type: application/json")
        token = (self.headers.get(TOKEN_HEADER) or "").encode("latin-1", "replace")
        if not hmac.compare_digest(token, self.server.token.encode()):
            raise Refused(HTTPStatus.FORBIDDEN,
                          f"missing or wrong {TOKEN_HEADER} header: reload the app's page")

    def _body(self) -> dict[str, Any]:
        """The request's JSON object, never read past :data:`MAX_BODY` bytes."""
        if self.headers.get("Transfer-Encoding") is not None:
            raise Refused(HTTPStatus.LENGTH_REQUIRED,
                          "send the body with a Content-Length, not a Transfer-Encoding")
        length = _content_length(self.headers.get_all("Content-Length") or [])
        raw = self.rfile.read(length) if length else b""
        if len(raw) < length:
            raise Refused(HTTPStatus.BAD_REQUEST, "the request body ended before its length")
        try:
            data = parse_json(raw or b"{}", what="the request body", max_bytes=MAX_BODY,
                              max_depth=_MAX_BODY_DEPTH)
        except UntrustedInputError as exc:
            raise Refused(HTTPStatus.BAD_REQUEST, _one_line(str(exc))) from None
        if not isinstance(data, dict):
            raise Refused(HTTPStatus.BAD_REQUEST, "the request body must be a JSON object")
        return data

    def do_GET(self) -> None:  # noqa: N802 -- http.server's naming
        # No GET changes anything (so none needs the same-origin checks of a POST); another
        # origin cannot read the answers (no CORS headers, Cross-Origin-Resource-Policy).
        try:
            self._check_host()
        except Refused as exc:
            self._refuse(exc)
            return
        table = self.server.table
        path = self.path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            self._send(HTTPStatus.OK, self.server.page, "text/html; charset=utf-8")
        elif path == "/api/state":
            with table.lock:
                self._json(table.state())
        elif path == "/api/replay":
            with table.lock:
                record, seed = table.replay_record(), table.seed
            name = f"zavandor-replay-{seed}.json"
            self._json(record, extra={"Content-Disposition": f'attachment; filename="{name}"'})
        else:
            self._json({"error": f"no such page: {_one_line(path, 80)}"}, HTTPStatus.NOT_FOUND)

    def do_POST(self) -> None:  # noqa: N802 -- http.server's naming
        try:
            self._check_same_origin(self._check_host())
            body = self._body()
        except Refused as exc:
            self._refuse(exc)
            return
        table = self.server.table
        path = self.path.split("?", 1)[0]
        try:
            with table.lock:
                if path == "/api/act":
                    table.play(body.get("action"), body.get("decision"))
                elif path == "/api/new":
                    table.new_game(_seed(body.get("seed")))
                else:
                    self._json({"error": f"no such endpoint: {_one_line(path, 80)}"},
                               HTTPStatus.NOT_FOUND)
                    return
                state = table.state()
        except BadRequest as exc:
            with table.lock:
                state = table.state()
            self._json({"error": str(exc), "state": state}, HTTPStatus.BAD_REQUEST)
            return
        except Exception as exc:  # noqa: BLE001 -- an agent failed: tell the page in one line
            self._json({"error": _one_line(f"server error: {type(exc).__name__}: {exc}")},
                       HTTPStatus.INTERNAL_SERVER_ERROR)
            return
        self._json(state)


def _seed(value: object) -> int | None:
    """The seed of ``/api/new`` (None: a random one)."""
    if value is not None and (type(value) is not int or not 0 <= value <= MAX_SEED):
        raise BadRequest(f"seed must be an integer 0..{MAX_SEED}, got {_one_line(repr(value), 60)}")
    return value


def _bracketed(host: str) -> str:
    """``host`` as it appears in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host


class AppServer(ThreadingHTTPServer):
    """The app's HTTP server around one :class:`Table` (``serve_forever`` / ``shutdown``).

    Args:
        table: the game it serves.
        host, port: where it listens (port 0: any free one; an IPv6 address works too).
        verbose: log every request on stderr.
        allow_hosts: more names the page may be opened under (``Host``), beyond the address
            it listens on, ``localhost``, ``127.0.0.1`` and ``[::1]``: the machine's name or
            LAN address for a server on ``0.0.0.0``.
    """

    daemon_threads = True  # a browser's idle keep-alive connection must not block exit
    request_queue_size = MAX_CONNECTIONS  # a burst up to the cap is accepted, not retried

    def __init__(self, table: Table, host: str = "127.0.0.1", port: int = 8765,
                 verbose: bool = False, allow_hosts: Sequence[str] = ()) -> None:
        self.table = table
        self.verbose = verbose
        self.token = secrets.token_urlsafe(32)
        self.page = page(self.token).encode()
        self.security_headers = {**SECURITY_HEADERS,
                                 "Content-Security-Policy": content_security_policy()}
        self.slots = ConnectionSlots(MAX_CONNECTIONS, MAX_CONNECTIONS_PER_CLIENT)
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host, port), _Handler)
        names = {"localhost", "127.0.0.1", "[::1]", _bracketed(host.lower()),
                 *(_bracketed(name.strip().lower()) for name in allow_hosts)}
        bound = self.server_address[1]
        self.allowed_hosts = frozenset({f"{name}:{bound}" for name in names}
                                       | (names if bound == 80 else set()))

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{_bracketed(str(host))}:{port}/"

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve a connection in its own thread, or close it at once when
        :data:`MAX_CONNECTIONS` are open, or :data:`MAX_CONNECTIONS_PER_CLIENT` of its
        address (so open sockets cannot pile up threads, nor one client take every slot)."""
        if not self.slots.take(str(client_address[0])):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.give_back(str(client_address[0]))
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.give_back(str(client_address[0]))
