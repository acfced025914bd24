"""The documentation site (mkdocs.yml, docs/) builds without a warning, and what it shows is whole.

* ``mkdocs build --strict`` into a temporary folder: any warning fails it (a page missing from
  the nav, a link to a page or an anchor that does not exist, a docstring mkdocstrings cannot
  read, an included file that is gone).
* Every page of the built site: every ``href`` and ``src`` inside the site points to a file
  that was built, and every ``#anchor`` to an id on its page.
* Headless Chromium opens the home page and the environment page from a local web server and
  checks that every image loaded (``naturalWidth`` > 0).
* The source pages: no table cell of 1,000 characters, no internal issue numbers anywhere in
  the code or the documentation, and a TensorBoard page that names every tag the trainers
  write.

Needs the ``docs`` extra (``pip install -e ".[docs]"``); without it the site tests are skipped
with the reason, except on CI, which installs it (.ci/run).
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
TENSORBOARD_PAGE = DOCS / "tensorboard.md"


def _mkdocs_missing() -> str | None:
    for module, package in (("mkdocs", "mkdocs"), ("material", "mkdocs-material"),
                            ("mkdocstrings_handlers.python", "mkdocstrings[python]")):
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            return f"{package} is not installed (pip install -e '.[docs]')"
    return None


_NO_MKDOCS = pytest.mark.skipif(_mkdocs_missing() is not None, reason=str(_mkdocs_missing()))


def test_ci_has_the_docs_tools() -> None:
    """CI installs the docs extra (.ci/run), so there the site tests must run, not skip."""
    if os.environ.get("CI") == "true":
        assert _mkdocs_missing() is None, f"CI cannot build the site: {_mkdocs_missing()}"


def build_site(out: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of this checkout into ``out``."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(out), "--config-file", str(ROOT / "mkdocs.yml")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if _mkdocs_missing():
        pytest.skip(str(_mkdocs_missing()))
    out = tmp_path_factory.mktemp("site")
    result = build_site(out)
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stderr[-4000:]}"
    return out


@_NO_MKDOCS
def test_site_builds_strict_with_every_page(site: Path) -> None:
    pages = {p.relative_to(DOCS).with_suffix("") for p in DOCS.rglob("*.md")}
    for page in pages:
        built = site / ("index.html" if page.name == "index" else page / "index.html")
        assert built.is_file(), f"docs/{page}.md was not built"
    for name in ("integrations", "security", "research-log", "glossary", "api", "tensorboard"):
        assert (site / name / "index.html").is_file()


@_NO_MKDOCS
def test_api_page_documents_the_public_names(site: Path) -> None:
    html = (site / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("zavandor_env.envs.aec.env", "zavandor_env.envs.aec.raw_env",
                 "zavandor_env.envs.single_agent.SingleAgentEnv", "zavandor_env.engine.game.Game",
                 "zavandor_env.agents.registry.make_agent", "zavandor_env.engine.agent.Agent"):
        assert f'id="{name}"' in html, f"the API page lacks {name}"
    assert "legal_actions" in html  # the members are rendered, not only the headings
    for name in ("zavandor_env.eval.evaluate.evaluate", "zavandor_env.eval.stats.wilson_interval",
                 "zavandor_env.agents.policy_file.load_policy",
                 "zavandor_env.agents.policy_file.save_policy",
                 "zavandor_env.agents.policy.PolicyAgent"):
        assert f'id="{name}"' in html, f"the API page lacks {name}"
    # raw_env's step and observe say what they do (they had no text)
    assert "Play <code>action</code>" in html and "What <code>agent</code> sees now" in html


#: A Sphinx role as written in a docstring; docs/sphinx_roles.py turns each into a link.
LITERAL_ROLE = re.compile(r":(?:func|class|mod|attr|meth|data|exc|obj):(?:`|<code>)")


@_NO_MKDOCS
def test_no_page_shows_a_literal_sphinx_role(site: Path) -> None:
    shown = {str(p.relative_to(site)): LITERAL_ROLE.findall(p.read_text(encoding="utf-8"))
             for p in site.rglob("*.html")}
    assert not {page: roles for page, roles in shown.items() if roles}
    html = (site / "api" / "index.html").read_text(encoding="utf-8")
    # a role whose target is documented on the site is a link to it
    assert re.search(r'<a class="autorefs autorefs-internal"[^>]*href="[^"]*#zavandor_env\.envs'
                     r'\.rewards\.RewardConfig"[^>]*><code>RewardConfig</code></a>', html)


def test_the_role_rewriter_resolves_short_relative_and_imported_names() -> None:
    pytest.importorskip("griffe")
    sys.path.insert(0, str(DOCS))
    try:
        from sphinx_roles import rewrite
    finally:
        sys.path.remove(str(DOCS))
    import griffe

    package = griffe.load("zavandor_env", search_paths=[str(ROOT)])
    game = package["engine.game.Game"]
    text = rewrite(game, ":class:`~.outcome.Outcome` and :meth:`outcome`, :class:`GameConfig`")
    assert '<autoref identifier="zavandor_env.engine.outcome.Outcome" optional>' in text
    assert '<autoref identifier="zavandor_env.engine.game.Game.outcome" optional>' in text
    assert '<autoref identifier="zavandor_env.engine.config.GameConfig" optional>' in text
    assert "<code>Outcome</code>" in text and ":class:" not in text


class _Refs(HTMLParser):
    """The ids of a page and the href/src values it points at."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key == "id" and value:
                self.ids.add(value)
            if key in ("href", "src") and value and not (tag == "a" and key == "src"):
                self.refs.append(value)


@functools.cache
def _parse(path: Path) -> _Refs:
    refs = _Refs()
    refs.feed(path.read_text(encoding="utf-8"))
    return refs


def _target(site: Path, page: Path, ref: str) -> tuple[Path, str] | None:
    """The built file and anchor ``ref`` on ``page`` points at; None for outside links."""
    parts = urlsplit(ref)
    if parts.scheme or parts.netloc or ref.startswith(("mailto:", "javascript:", "data:")):
        return None
    if not parts.path:
        return page, parts.fragment
    # A root-relative path (the 404 page's, which may be served from any folder) starts at
    # the site's top.
    base = site if parts.path.startswith("/") else page.parent
    path = (base / unquote(parts.path).lstrip("/")).resolve()
    if path.is_dir():
        path = path / "index.html"
    assert site.resolve() in path.parents or path == site.resolve(), f"{ref} leaves the site"
    return path, parts.fragment


def broken_links(site: Path) -> list[str]:
    """Every internal href/src of the built site that points at nothing, as 'page -> ref'."""
    broken = []
    for page in sorted(site.rglob("*.html")):
        for ref in _parse(page).refs:
            target = _target(site, page, ref)
            if target is None:
                continue
            path, anchor = target
            if not path.is_file():
                broken.append(f"{page.relative_to(site)} -> {ref}")
            elif anchor and path.suffix == ".html" and anchor not in _parse(path).ids:
                broken.append(f"{page.relative_to(site)} -> {ref} (no such anchor)")
    return broken


@_NO_MKDOCS
def test_every_internal_link_and_image_of_the_site_resolves(site: Path) -> None:
    assert not broken_links(site), "broken links:\n" + "\n".join(broken_links(site))


def test_the_link_check_finds_a_missing_image_and_anchor(tmp_path: Path) -> None:
    """The checker itself: a missing picture, a missing page and a missing anchor are found."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text(
        '<p id="here"><img src="../images/gone.png"><a href="../b/">b</a>'
        '<a href="#here">ok</a><a href="#nowhere">x</a><a href="https://example.org/">out</a>'
        '<a href="/a/#here">root</a><a href="/a/#gone">root</a>')
    found = broken_links(tmp_path)
    assert found == ["a/index.html -> ../images/gone.png", "a/index.html -> ../b/",
                     "a/index.html -> #nowhere (no such anchor)",
                     "a/index.html -> /a/#gone (no such anchor)"]


@pytest.fixture(scope="module")
def served_site(site: Path) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1 (directory URLs need a server, not file://)."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  (the base's name)
        pass


def _browser_missing() -> str | None:
    from tests.web.test_browser import _missing

    return _mkdocs_missing() or _missing()


@pytest.mark.skipif(_browser_missing() is not None, reason=str(_browser_missing()))
@pytest.mark.parametrize("page", ["", "environment/", "tutorials/play/"])
def test_pages_show_every_image_in_chromium(served_site: str, page: str) -> None:
    from tests.web.test_browser import start_browser, wait_for

    driver = start_browser()
    try:
        driver.get(served_site + page)
        wait_for(driver, lambda d: d.execute_script(
            "return document.readyState === 'complete' && "
            "Array.from(document.images).every(i => i.complete)"), "the images")
        images = driver.execute_script(
            "return Array.from(document.images).map(i => [i.getAttribute('src'), i.naturalWidth])")
        assert images, f"{page or 'the home page'} shows no image"
        blank = [src for src, width in images if width == 0]
        assert not blank, f"images that did not load on /{page}: {blank}"
        assert "zavandor" in driver.title.lower()
    finally:
        driver.quit()


# ---- the source pages --------------------------------------------------------------------
def _markdown_files() -> list[Path]:
    return [ROOT / "README.md", ROOT / "configs" / "README.md", *sorted(DOCS.rglob("*.md"))]


@pytest.mark.parametrize("path", _markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_table_cell_is_a_page_of_text(path: Path) -> None:
    """A table cell of 1,000 characters is a section in disguise: write it as prose."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("|"):
            longest = max(len(cell) for cell in line.split("|"))
            assert longest < 1000, f"{path.name}:{number}: a table cell of {longest} characters"


ISSUE = re.compile(r"issue [0-9]+|issue #", re.I)
SKIP_DIRS = {".git", ".venv", "build", "dist", "node_modules", "__pycache__", ".mypy_cache",
             ".ruff_cache", ".pytest_cache", ".hypothesis"}
TEXT = {".py", ".md", ".yaml", ".yml", ".toml", ".cfg", ".txt", ".cpp", ".hpp", ".h", ".c",
        ".js", ".html", ".css", ".sh", ""}


def _project_text_files() -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames
                       if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        for name in filenames:
            path = Path(dirpath) / name
            if path.suffix in TEXT and not path.is_symlink():
                yield path


def test_no_internal_issue_numbers_in_code_or_docs() -> None:
    """Readers outside the project cannot look an internal issue up: say what it was."""
    found = []
    for path in _project_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if ISSUE.search(line) and path != Path(__file__).resolve():
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, "internal issue numbers:\n" + "\n".join(found)


# ---- TensorBoard tags ----------------------------------------------------------------------
TAG_LITERAL = re.compile(
    r"f?\"((?:eval|charts|rating|pool|actions|perf|time|train|rollout|selfplay|loss|policy)"
    r"/[^\"]*)\"")


def _as_pattern(tag: str) -> re.Pattern[str]:
    """A tag with ``{placeholders}`` as a regular expression (a placeholder: any text)."""
    return re.compile("".join(".+" if part.startswith("{") else re.escape(part)
                              for part in re.split(r"(\{[^}]*\})", tag)))


def documented_tags() -> list[str]:
    text = TENSORBOARD_PAGE.read_text(encoding="utf-8")
    return [t for t in re.findall(r"`([a-z_]+/[^`\s]+)`", text)]


def test_tensorboard_page_names_every_tag_the_trainers_write() -> None:
    """Every tag literal in train/ (SB3 callbacks, RLlib, expert iteration) is on the page."""
    documented = documented_tags()
    sources = [p for p in (ROOT / "train").rglob("*.py") if "checkpoints" not in p.parts]
    missing = []
    for path in sources:
        for tag in TAG_LITERAL.findall(path.read_text(encoding="utf-8")):
            pattern = _as_pattern(tag)
            if not any(pattern.fullmatch(doc) or _as_pattern(doc).fullmatch(tag)
                       for doc in documented):
                missing.append(f"{path.relative_to(ROOT)}: {tag}")
    assert not missing, "tags missing from docs/tensorboard.md:\n" + "\n".join(missing)


@pytest.mark.skipif(importlib.util.find_spec("sb3_contrib") is None
                    or importlib.util.find_spec("tensorboard") is None,
                    reason="needs the train extra (sb3-contrib, tensorboard)")
def test_a_training_run_writes_only_documented_tags(tmp_path: Path) -> None:
    """The default quick run's event file (SB3's own tags included) against the page."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    result = subprocess.run([sys.executable, "-m", "zavandor_env.cli", "train", "--quiet"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=600,
                            env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert result.returncode == 0, result.stderr[-3000:]
    (run,) = (tmp_path / "runs").iterdir()
    events = EventAccumulator(str(run))
    events.Reload()
    written = events.Tags()["scalars"]
    assert "eval/winrate_vs_heuristic" in written
    patterns = [_as_pattern(doc) for doc in documented_tags()]
    undocumented = [t for t in written if not any(p.fullmatch(t) for p in patterns)]
    assert not undocumented, f"tags not on docs/tensorboard.md: {undocumented}"
