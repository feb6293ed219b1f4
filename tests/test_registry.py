"""The one registry helper (recdiv/registry.py): spelling rule, aliases, did-you-mean, capabilities,
``module:Class`` and entry points — and that every registry of recdiv follows it."""

from __future__ import annotations

import subprocess
import sys
import types
from importlib.metadata import EntryPoint

import pytest

from recdiv.errors import ConfigError
from recdiv.registry import Registry, load_object, normalise


class Base:
    NAME = ""


class Alpha(Base):
    NAME = "Alpha-One"
    CAPABILITIES = ("fast",)


class Beta(Base):
    NAME = "beta"


@pytest.fixture
def reg():
    r = Registry("widget", group="recdiv.test-widgets", base=Base)
    r.add("Alpha-One", Alpha, aliases=("first",))
    r.add("beta", Beta, capabilities=("slow",))
    return r


@pytest.mark.parametrize("spelling", ["Alpha-One", "alpha-one", "alphaone", "AlphaOne", "ALPHA_ONE", " alpha one ",
                                      "first", "FIRST"])
def test_spellings_find_the_same_entry(reg, spelling):
    assert reg.get(spelling) is Alpha
    assert reg.canonical(spelling) == "Alpha-One"
    assert spelling in reg


def test_normalise():
    assert normalise("IA-Select") == normalise("ia-select") == normalise("iaselect") == normalise("IASelect")
    assert normalise("PM-2") == "pm2"


def test_unknown_names_get_a_suggestion(reg):
    with pytest.raises(ConfigError, match=r"unknown widget 'alpa-one' \(did you mean 'Alpha-One'\?\)"):
        reg.get("alpa-one")
    with pytest.raises(ConfigError, match="known: Alpha-One, beta"):
        reg.get("zzzzzz")
    assert "gamma" not in reg


def test_a_name_is_registered_once(reg):
    with pytest.raises(ValueError, match="taken"):
        reg.add("ALPHA one", Beta)
    reg.add("alias-of-alpha", Alpha)  # the same object under another name is fine


def test_capabilities_from_class_and_registration(reg):
    assert reg.has("Alpha-One", "fast") and reg.has("beta", "slow")
    assert reg.with_capability("fast") == ["Alpha-One"]
    assert reg.names() == ["Alpha-One", "beta"] == list(reg)


def test_alias_with_preset(reg):
    reg.alias("quick-alpha", "alpha-one", speed=3)
    e = reg.entry("QuickAlpha")
    assert e.obj is Alpha and e.name == "Alpha-One" and e.preset == {"speed": 3}


def test_module_class_strings(reg, monkeypatch):
    mod = types.ModuleType("fake_widgets")

    class Gamma(Base):
        CAPABILITIES = ("new",)

    mod.Gamma, mod.NotAWidget = Gamma, object
    monkeypatch.setitem(sys.modules, "fake_widgets", mod)
    assert reg.get("fake_widgets:Gamma") is Gamma
    assert reg.has("fake_widgets:Gamma", "new")
    with pytest.raises(ConfigError, match="not a widget"):
        reg.get("fake_widgets:NotAWidget")
    with pytest.raises(ConfigError, match="has no attribute"):
        reg.get("fake_widgets:Missing")
    with pytest.raises(ConfigError, match="cannot import"):
        reg.get("no_such_module_xyz:Thing")
    assert load_object("fake_widgets:Gamma") is Gamma


@pytest.mark.parametrize("registry", ["recdiv.algorithms.registry:RECOMMENDERS",
                                      "recdiv.diversifiers.registry:RERANKERS", "recdiv.eval.catalog:MEASURES"])
def test_module_class_searches_the_working_folder(registry, tmp_path, monkeypatch):
    """Every registry imports a ``module:Class`` with the working folder on the path, although the working folder
    is not on sys.path (as in the `recdiv` console script): the class is found (and then refused as not being a
    component of that kind), where a module in no folder is 'cannot import'."""
    reg = load_object(registry)
    (tmp_path / "cwd_only_xyz.py").write_text("class Thing:\n    pass\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.path", [p for p in sys.path if p not in ("", ".", str(tmp_path))])
    monkeypatch.delitem(sys.modules, "cwd_only_xyz", raising=False)
    with pytest.raises(ConfigError, match=f"'cwd_only_xyz:Thing' is not a {reg.kind}"):
        reg.entry("cwd_only_xyz:Thing")
    assert sys.modules["cwd_only_xyz"].__file__ == str(tmp_path / "cwd_only_xyz.py")
    with pytest.raises(ConfigError, match=r"cannot import .* no module 'elsewhere_xyz' in the working folder"):
        reg.entry("elsewhere_xyz:Thing")
    monkeypatch.delitem(sys.modules, "cwd_only_xyz")


def test_entry_points(reg, monkeypatch):
    mod = types.ModuleType("plugin_widgets")

    class Delta(Base):
        pass

    mod.Delta = Delta
    monkeypatch.setitem(sys.modules, "plugin_widgets", mod)
    eps = [EntryPoint("delta", "plugin_widgets:Delta", "recdiv.test-widgets"),
           EntryPoint("beta", "plugin_widgets:Delta", "recdiv.test-widgets")]  # a built-in name wins
    monkeypatch.setattr("recdiv.registry.entry_points", lambda group: [e for e in eps if e.group == group])
    assert reg.get("Delta") is Delta
    assert reg.get("beta") is Beta
    assert reg.names() == ["Alpha-One", "beta", "delta"]


def test_deferred_components_are_imported_on_first_lookup(reg, monkeypatch):
    mod = types.ModuleType("lazy_widgets")

    class Lazy(Base):
        CAPABILITIES = ("late",)

    mod.Lazy = Lazy
    loads = []

    def import_module(name):
        loads.append(name)
        if name != "lazy_widgets":
            raise ModuleNotFoundError(f"No module named {name!r}")
        return mod

    monkeypatch.setattr("recdiv.registry.importlib.import_module", import_module)
    reg.defer("Lazy-One", "lazy_widgets:Lazy", aliases=("idle",))
    assert reg.names() == ["Alpha-One", "beta", "Lazy-One"] and loads == []  # listed, not imported
    with pytest.raises(ConfigError, match="did you mean 'Lazy-One'"):
        reg.get("lazy-onex")
    assert loads == []
    assert reg.get("IDLE") is Lazy and reg.entry("lazyone").aliases == ("idle",) and reg.has("idle", "late")
    assert loads == ["lazy_widgets"]  # once
    with pytest.raises(ValueError, match="taken"):
        reg.defer("beta", "lazy_widgets:Lazy")
    reg.defer("broken", "no_such_module_xyz:Thing")
    with pytest.raises(ConfigError, match="cannot import"):
        reg.get("broken")


def test_reranker_registry_lists_its_names_without_importing_rerankers():
    """The lazy registry of rerankers lists the names, aliases and classes (hence parameters) of the eager one it
    replaced, and `recdiv rerank --help` imports no reranker module (nor numba, SciPy, pydantic)."""
    code = """
import contextlib, io, sys
from recdiv.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
    main(["rerank", "--help"])
from recdiv.diversifiers.registry import RERANKERS
names = RERANKERS.names()
loaded = sorted(m for m in sys.modules if m.startswith("recdiv.diversifiers.") and m != "recdiv.diversifiers.registry"
                or m.split(".")[0] in ("numba", "scipy", "pydantic", "numpy"))
help = " ".join(out.getvalue().split())
print(names, loaded, all(n in help for n in names))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["['MMR',", "'Ziegler',", "'IASelect',", "'xQuAD',", "'NGD',", "'PM2',", "'DPP',",
                           "'Calibrated',", "'Random',", "'PlackettLuce',", "'FAIR',", "'MSD',", "'SSD',", "'COVER',",
                           "'Swap']", "[]", "True"]
    from recdiv.diversifiers import (
        base,
        calibrated,
        cover,
        dpp,
        fair,
        ia_select,
        mmr,
        msd,
        ngd,
        plackett_luce,
        pm2,
        random,
        ssd,
        swap,
        xquad,
        ziegler,
    )
    from recdiv.diversifiers.registry import RERANKERS

    eager = {mmr.MMR: ("maximal-marginal-relevance",), ziegler.Ziegler: ("topic-diversification",),
             ia_select.IASelect: (), xquad.XQuAD: (), ngd.NGD: ("novelty-greedy",), pm2.PM2: (),
             dpp.DPP: ("determinantal-point-process",), calibrated.Calibrated: ("calibration", "steck"),
             random.Random: ("random-rerank",), plackett_luce.PlackettLuce: ("stochastic",), fair.FAIR: (),
             msd.MSD: ("max-sum-diversification",), ssd.SSD: ("sliding-spectrum-decomposition",),
             cover.COVER: ("coverage", "facility-location"), swap.Swap: ()}
    assert [e.obj for e in RERANKERS.entries()] == list(eager)
    for e in RERANKERS.entries():
        assert e.name == e.obj.NAME and e.aliases == eager[e.obj] and issubclass(e.obj, base.Reranker)
        assert all(RERANKERS.get(a) is e.obj for a in e.aliases)
    assert RERANKERS.base is base.Reranker


@pytest.mark.parametrize(("module", "registry", "spellings"), [
    ("recdiv.diversifiers.registry", "RERANKERS", {"IASelect": ["IA-Select", "ia-select", "iaselect", "IASelect"],
                                                   "PM2": ["PM-2", "pm2"], "xQuAD": ["XQuAD", "x-quad"]}),
    ("recdiv.algorithms.registry", "RECOMMENDERS", {"user-knn": ["UserKNN", "user_knn"], "pop": ["popularity"]}),
    ("recdiv.eval.measure", "MEASURES", {"alpha-nDCG": ["AlphaNDCG", "alpha_ndcg"], "ERR-IA": ["erria"]}),
    ("recdiv.eval.stats.significance", "TEST_NAMES", {"t": ["T-Test", "student"], "permutation": ["Fisher"]}),
    ("recdiv.eval.stats.corrections", "CORRECTION_NAMES", {"holm": ["Holm-Bonferroni"], "bh": ["FDR", "fdr_bh"]}),
    ("recdiv.aspects.similarity", "SIMILARITIES", {"latent-cosine": ["LatentCosine"], "cosine": ["Cosine"]}),
    ("recdiv.aspects.kinds", "ASPECT_SPACES", {"factors": ["MF-Factors"], "explicit": ["Explicit"]}),
])
def test_every_registry_follows_the_rule(module, registry, spellings):
    import importlib

    import recdiv.eval.catalog  # noqa: F401  (measures registered)

    reg = getattr(importlib.import_module(module), registry)
    assert isinstance(reg, Registry)
    for canonical, others in spellings.items():
        for s in others:
            assert reg.canonical(s) == canonical, s
    with pytest.raises(ConfigError, match="did you mean"):
        reg.get(spellings and next(iter(spellings)) + "x")


def test_source_fingerprint_follows_the_code(tmp_path, monkeypatch):
    from recdiv.registry import source_fingerprint

    pkg = tmp_path / "fp_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text("class Thing:\n    X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    first = source_fingerprint(importlib.import_module("fp_pkg.mod").Thing)
    assert first == source_fingerprint(importlib.import_module("fp_pkg.mod").Thing)
    (pkg / "mod.py").write_text("class Thing:\n    X = 2\n")
    del sys.modules["fp_pkg.mod"]
    assert source_fingerprint(importlib.import_module("fp_pkg.mod").Thing) != first
