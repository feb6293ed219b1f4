"""Every kind registers its built-ins one way: one deferred row (name, ``module:attribute``, aliases) in its registry
module, imported on first lookup — recommenders, rerankers, measures, dataset formats and named datasets — and
measures come from plugins as the other kinds do (``module:Class``, entry-point group ``recdiv.measures``)."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from recdiv.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1] / "recdiv"


def test_registry_modules_import_no_component():
    """Importing the registries (and listing their names) imports no recommender, reranker, measure family or
    dataset loader; a lookup imports that component's module only."""
    code = """
import sys
from recdiv.algorithms.registry import RECOMMENDERS
from recdiv.diversifiers.registry import RERANKERS
from recdiv.eval.catalog import MEASURES, parse_measure
from recdiv.data.datasets import DATASETS, FORMATS
names = [len(r.names()) for r in (RECOMMENDERS, RERANKERS, MEASURES, DATASETS, FORMATS)]
parts = ("recdiv.algorithms.", "recdiv.diversifiers.", "recdiv.eval.metrics.", "recdiv.data.movielens",
         "recdiv.data.lastfm", "recdiv.data.export", "recdiv.data.load")
def loaded():
    return sorted(m for m in sys.modules if m.startswith(parts) and not m.endswith(".registry"))
before = loaded()
parse_measure("nDCG@10")
RECOMMENDERS.get("pop")
print(json.dumps([names, before, loaded(), sorted(m for m in sys.modules if m in ("torch", "lenskit", "numba"))]))
"""
    out = subprocess.run([sys.executable, "-c", "import json" + code], capture_output=True, text=True, check=True)
    names, before, after, heavy = json.loads(out.stdout)
    assert min(names) > 0 and before == []
    assert after == ["recdiv.algorithms.base", "recdiv.algorithms.popularity", "recdiv.eval.metrics.accuracy"]
    assert heavy == []


def _defined(package: str, is_component) -> dict[str, str]:
    """Every public component class defined in the modules of `package`: ``module:Class`` → its name."""
    found = {}
    for path in sorted((ROOT / package.removeprefix("recdiv.").replace(".", "/")).glob("*.py")):
        module = importlib.import_module(f"{package}.{path.stem}")
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                name = is_component(getattr(module, node.name))
                if name:
                    found[f"{module.__name__}:{node.name}"] = name
    return found


def _rows(registry) -> dict[str, str]:
    return {e.obj.__module__ + ":" + e.obj.__qualname__: e.name for e in registry.entries()}


def test_every_built_in_measure_has_its_row():
    from recdiv.eval.catalog import BUILTINS, MEASURES
    from recdiv.eval.measure import Measure

    defined = _defined("recdiv.eval.metrics", lambda c: isinstance(c, type) and issubclass(c, Measure) and c.NAME)
    assert _rows(MEASURES) == defined, "add a row (NAME, 'module:Class', ALIASES) to recdiv.eval.catalog.BUILTINS"
    for name, spec, aliases in BUILTINS:
        cls = MEASURES.get(name)
        assert (cls.NAME, cls.ALIASES, f"{cls.__module__}:{cls.__qualname__}") == (name, aliases, spec)


def test_every_built_in_recommender_and_reranker_has_its_row():
    from recdiv.algorithms.base import Recommender
    from recdiv.algorithms.registry import RECOMMENDERS
    from recdiv.diversifiers.base import Reranker
    from recdiv.diversifiers.registry import RERANKERS

    recommenders = _defined("recdiv.algorithms", lambda c: isinstance(c, type) and issubclass(c, Recommender)
                            and c is not Recommender and c.name)
    assert _rows(RECOMMENDERS) == recommenders
    rerankers = _defined("recdiv.diversifiers", lambda c: isinstance(c, type) and issubclass(c, Reranker)
                         and getattr(c, "NAME", ""))
    assert _rows(RERANKERS) == rerankers


def test_datasets_and_formats():
    from recdiv.data.datasets import DATASETS, FORMATS
    from recdiv.data.locate import dataset_path

    assert DATASETS.canonical("ML100K") == DATASETS.canonical("ml100k") == "ml-100k"
    assert DATASETS.canonical("lastfm-2k") == DATASETS.canonical("hetrec-lastfm") == "hetrec2011-lastfm-2k"
    assert DATASETS.canonical("ml-latest") == "ml-latest-small"
    for e in DATASETS.entries():
        assert e.obj.format in FORMATS and e.obj.url.endswith(f"/{e.name}.zip")
    for e in FORMATS.entries():
        assert callable(e.obj.load_function())
    with pytest.raises(ConfigError, match="did you mean 'ml-100k'"):
        DATASETS.get("ml-100")
    with pytest.raises(Exception, match="no dataset 'no:such'"):
        dataset_path("no:such")  # a name with a colon is not imported as module:attribute


@pytest.mark.realdata
def test_aliases_find_the_shared_folders(data_root):
    from recdiv.data.load import dataset_loader

    for name, fmt in [("ml100k", "ml-100k"), ("ML-Latest", "movielens-csv"), ("lastfm-2k", "hetrec-lastfm")]:
        assert dataset_loader(name, data_root)[0] == fmt


PLUGIN = '''
from recdiv.eval.measure import Param, PerUserMeasure
from recdiv.models.discount import parse_discount
from recdiv.models.relevance import is_relevant


class DHits(PerUserMeasure):
    """Discounted hits: Σ_k disc(k)·[g_k ≥ τ] (a plugin measure of the tests)."""

    NAME = "DHits"
    PARAMS = (Param("disc", str, "log", "rank discount", spec=parse_discount),)
    FORMULA, CITATION, SECTION = "Σ_k disc(k)·rel_k", "—", ""

    def compute(self, view):
        rel = is_relevant(view.at(view.grades, self.cutoff, fill=float("nan")), view.threshold)
        return rel @ parse_discount(self.disc).positions(rel.shape[1])


class Clash(DHits):
    NAME = "P"
'''


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """A measure module on the path; the measure registry as it was afterwards."""
    from recdiv.eval import catalog

    (tmp_path / "dhits_plugin.py").write_text(textwrap.dedent(PLUGIN))
    monkeypatch.syspath_prepend(str(tmp_path))
    keys, entries = dict(catalog.MEASURES._keys), dict(catalog.MEASURES._entries)
    yield tmp_path
    catalog.MEASURES._keys, catalog.MEASURES._entries = keys, entries
    sys.modules.pop("dhits_plugin", None)


def test_a_measure_from_module_colon_class(plugin):
    from recdiv.eval import parse_measure
    from tests.eval._acc_helpers import example_a

    m = parse_measure("dhits_plugin:DHits(disc=recip)@5")
    run, qrels = example_a()  # relevant a (rank 2), b (rank 4)
    assert m.value(run, qrels) == pytest.approx(1 / 2 + 1 / 4)
    assert str(m) == "DHits(disc=recip)@5" and parse_measure(str(m)) == m  # printed by its NAME, which parses
    with pytest.raises(ConfigError, match=r"its NAME 'P' is the name of recdiv\.eval\.metrics\.accuracy:Precision"):
        parse_measure("dhits_plugin:Clash@5")
    with pytest.raises(ConfigError, match="is not a measure"):
        parse_measure("recdiv.eval.catalog:parse_measure@5")


def test_a_measure_from_the_command_line(plugin, tmp_path, capsys):
    from recdiv.cli import main

    (tmp_path / "q").write_text("u 0 a 4\nu 0 b 5\n")
    (tmp_path / "r").write_text("u Q0 x 1 4 t\nu Q0 a 2 3 t\nu Q0 y 3 2 t\nu Q0 b 4 1 t\n")
    assert main(["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "dhits_plugin:DHits@10", "P@10"]) == 0
    out = capsys.readouterr().out
    assert out.split() == ["run", "DHits@10", "P@10", "r", "1.061606", "0.200000"]  # 1/log2(3) + 1/log2(5)


def test_a_measure_from_an_entry_point(plugin, monkeypatch):
    from recdiv.eval import catalog, parse_measure

    eps = [EntryPoint("DHits", "dhits_plugin:DHits", "recdiv.measures")]
    monkeypatch.setattr("recdiv.registry.entry_points", lambda group: [e for e in eps if e.group == group])
    monkeypatch.setattr(catalog.MEASURES, "_plugins_loaded", False)
    assert type(parse_measure("dhits@3")).__module__ == "dhits_plugin"
    assert "DHits" in catalog.MEASURES.names()
