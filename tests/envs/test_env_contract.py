"""The one contract of every face of the environment (docs/integrations.md, "The contract of
every face"): the same info keys and dtypes at every step, masks never all-False where a
library samples, the rulebook reward by default, ``illegal_action="terminate"|"raise"`` with
``illegal_reward``, seeding that fixes the deal, copies that carry the game in progress, and
exceptions that survive pickling.  Each test runs on every face of tests/env_faces.py:
adding a face = adding it to ``FACES`` there.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import pickle
import pkgutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import zavandor_env
from tests.env_faces import FACES, Face, Slot

NAMES = list(FACES)
# The dtype rule of every info (zavandor_env/envs/contract.py): unbatched keys holding a Python
# scalar and its type; keys holding a NumPy array and its dtype (action_mask: int8[A], the others
# [P]); what a vector face makes of each scalar type (as Gymnasium's SyncVectorEnv does).
SCALAR_KEYS = {"game_over": bool, "terminated": bool, "truncated": bool,
               "illegal_action": bool, "rounds": int, "seat": int}
ARRAY_DTYPES = {"action_mask": np.dtype(np.int8), "scores": np.dtype(np.int32),
                "ranks": np.dtype(np.int32), "winners": np.dtype(np.int8)}
BATCHED_SCALAR = {bool: np.dtype(np.bool_), int: np.dtype(np.int64)}
#: Faces whose copies carry the game (the others refuse in one line, see COPY_REFUSED).
COPYABLE = {"aec": ("pickle", "deepcopy"), "single": ("pickle", "deepcopy"),
            "sync": ("deepcopy",), "rllib": ("pickle", "deepcopy")}
#: Faces that cannot be copied, and the words of their refusal.
COPY_REFUSED = {"native": "^ZavandorVectorEnv cannot be copied or pickled: its games live",
                "sb3": "^ZavandorVectorEnv cannot be copied or pickled: its games live"}


@pytest.fixture(params=NAMES)
def face_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _build(name: str, **options: Any) -> Face:
    return FACES[name](**options)


def _random_actions(slots: list[Slot], rng: np.random.Generator) -> list[int]:
    return [int(rng.choice(np.flatnonzero(s.mask))) for s in slots]


def _play(face: Face, steps: int, seed: int = 0) -> Iterator[list[Slot]]:
    """Random play within the masks for ``steps`` steps; single-game faces are reset when
    their game ends, vector faces reset themselves.  Yields every reset's and step's slots."""
    rng = np.random.default_rng(seed)
    slots = face.reset(seed)
    yield slots
    for _ in range(steps):
        if face.slots == 1 and slots[0].done:
            seed += 1
            slots = face.reset(seed)
            yield slots
        slots = face.step(_random_actions(slots, rng))
        yield slots


# ---- infos -----------------------------------------------------------------------------------
def _check_unbatched(info: dict[str, Any]) -> None:
    for key, value in info.items():
        if key in SCALAR_KEYS:
            assert type(value) is SCALAR_KEYS[key], (key, type(value))
        else:
            assert isinstance(value, np.ndarray) and value.dtype == ARRAY_DTYPES[key], key


def _check_batched(info: dict[str, Any], n: int) -> None:
    for key, value in info.items():
        if key.startswith("_") or key in ("final_obs", "final_info"):
            continue
        want = BATCHED_SCALAR[SCALAR_KEYS[key]] if key in SCALAR_KEYS else ARRAY_DTYPES[key]
        assert value.dtype == want and len(value) == n, (key, value.dtype)
        assert info[f"_{key}"].all(), key  # every key present for every slot, every step


def test_every_step_has_the_same_info_keys_with_one_dtype_rule(face_name: str) -> None:
    face = _build(face_name)
    endings = 0
    for slots in _play(face, 120):
        if face.batched:
            _check_batched(face.raw_info, face.slots)
        for slot in slots:
            assert set(slot.info) == face.info_keys
            if not face.batched:
                _check_unbatched(slot.info)
            endings += slot.done
    face.close()
    assert endings > 0  # the keys were seen on endings too


def test_a_mask_a_library_samples_from_is_never_all_false(face_name: str) -> None:
    face = _build(face_name)
    endings = 0
    for slots in _play(face, 120, seed=1):
        for slot in slots:
            endings += slot.done
            if slot.done and face_name == "aec":
                continue  # PettingZoo: a finished agent steps None, it samples nothing
            assert slot.mask.any(), "an all-False mask turns -inf masking into NaN"
            if "action_mask" in slot.info:
                assert slot.info["action_mask"].any()
    face.close()
    assert endings > 0


# ---- rewards ---------------------------------------------------------------------------------
def test_rewards_default_to_the_rulebook_outcome_alone(face_name: str) -> None:
    """No shaping unless asked: every step but a game's last pays 0 on every face."""
    face = _build(face_name)
    paid_at_end = []
    for slots in _play(face, 150, seed=2):
        for slot in slots:
            if slot.done:
                paid_at_end.append(slot.reward)
            else:
                assert slot.reward == 0.0
    face.close()
    assert paid_at_end and all(r in (-1.0, 0.0, 1.0) for r in paid_at_end)


# ---- illegal actions -------------------------------------------------------------------------
def _illegal_first(slots: list[Slot]) -> list[int]:
    actions = [int(np.flatnonzero(s.mask)[0]) for s in slots]
    actions[0] = int(np.flatnonzero(~slots[0].mask.astype(bool))[0])
    return actions


def test_an_illegal_action_ends_that_episode_with_illegal_reward_by_default(
        face_name: str) -> None:
    face = _build(face_name, illegal_reward=-2.5)
    slots = face.step(_illegal_first(face.reset(3)))
    first = slots[0]
    assert first.done and first.reward == -2.5
    assert first.info["illegal_action"] and first.info["game_over"]
    assert not first.info["terminated"] and not first.info["truncated"]
    assert not any(s.info["illegal_action"] for s in slots[1:])
    if face.slots > 1:  # the face plays on
        face.step(_random_actions(slots, np.random.default_rng(0)))
    face.close()


# Gymnasium's async vector env reports its worker's exception as red "ERROR" warnings before
# raising it here: the raise is what this test expects, so they are not shown.
@pytest.mark.filterwarnings("ignore:.*ERROR:UserWarning")
def test_illegal_action_raise_raises_a_value_error(face_name: str) -> None:
    face = _build(face_name, illegal_action="raise")
    slots = face.reset(4)
    with pytest.raises(ValueError, match="illegal action"):
        face.step(_illegal_first(slots))
    face.close()


def test_an_unknown_illegal_action_mode_is_refused_in_one_line(face_name: str) -> None:
    with pytest.raises(ValueError, match="^illegal_action must be 'terminate' or 'raise'"):
        _build(face_name, illegal_action="ignore")


def test_a_retired_backend_option_is_ignored_with_a_warning_or_refused_in_one_line(
        face_name: str) -> None:
    """Every face runs the C++ core: ``backend="native"`` is read by the one helper
    (``envs.options.check_backend``) and ignored with a warning; the Python rules are the
    tests' oracle, never an environment's engine."""
    if face_name == "async":
        pytest.skip("the options are read in the worker processes, whose warnings stay there")
    with pytest.warns(DeprecationWarning, match="^backend= is deprecated and ignored"):
        _build(face_name, backend="native").close()
    with pytest.raises(ValueError, match=r"^backend='python' is gone: games run on the C\+\+ "
                                         r"core") as info:
        _build(face_name, backend="python")
    assert "\n" not in str(info.value)


# ---- seeding and copies ----------------------------------------------------------------------
def _trajectory(face: Face, seed: int, steps: int = 25) -> list[np.ndarray]:
    seen = []
    for slots in _play(face, steps, seed=seed):
        seen.extend(s.obs.copy() for s in slots)
    return seen


def test_a_seed_fixes_the_deal(face_name: str) -> None:
    first, again, other = (_build(face_name) for _ in range(3))
    a, b, c = _trajectory(first, 7), _trajectory(again, 7), _trajectory(other, 8)
    for face in (first, again, other):
        face.close()
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


def _copy(env: Any, how: str) -> Any:
    return pickle.loads(pickle.dumps(env)) if how == "pickle" else copy.deepcopy(env)


def _gymnasium_copies_its_own_sync_vector_env() -> bool:
    """Whether this Gymnasium can deep-copy a built-in sync vector env (1.2 keeps a generator of
    its env functions, which no copy or pickle can carry, for CartPole as for us)."""
    import gymnasium

    built_in = gymnasium.make_vec("CartPole-v1", 2, vectorization_mode="sync")
    try:
        copy.deepcopy(built_in)
    except TypeError:
        return False
    finally:
        built_in.close()
    return True


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_copy_carries_the_game_in_progress(face_name: str, how: str) -> None:
    if face_name == "async":
        pytest.skip("Gymnasium's AsyncVectorEnv is not copyable (its worker pipes), for "
                    "CartPole as for us")
    if (face_name == "sync" and how == "deepcopy"
            and not _gymnasium_copies_its_own_sync_vector_env()):
        pytest.skip("this Gymnasium cannot deep-copy its own sync vector env (CartPole neither)")
    face = _build(face_name)
    rng = np.random.default_rng(5)
    slots = face.reset(5)
    for _ in range(6):  # mid-game (a reset replaces a finished single game)
        slots = face.step(_random_actions(slots, rng))
        if face.slots == 1 and slots[0].done:
            slots = face.reset(6)
    if how not in COPYABLE.get(face_name, ()):
        with pytest.raises((TypeError, AttributeError), match=COPY_REFUSED.get(face_name)):
            _copy(face.env, how)
        face.close()
        return
    twin = FACES[face_name].__new__(FACES[face_name])
    twin.__dict__.update(face.__dict__)
    twin.env = _copy(face.env, how)
    for _ in range(30):
        actions = _random_actions(slots, rng)
        slots, theirs = face.step(actions), twin.step(actions)
        for mine, copied in zip(slots, theirs, strict=True):
            assert np.array_equal(mine.obs, copied.obs) and mine.reward == copied.reward
        if face.slots == 1 and slots[0].done:
            break
    face.close()


# ---- exceptions ------------------------------------------------------------------------------
def _exception_classes() -> list[type[BaseException]]:
    """Every exception class defined in the package (modules whose optional library is
    missing are left out; their classes are checked where it is installed)."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(zavandor_env.__path__, "zavandor_env."):
        if info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:
            continue
        for obj in vars(module).values():
            if (inspect.isclass(obj) and issubclass(obj, BaseException)
                    and obj.__module__ == module.__name__):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [found[k] for k in sorted(found)]


#: Arguments of the exception classes whose ``__init__`` takes more than a message.
EXAMPLE_ARGS: dict[str, tuple[Any, ...]] = {
    "IllegalActionError": (3, (0, 1), [f"a{i}" for i in range(10)]),
    "RoundEndError": ("stopped at a round end", 4),
    "RayMissingError": ("--ray",),
    "TrainingInterrupted": (Path("runs/x"), 2048, True, 4096),
    "Refused": (400, "bad request"),
}


def test_every_exception_of_the_package_survives_pickling() -> None:
    classes = _exception_classes()
    assert len(classes) > 10
    for cls in classes:
        try:
            exc = cls(*EXAMPLE_ARGS.get(cls.__name__, ("one line",)))
        except TypeError:
            pytest.fail(f"{cls.__qualname__} takes more than a message: add it to EXAMPLE_ARGS")
        back = pickle.loads(pickle.dumps(exc))
        assert type(back) is cls and str(back) == str(exc), cls
        assert vars(back) == vars(exc), cls
