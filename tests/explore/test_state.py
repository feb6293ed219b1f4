"""The explorer's state is its URL: every query round-trips, and a bad one is one clear message."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recdiv.errors import ConfigError
from recdiv.explore.state import Diversifier, State, from_query, to_query
from tests.explore.conftest import synthetic_state

BASE = synthetic_state()


def test_round_trip_of_the_defaults():
    assert from_query(to_query(BASE)) == BASE
    assert from_query("?" + to_query(BASE)) == BASE


def test_parameters_are_read_as_the_command_line_reads_them():
    s = from_query("a=Calibrated&a.norm=none&a.lambda=1&rec.k=20&rec.feedback=implicit", BASE)
    assert s.a == Diversifier(reranker="Calibrated", params={"norm": None, "lambda": 1})
    assert s.recommender_params == {"k": 20, "feedback": "implicit"}
    quoted = from_query('a=Calibrated&a.norm="none"', BASE)
    assert quoted.a.params == {"norm": "none"}
    assert from_query(to_query(quoted)) == quoted  # the string "none" stays a string through the URL


def test_a_new_reranker_starts_from_its_defaults_and_the_same_one_keeps_its_parameters():
    s = from_query("a=MMR&a.lambda=0.2", BASE)
    assert from_query("a=xQuAD", s).a.params == {}
    assert from_query("a=MMR&a.variant=ranksys", s).a.params == {"lambda": 0.2, "variant": "ranksys"}
    assert from_query("b=none", s).b is None


@pytest.mark.parametrize(("query", "message"), [
    ("colour=red", "unknown key 'colour'"),
    ("n=500&n=600", "n is given twice"),
    ("n=abc", "n: Input should be a valid integer"),
    ("n=0", "n: Input should be greater than or equal to 1"),
    ("n=1000000", "n: Input should be less than or equal to 1000"),
    ("seed=-1", "seed: Input should be greater than or equal to 0"),
    ("threshold=nan", "threshold"),
    ("a.lambda=0.3&a=none", "parameters of configuration A without its reranker"),
    ("b.lambda=0.3&b=none&a=none", "parameters of configuration B without its reranker"),
    ("user=1%00", "control characters are not allowed"),
    ("dataset=" + "x" * 5000, "the state is too long"),
    ("m=" + "&m=".join(f"P@{i}" for i in range(1, 14)), "measures: Tuple should have at most 12 items"),
])
def test_bad_queries_are_one_clear_message(query, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        from_query(query, BASE)


_name = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF, blacklist_characters="\x7f"), min_size=1,
                max_size=12)
_value = st.one_of(st.booleans(), st.integers(-10**6, 10**6), st.floats(-1e6, 1e6, allow_nan=False), _name)


@settings(max_examples=150, deadline=None)
@given(user=st.one_of(st.none(), _name), params=st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True),
                                                                  _value, max_size=4),
       seed=st.integers(0, 2**31 - 1), k=st.integers(1, 1000))
def test_any_state_round_trips(user, params, seed, k):
    s = State(**{**BASE.model_dump(), "user": user, "seed": seed, "k": k,
                 "a": Diversifier(reranker="MMR", params=params, aspects="genres")})
    assert from_query(to_query(s)) == s
