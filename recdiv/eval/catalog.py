"""The catalogue of measures: every built-in measure registered by name and ``module:Class`` (`BUILTINS`, imported
on first lookup, as the rerankers and recommenders are), parsed from strings ``Name(param=value,...)@K`` and listed.

Measures of other packages come the way rerankers and recommenders do: ``mypkg.mod:DHits@10`` (any importable
module; the class is then also known by its ``NAME``, so that ``str()`` round-trips) or the entry-point group
``recdiv.measures`` of an installed package.

Names follow the one spelling rule of `recdiv.registry` (``alpha-nDCG`` = ``Alpha-NDCG`` = ``alphandcg``); an
unknown name gets a did-you-mean. Other tools' spellings map onto the same measure objects in two ways:

- a name alias, optionally with preset parameters: ``MEASURES.alias("precision", "P")``,
  ``MEASURES.alias("ndcg_exp", "nDCG", gain="exp")`` (a preset that the string also sets must agree);
- a spelling: a regular expression over the whole string and the canonical string it stands for,
  ``add_spelling(r"P\\.(\\d+)", r"P@\\1")`` (trec_eval's ``P.10``), ``add_spelling(r"ndcg_cut_(\\d+)", r"nDCG@\\1")``.
  Spellings are tried, in the order added, before the ``Name(param=value)@K`` syntax.

The names of trec_eval, ir_measures and ranx (`recdiv.eval.spellings`) are registered this way when this module is
imported. `parse_measures` also expands cutoff sweeps: ``P@5,10,20`` (and trec_eval's ``P.5,10,20``) is P@5, P@10,
P@20 (`expand_sweeps`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from recdiv.errors import ConfigError
from recdiv.eval import spellings
from recdiv.eval.conventions import Conventions
from recdiv.eval.conventions import get as get_conventions
from recdiv.eval.measure import MEASURES, Measure

__all__ = ["BUILTINS", "add_spelling", "expand_sweeps", "list_measures", "parse_measure", "parse_measures"]

_PATTERN = re.compile(r"^\s*(?P<name>[A-Za-z][\w\-]*|[A-Za-z_][\w.]*:[A-Za-z_][\w.]*)"  # a name or module:Class
                      r"\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<cutoff>\S+))?\s*$")
_SPELLINGS: list[tuple[re.Pattern, str]] = []

#: the built-in measures (name, ``module:Class``, aliases), in the order of the metric reference within each family
BUILTINS: list[tuple[str, str, tuple[str, ...]]] = [
    ("P", "recdiv.eval.metrics.accuracy:Precision", ()),
    ("Recall", "recdiv.eval.metrics.accuracy:Recall", ()),
    ("F1", "recdiv.eval.metrics.accuracy:F1", ()),
    ("HitRate", "recdiv.eval.metrics.accuracy:HitRate", ()),
    ("AP", "recdiv.eval.metrics.accuracy:AP", ()),
    ("DCG", "recdiv.eval.metrics.accuracy:DCG", ()),
    ("nDCG", "recdiv.eval.metrics.accuracy:NDCG", ()),
    ("RR", "recdiv.eval.metrics.accuracy:RR", ()),
    ("Rprec", "recdiv.eval.metrics.accuracy:Rprec", ()),
    ("bpref", "recdiv.eval.metrics.accuracy:Bpref", ()),
    ("infAP", "recdiv.eval.metrics.accuracy:InfAP", ()),
    ("RBP", "recdiv.eval.metrics.accuracy:RBP", ()),
    ("ERR", "recdiv.eval.metrics.accuracy:ERR", ()),
    ("HLU", "recdiv.eval.metrics.accuracy:HLU", ()),
    ("HLU_breese", "recdiv.eval.metrics.accuracy:HLUBreese", ()),
    ("NumRet", "recdiv.eval.metrics.sets:NumRet", ()),
    ("NumRelRet", "recdiv.eval.metrics.sets:NumRelRet", ()),
    ("NumRel", "recdiv.eval.metrics.sets:NumRel", ()),
    ("NumQ", "recdiv.eval.metrics.sets:NumQ", ()),
    ("SetP", "recdiv.eval.metrics.sets:SetP", ()),
    ("SetR", "recdiv.eval.metrics.sets:SetR", ()),
    ("SetF", "recdiv.eval.metrics.sets:SetF", ()),
    ("Judged", "recdiv.eval.metrics.sets:Judged", ()),
    ("RMSE", "recdiv.eval.metrics.rating:RMSE", ()),
    ("MAE", "recdiv.eval.metrics.rating:MAE", ()),
    ("Spearman", "recdiv.eval.metrics.correlation:Spearman", ()),
    ("Kendall", "recdiv.eval.metrics.correlation:Kendall", ()),
    ("FCP", "recdiv.eval.metrics.correlation:FCP", ()),
    ("EPC", "recdiv.eval.metrics.novelty:EPC", ()),
    ("EIP", "recdiv.eval.metrics.novelty:EIP", ()),
    ("EFD", "recdiv.eval.metrics.novelty:EFD", ()),
    ("MSI", "recdiv.eval.metrics.novelty:MSI", ()),
    ("EPD", "recdiv.eval.metrics.novelty:EPD", ()),
    ("EILD", "recdiv.eval.metrics.diversity:EILD", ()),
    ("ILD", "recdiv.eval.metrics.diversity:ILD", ()),
    ("ILS", "recdiv.eval.metrics.diversity:ILS", ()),
    ("ESSD", "recdiv.eval.metrics.diversity:ESSD", ()),
    ("Miscalibration", "recdiv.eval.metrics.categories:Miscalibration", ()),
    ("RankBiasedEntropy", "recdiv.eval.metrics.categories:RankBiasedEntropy", ()),
    ("ARP", "recdiv.eval.metrics.popularity:ARP", ()),
    ("APLT", "recdiv.eval.metrics.popularity:APLT", ()),
    ("ACLT", "recdiv.eval.metrics.popularity:ACLT", ()),
    ("PopRSP", "recdiv.eval.metrics.popularity:PopRSP", ()),
    ("PopREO", "recdiv.eval.metrics.popularity:PopREO", ()),
    ("AggregateDiversity", "recdiv.eval.metrics.exposure:AggregateDiversity", ()),
    ("Coverage", "recdiv.eval.metrics.exposure:Coverage", ()),
    ("Entropy", "recdiv.eval.metrics.exposure:Entropy", ()),
    ("Gini", "recdiv.eval.metrics.exposure:Gini", ()),
    ("GiniDiversity", "recdiv.eval.metrics.exposure:GiniDiversity", ()),
    ("EE-L", "recdiv.eval.metrics.fairness:EEL", ("expected-exposure-loss",)),
    ("EE-D", "recdiv.eval.metrics.fairness:EED", ("expected-exposure-disparity",)),
    ("EE-R", "recdiv.eval.metrics.fairness:EER", ("expected-exposure-relevance",)),
    ("AWRF", "recdiv.eval.metrics.fairness:AWRF", ("attention-weighted-rank-fairness",)),
    ("GroupExposure", "recdiv.eval.metrics.fairness:GroupExposure", ("group-exposure", "provider-exposure")),
    ("alpha-nDCG", "recdiv.eval.metrics.intent_aware:AlphaNDCG", ()),
    ("alpha-DCG", "recdiv.eval.metrics.intent_aware:AlphaDCG", ()),
    ("ERR-IA", "recdiv.eval.metrics.intent_aware:ERRIA", ()),
    ("nERR-IA", "recdiv.eval.metrics.intent_aware:NERRIA", ()),
    ("nDCG-IA", "recdiv.eval.metrics.intent_aware:NDCGIA", ()),
    ("P-IA", "recdiv.eval.metrics.intent_aware:PIA", ()),
    ("MAP-IA", "recdiv.eval.metrics.intent_aware:MAPIA", ()),
    ("S-recall", "recdiv.eval.metrics.intent_aware:SRecall", ()),
    ("S-RR", "recdiv.eval.metrics.intent_aware:SRR", ()),
    ("NRBP", "recdiv.eval.metrics.intent_utility:NRBP", ()),
    ("nNRBP", "recdiv.eval.metrics.intent_utility:NNRBP", ()),
    ("EU", "recdiv.eval.metrics.intent_utility:EU", ()),
    ("RBU", "recdiv.eval.metrics.intent_utility:RBU", ()),
    ("ab-nDCG", "recdiv.eval.metrics.unified:AlphaBetaNDCG", ()),
    ("lexirecall", "recdiv.eval.metrics.preference:LexiRecall", ()),
    ("lexiprecision", "recdiv.eval.metrics.preference:LexiPrecision", ()),
    ("TSE", "recdiv.eval.metrics.preference:TSE", ()),
    ("RBO", "recdiv.eval.metrics.reranking:RBO", ()),
    ("LIP", "recdiv.eval.metrics.reranking:LIP", ()),
]
for _name, _spec, _aliases in BUILTINS:
    MEASURES.defer(_name, _spec, aliases=_aliases)


def add_spelling(pattern: str, replacement: str) -> None:
    """Read strings that match `pattern` (the whole string) as `re.sub(pattern, replacement, text)`."""
    _SPELLINGS.append((re.compile(pattern), replacement))


def _respell(text: str) -> str:
    stripped = text.strip()
    level = _RANX_LEVEL.fullmatch(stripped)
    if level:  # ranx's relevance level suffix: `precision@10-l4` is precision(rel=4)@10
        name, stripped = level["name"], level["base"]
        if name.lower() in ("ndcg", "dcg") and level["level"] != "1":
            raise ConfigError(f"{text!r}: ranx's {name} at level {level['level']} drops the gain of lower grades; "
                              f"recdiv's {name} (trec_eval's) keeps it. Use {name}@K (level 1), or "
                              f"{name}_burges@K-l{level['level']} (gain 2^g − 1 above the level)")
    for rx, replacement in _SPELLINGS:
        if rx.fullmatch(stripped):
            stripped = rx.sub(replacement, stripped)
            break
    if level:
        m = _PATTERN.match(stripped)
        if m:
            params = ",".join(p for p in ((m["params"] or "").strip(), f"rel={level['level']}") if p)
            stripped = f"{m['name']}({params})" + (f"@{m['cutoff']}" if m["cutoff"] else "")
    return stripped


def parse_measure(text: str | Measure, conventions: str | Conventions | None = None) -> Measure:
    """Parse ``Name(param=value,...)@K`` (or a registered spelling) into a measure instance; unknown names and
    bad parameters raise ConfigError. `conventions` (`recdiv.eval.conventions`) gives the parameters a tool's
    definition needs, where the string does not set them (``nDCG@10`` under lenskit is
    ``nDCG(gain=binary,disc=jk)@10``)."""
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise ConfigError(f"a measure is a string such as 'nDCG@10', got {text!r}")
    source = text
    text = _respell(text)
    m = _PATTERN.match(text)
    if not m:
        raise ConfigError(f"cannot parse measure {source!r}: expected Name(param=value,...)@K")
    try:
        entry = MEASURES.entry(m["name"])
    except ConfigError as e:
        raise ConfigError(f"{e}; `recdiv eval --list` lists them all") from None
    if ":" in m["name"]:
        _adopt(m["name"], entry.obj)
    params: dict[str, str] = {}
    if m["params"] and m["params"].strip():
        for part in m["params"].split(","):
            if "=" not in part:
                raise ConfigError(f"cannot parse parameter {part.strip()!r} in {source!r}: expected key=value")
            k, v = (s.strip() for s in part.split("=", 1))
            if k in params:
                raise ConfigError(f"parameter {k!r} is given twice in {source!r}")
            params[k] = v
    cutoff = None
    if m["cutoff"] is not None:
        if not m["cutoff"].isdigit() or int(m["cutoff"]) < 1:
            raise ConfigError(f"cutoff in {source!r} must be a positive integer")
        cutoff = int(m["cutoff"])
    preset = dict(entry.preset)
    if "cutoff" in preset:
        fixed = preset.pop("cutoff")
        if cutoff is not None and cutoff != fixed:
            raise ConfigError(f"{source!r}: {m['name']} stands for cutoff {fixed}; it takes no other")
        cutoff = fixed
    declared = entry.obj.param_map()
    for k in preset.keys() & params.keys():
        if declared[k].coerce(entry.name, params[k]) != declared[k].coerce(entry.name, preset[k]):
            raise ConfigError(f"{source!r}: {m['name']} stands for {k}={preset[k]}")
    chosen = get_conventions(conventions)
    tool = chosen.measure_defaults(entry.obj.NAME, declared) if chosen is not None else {}
    return entry.obj(cutoff, **{**tool, **preset, **params})


def _adopt(spec: str, cls: type[Measure]) -> None:
    """Make a measure loaded from ``module:Class`` known by its NAME too (so `str()` of its instances parses),
    unless that name is another measure's."""
    try:
        known = MEASURES.get(cls.NAME)
    except ConfigError:
        MEASURES.add(cls.NAME, cls, aliases=cls.ALIASES)
        return
    if known is not cls:
        raise ConfigError(f"measure {spec!r}: its NAME {cls.NAME!r} is the name of {known.__module__}:"
                          f"{known.__qualname__}; give it another NAME")


_SWEEP = re.compile(r"(?P<head>.+?)(?P<sep>[@._])(?P<cuts>\d+(?:\s*,\s*\d+)+)")


def expand_sweeps(text: str | Measure) -> list[str | Measure]:
    """A cutoff sweep as its measures: ``P@5,10,20`` → P@5, P@10, P@20 (``nDCG(gain=exp)@5,10``, trec_eval's
    ``P.5,10,20`` and ``ndcg_cut.5,10`` too); anything else as it is."""
    m = _SWEEP.fullmatch(text.strip()) if isinstance(text, str) else None
    if not m:
        return [text]
    return [f"{m['head']}{m['sep']}{cut.strip()}" for cut in m["cuts"].split(",")]


def parse_measures(texts: Iterable[str | Measure] | str,
                   conventions: str | Conventions | None = None) -> list[Measure]:
    """Parse several measures (sweeps expanded); a single string is one measure or one sweep."""
    if isinstance(texts, str):
        texts = [texts]
    return [parse_measure(one, conventions) for t in texts for one in expand_sweeps(t)]


for _alias, _target, _preset in spellings.ALIASES:
    MEASURES.alias(_alias, _target, **_preset)
for _pattern, _replacement in spellings.SPELLINGS:
    add_spelling(_pattern, _replacement)
_RANX_LEVEL = re.compile(spellings.RANX_LEVEL)


def list_measures() -> list[type[Measure]]:
    """Every registered measure class, by name (case-insensitive order)."""
    return [e.obj for e in sorted(MEASURES.entries(), key=lambda e: e.name.lower())]
