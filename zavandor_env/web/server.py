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

Endpoints (all JSON but ``/`` and the replay download)::

    GET  /              the app page (self-contained: inline CSS and JS)
    GET  /api/state     the table as the person sees it (see Table.state)
    POST /api/act       {"action": index, "decision": n}: the person's decision; the agents
                        then play up to the person's next decision or the end of the game
    POST /api/new       {"seed": int or null}: a new game with the same agents
    GET  /api/replay    the replay JSON so far (a download; ``zavandor replay`` reads it)

The agents' moves are played inside the request that follows the person's move (not with
``play_game``, which owns its loop until the game ends), through the same agent contract:
``act(observation, view, legal_actions)``.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from zavandor_env.agents.base import Agent
from zavandor_env.agents.human import HELP, AuctionWatcher
from zavandor_env.agents.match import ObservationFn, default_observation_fn
from zavandor_env.agents.registry import make_agent
from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine.actions import ACTION_NAMES, action_block, action_to_string
from zavandor_env.engine.outcome import game_outcome

from . import asset, fill

#: Decisions the agents may take in one request before the server gives up on the game (a
#: safety net far above any real game: GameConfig.max_decisions ends games long before).
_MAX_AGENT_STEPS = 1_000_000
_MAX_BODY = 10_000  # bytes: a request body is one small JSON object


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
        self._observe: ObservationFn | None = None
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
            legal = game.legal_actions()
            obs = None
            if agent.needs_observation:
                if self._observe is None:  # built once: it needs numpy and the encoder
                    self._observe = default_observation_fn()
                obs = self._observe(game, seat)
            action = agent.act(obs, self.game.view(seat), legal)
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
        from zavandor_env.engine.svg import to_svg

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
            "eliminated": [p.eliminated for p in game.read_state().players],
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


def page() -> str:
    """The app page, everything inline."""
    import html

    return fill(asset("app.html"), style=asset("common.css") + asset("app.css"),
                help=html.escape(HELP), script=asset("app.js"))


class _Handler(BaseHTTPRequestHandler):
    """Routes the app's few requests to the server's :class:`Table`."""

    server: AppServer
    server_version = "zavandor"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 -- the base's name
        if self.server.verbose:
            super().log_message(format, *args)

    def _send(self, status: int, body: bytes, content_type: str,
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, data: Any, status: int = HTTPStatus.OK,
              extra: dict[str, str] | None = None) -> None:
        body = json.dumps(data, separators=(",", ":")).encode()
        self._send(status, body, "application/json", extra)

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        if length > _MAX_BODY:
            raise BadRequest("request body too large")
        raw = self.rfile.read(length) if length else b"{}"
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            raise BadRequest("the request body is not JSON") from None
        if not isinstance(data, dict):
            raise BadRequest("the request body must be a JSON object")
        return data

    def do_GET(self) -> None:  # noqa: N802 -- http.server's naming
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
            self._json({"error": f"no such page: {path}"}, HTTPStatus.NOT_FOUND)

    def do_POST(self) -> None:  # noqa: N802 -- http.server's naming
        table = self.server.table
        path = self.path.split("?", 1)[0]
        try:
            body = self._body()
            with table.lock:
                if path == "/api/act":
                    table.play(body.get("action"), body.get("decision"))
                elif path == "/api/new":
                    seed = body.get("seed")
                    if seed is not None and (type(seed) is not int or seed < 0):
                        raise BadRequest(f"seed must be a non-negative integer, got {seed!r}")
                    table.new_game(seed)
                else:
                    self._json({"error": f"no such endpoint: {path}"}, HTTPStatus.NOT_FOUND)
                    return
                state = table.state()
        except BadRequest as exc:
            with table.lock:
                state = table.state()
            self._json({"error": str(exc), "state": state}, HTTPStatus.BAD_REQUEST)
            return
        except Exception as exc:  # noqa: BLE001 -- an agent failed: tell the page in one line
            message = " ".join(str(exc).split())
            self._json({"error": f"server error: {type(exc).__name__}: {message}"},
                       HTTPStatus.INTERNAL_SERVER_ERROR)
            return
        self._json(state)


class AppServer(ThreadingHTTPServer):
    """The app's HTTP server around one :class:`Table` (``serve_forever`` / ``shutdown``)."""

    daemon_threads = True  # a browser's idle keep-alive connection must not block exit

    def __init__(self, table: Table, host: str = "127.0.0.1", port: int = 8765,
                 verbose: bool = False) -> None:
        self.table = table
        self.verbose = verbose
        self.page = page().encode()
        super().__init__((host, port), _Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/"
