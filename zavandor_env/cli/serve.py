"""``zavandor serve``: a game against agents in the browser (a local web app)."""

from __future__ import annotations

import argparse
from typing import Any

from zavandor_env.cli import common


def add_parser(sub: Any) -> None:
    """Register ``serve`` with the subcommands' action ``sub``."""
    serve = sub.add_parser(
        "serve", help="play against agents in the browser (a local web app)",
        description="Serves one game at a time to a browser: the table from your seat, your "
        "legal actions as buttons, every won auction with its price, a new-game button and "
        "the replay as a download.  Listens on 127.0.0.1 only unless --host says otherwise.  "
        "It answers only requests that name it (Host: the address it listens on, localhost, "
        "127.0.0.1, [::1] or an --allow-host name) and acts only on its own page's requests, "
        "so another web page cannot play or start a game.",
        epilog=common.examples(
            "# one heuristic opponent; open the printed address",
            "zavandor serve",
            "# two opponents, you in the second seat, on another port",
            "zavandor serve --agents heuristic random --seat 1 --port 8800"))
    serve.add_argument("--agents", nargs="+", default=["heuristic"], metavar="SPEC",
                       help="opponent agents, 1 to 5 (default: one heuristic)")
    serve.add_argument("--seat", type=common.NON_NEGATIVE, default=0, help="your seat (0 = first)")
    serve.add_argument("--seed", type=common.NON_NEGATIVE, default=None,
                       help="the first game's deal seed (default: random)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on "
                       "(default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=common.int_range(0, 65535), default=8765,
                       help="port (default 8765; 0: any free port)")
    serve.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                       type=host_name,
                       help="another name the page may be opened under (this machine's name "
                       "or LAN address, with --host 0.0.0.0); repeatable")
    serve.add_argument("--verbose", action="store_true", help="log every request")
    serve.set_defaults(func=run)


def host_name(text: str) -> str:
    """An ``--allow-host`` name: a host name or address as a URL writes it, without a port."""
    import re

    if not re.fullmatch(r"[A-Za-z0-9._-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\]", text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a host name (no port, no scheme; an IPv6 address in brackets)")
    return text


def run(args: argparse.Namespace) -> int:
    """Run ``zavandor serve`` until Ctrl-C; return the exit code."""
    from zavandor_env.web.server import AppServer, Table

    try:
        table = Table(args.agents, seat=args.seat, seed=args.seed)
    except ValueError as exc:  # a bad agent spec, seat or player count
        return common.fail("serve", exc)
    try:
        server = AppServer(table, host=args.host, port=args.port, verbose=args.verbose,
                           allow_hosts=args.allow_host)
    except OSError as exc:  # port taken, address not local...
        return common.fail("serve", f"cannot listen on {args.host}:{args.port}: "
                           f"{exc.strerror or exc}")
    with server:
        if args.host not in ("127.0.0.1", "localhost", "::1"):
            # The server answers only the names it knows (DNS rebinding): say which.
            names = ("this machine's name or address, given with --allow-host"
                     if args.host in ("0.0.0.0", "::") else
                     f"{server.url} or a name given with --allow-host")
            print(f"note: --host {args.host} lets other machines reach this game; "
                  f"they open it as {names}")
        print(f"Zavandor at {server.url} (you are player_{args.seat} against "
              f"{', '.join(args.agents)}); Ctrl-C stops", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("\nzavandor serve: stopped")
    return 0

