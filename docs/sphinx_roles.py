"""A griffe extension for the docs site: the docstrings' Sphinx roles as cross-references.

The code's docstrings write references the way ``help()`` and Sphinx read them,
``:class:`~zavandor_env.envs.rewards.RewardConfig``` and ``:func:`.game_outcome```.
mkdocstrings does not read roles, so the API page showed them as literal text.  Once the
package is loaded this rewrites every role into an ``<autoref optional>`` element: a link
where the target is documented on the site, its name in code font where it is not (no
warning either way).  Relative (``.outcome``) and short (``Game``) targets are resolved the way
Sphinx does, against the object's module, its package and the names the module imports.
``tests/project/test_docs_site.py`` fails on any role left in the built HTML.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|mod|attr|meth|data|exc|obj|const|type):`([^`]+)`")


def _exists(collection: Any, path: str) -> bool:
    try:
        collection[path]
    except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return False
    return True


def _resolve(obj: griffe.Object, target: str) -> str:
    """The full dotted path ``target`` stands for in ``obj``'s docstring (as given if none)."""
    collection = obj.modules_collection
    module = obj if obj.is_module else obj.module
    scopes = [obj.path] if obj.is_class else []
    if obj.parent is not None and obj.parent.is_class:
        scopes.append(obj.parent.path)  # a method's :meth:`other`
    scopes += [module.path]
    package = module.path.rpartition(".")[0]
    while package:
        scopes.append(package)
        package = package.rpartition(".")[0]
    name = target.lstrip(".")
    if target.startswith(".") or "." not in target or not target.startswith("zavandor_env"):
        head, _, rest = name.partition(".")
        imported = module.members.get(head)
        if isinstance(imported, griffe.Alias):  # a name the module imports
            candidate = imported.target_path + (f".{rest}" if rest else "")
            if _exists(collection, candidate):
                return candidate
        for scope in scopes:
            if _exists(collection, f"{scope}.{name}"):
                return f"{scope}.{name}"
    return name


def rewrite(obj: griffe.Object, text: str) -> str:
    """``text`` with each role replaced by an optional cross-reference."""

    def link(match: re.Match[str]) -> str:
        written = match.group(1).strip()
        short = written.startswith("~")
        target = written.lstrip("~")
        identifier = _resolve(obj, target)
        shown = target.rpartition(".")[2] if short else target.lstrip(".")
        return f'<autoref identifier="{identifier}" optional><code>{shown}</code></autoref>'

    return ROLE.sub(link, text)


class SphinxRoles(griffe.Extension):
    """Rewrites the roles of every docstring of a loaded package (see the module docstring)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        seen: set[int] = set()
        stack: list[griffe.Object] = [pkg]
        while stack:
            obj = stack.pop()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if obj.docstring is not None and ":" in obj.docstring.value:
                obj.docstring.value = rewrite(obj, obj.docstring.value)
            stack += [m for m in obj.members.values() if not isinstance(m, griffe.Alias)]
