"""The game in a browser: a self-contained replay viewer and a local web app to play in.

* :mod:`.viewer` turns a replay record into one offline HTML page (``zavandor replay FILE
  --html OUT.html``): the board at every decision, controls, the action log, a VP chart and,
  for a learned policy, its action probabilities and value estimate.
* :mod:`.server` serves a game against agents to a person on 127.0.0.1 (``zavandor serve``).

Both draw the board with :func:`zavandor_env.render.svg.to_svg`.  This package sits on top,
beside the CLI: it imports the engine and the agents, and nothing imports it but the CLI.
The pages' HTML, CSS and JavaScript live in ``static/`` and are inlined, so every page is one
file with no network access.
"""

from __future__ import annotations

from importlib import resources


def asset(name: str) -> str:
    """The text of one file of ``static/`` (a package resource: found in a wheel too)."""
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def script(name: str) -> str:
    """A page's script: ``static/common.js`` (what both pages share), then ``name``."""
    return asset("common.js") + asset(name)


def fill(template: str, **parts: str) -> str:
    """``template`` with every ``{{name}}`` replaced by ``parts[name]``, in one pass (so a
    part that happens to contain ``{{...}}`` is never substituted again)."""
    import re

    def substitute(match: re.Match[str]) -> str:
        return parts[match.group(1)]

    return re.sub(r"\{\{(\w+)\}\}", substitute, template)
