"""Fuzz test of experiment files (hypothesis): mutate a valid file — wrong types, unknown keys, bad values, path
tricks, deleted keys, damaged text — and run `recdiv run` on it. Every outcome is either a clean error (exit 2, one
line `recdiv: error: exp.toml: ...`) with nothing written and a pre-existing results folder untouched, or a
finished run; a mutation that does not change the experiment gives the same results. Never a traceback."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import tempfile
import tomllib
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from recdiv.cli import main
from tests.experiment.conftest import small_toml

pytestmark = pytest.mark.slow

BASE = small_toml(
    """
name = "fz"
seed = 1

[[datasets]]
name = "synthetic:tiny"
splits = ["holdout:0.2"]

[[recommenders]]
name = "pop"
""",
    """measures = ["P@5", "ILD@5"]
threshold = 4
population = "judged"
""",
    """
[statistics]
test = "t"
""",
)


# a small TOML writer (tables, arrays of tables, everything deeper inline) -----------------------------------------
def _key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k, ensure_ascii=False)


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return ("nan" if math.isnan(v) else "inf" if v > 0 else "-inf") if not math.isfinite(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"


def dumps(data: dict) -> str:
    lines = [f"{_key(k)} = {_value(v)}" for k, v in data.items()
             if not isinstance(v, dict) and not (isinstance(v, list) and v and all(isinstance(x, dict) for x in v))]
    for k, v in data.items():
        if isinstance(v, dict):
            lines += ["", f"[{_key(k)}]", *(f"{_key(a)} = {_value(b)}" for a, b in v.items())]
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for item in v:
                lines += ["", f"[[{_key(k)}]]", *(f"{_key(a)} = {_value(b)}" for a, b in item.items())]
    return "\n".join(lines) + "\n"


# mutations ---------------------------------------------------------------------------------------------------------
def _paths(obj, prefix=()):
    """Every key path of a parsed file (dict keys and list indices)."""
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else []
    for k, v in items:
        yield (*prefix, k)
        yield from _paths(v, (*prefix, k))


def _get(obj, path):
    for k in path:
        obj = obj[k]
    return obj


BASE_DATA = tomllib.loads(BASE)
PATHS = sorted(_paths(BASE_DATA), key=str)
TABLES = [()] + [p for p in PATHS if isinstance(_get(BASE_DATA, p), dict)]

TRICKS = ["../../x", "..", ".", "/", "/etc", "/proc/x", "a/b", "results", "", " ", "x\x00y", "\x1b[31m", "é",
          "synthetic:nope", "synthetic:small", "pop", "random", "SVD", "genres", "latent", "latent-cosine", "kfold:2:9",
          "kfold:2:1", "holdout:1.5", "holdout:0.3", "temporal:0.8", "leave-last", "u1", "nDCG@5", "P@0", "explicit",
          "relevant", "judged", "wilcoxon", "bh", "MMR", "xQuAD", "IASelect", "recommender"]
values = st.one_of(
    st.integers(-3, 60), st.sampled_from([0, 1, 2**31, 2**63 - 1, -(2**63)]),
    st.floats(allow_nan=True, allow_infinity=True, width=64), st.sampled_from([0.0, 0.5, 1.0, 1e300, -0.0]),
    st.booleans(), st.text(max_size=6), st.sampled_from(TRICKS),
    st.lists(st.one_of(st.integers(-2, 9), st.sampled_from(TRICKS), st.floats(0, 1)), max_size=3),
    st.dictionaries(st.sampled_from(["a", "lambda", "factors", "n_users", "seed", "name"]),
                    st.one_of(st.integers(-2, 50), st.floats(0, 1), st.sampled_from(TRICKS)), max_size=2),
)
mutation = st.one_of(
    st.tuples(st.just("set"), st.sampled_from(PATHS), st.none(), values),
    st.tuples(st.just("add"), st.sampled_from(TABLES), st.sampled_from(["zzz", "Name", "label", "options", "params",
                                                                         "output", "data_dir", "similarity", "l"]),
              values),
    st.tuples(st.just("delete"), st.sampled_from(PATHS), st.none(), st.none()),
)
# mutations that leave the experiment as it is: the results must be the same
NOOPS = ["comment", "blank lines", "float threshold", "reordered keys", "inline table"]


def _apply(data: dict, m) -> None:
    kind, path, key, value = m
    if kind == "add":
        _get(data, path)[key] = value
        return
    parent = _get(data, path[:-1])
    if kind == "delete":
        del parent[path[-1]]
    else:
        parent[path[-1]] = value


def _noop(text: str, kind: str) -> str:
    if kind == "comment":
        return "# a comment\n" + text.replace("\n[metrics]", "\n[metrics] # measures\n# more", 1)
    if kind == "blank lines":
        return text.replace("\n", "\n\n")
    if kind == "float threshold":
        return text.replace("threshold = 4", "threshold = 4.0")
    if kind == "reordered keys":
        return text.replace('name = "fz"\nseed = 1', 'seed = 1\nname = "fz"')
    inline = "seed = 1\ncandidates = { k = 5, n = 20 }\n"
    return text.replace("[candidates]\nn = 20\nk = 5\n", "").replace("seed = 1\n", inline)


def _results(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and "cache" not in p.parts}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> pd.DataFrame:
    root = tmp_path_factory.mktemp("ref")
    (root / "exp.toml").write_text(BASE, "utf-8")
    with contextlib.chdir(root):
        assert main(["run", "exp.toml", "--quiet"]) == 0
    return pd.read_parquet(root / "results" / "fz" / "scores.parquet")


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "100")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(mutations=st.lists(mutation, min_size=1, max_size=3), text_damage=st.one_of(
    st.none(), st.tuples(st.floats(0, 1), st.binary(min_size=1, max_size=3))), noop=st.sampled_from([None, *NOOPS]),
       prior=st.booleans())
def test_mutated_experiment_files_give_a_clean_error_or_a_finished_run(reference, capsys, mutations, text_damage,
                                                                       noop, prior):
    data = json.loads(json.dumps(BASE_DATA))
    for m in mutations if noop is None else []:
        with contextlib.suppress(KeyError, IndexError, TypeError):  # a path that an earlier mutation removed
            _apply(data, m)
    text = dumps(data) if noop is None else _noop(BASE, noop)
    raw = text.encode("utf-8", "surrogatepass")
    if text_damage is not None and noop is None:
        at = int(text_damage[0] * len(raw))
        raw = raw[:at] + text_damage[1] + raw[at + len(text_damage[1]) // 2:]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        work = root / "work"
        work.mkdir()
        (work / "exp.toml").write_bytes(raw)
        before = {}
        if prior:  # another experiment's finished results where this one would write
            old = work / "results"
            for name in ("fz", "other"):
                (old / name).mkdir(parents=True)
                (old / name / "manifest.json").write_text('{"experiment": "someone-else", "files": {}}', "utf-8")
            before = {k: v for k, v in _results(root).items() if k != "work/exp.toml"}
        capsys.readouterr()
        with contextlib.chdir(work):
            rc = main(["run", "exp.toml", "--quiet"])
        err = capsys.readouterr().err
        key = re.split(r"[.\[ ]", err.split(": ")[3])[0] if err.count(": ") > 3 else ""
        event(f"exit {rc} {key}")
        if rc == 2:
            lines = err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("recdiv: error: exp.toml: "), err
            written = {k: v for k, v in _results(root).items() if k != "work/exp.toml"}
            assert written == before, "a failed run wrote results or changed existing ones"
        else:
            assert rc == 0, err
            assert not prior or noop is None
            out = [p.parent for p in root.rglob("manifest.json") if json.loads(p.read_text("utf-8"))["experiment"]
                   != "someone-else"]
            assert len(out) == 1 and (out[0] / "report.html").is_file()
            if noop is not None:
                got = pd.read_parquet(out[0] / "scores.parquet")
                pd.testing.assert_frame_equal(got, reference)
    assert os.getcwd() != tmp
