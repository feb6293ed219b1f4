"""Other tools' names of recdiv's measures (read by `recdiv.eval.catalog`): trec_eval, ir_measures and ranx.

Each entry maps onto a recdiv measure with the *same* definition, so an alias and its canonical spelling are the very
same measure object (tests/eval/test_spellings.py checks the numbers against pytrec_eval, ir_measures and ranx on
the same files). Names that normalise to a recdiv name need no entry (`ndcg@10`, `hit_rate@10`, `f1@10`, `bpref`,
`Rprec`, `infAP`, `alpha_nDCG`, `ERR_IA`: case and punctuation are ignored). A relevance level is `rel=`
(ir_measures' `P(rel=4)@10`; ranx's `-l4` suffix), else `--rel-threshold`.

Left out on purpose (no measure with the same semantics): ranx `hits@k` (a count, not a rate), ranx `rbp.P`
(gain = the raw grade, values above 1; recdiv's RBP is binary or g/r_max), ranx `ndcg@k-lN` for N > 1 (drops
the gain of grades below N; refused with a hint, use `ndcg_burges@k-lN` or level 1); trec_eval's bare
`P`, `recall`, `ndcg_cut`, `map_cut`, `success` (their fixed sweeps of cutoffs: write `P.5,10,15,20,30,100` etc.);
ir_measures `nDCG(dcg=exp-log2)` (use `nDCG(gain=exp)`, which also zeroes grades below τ), `SetP`/`SetR`/`SetF`
and `NumRel`/`NumRet`.
"""

from __future__ import annotations

#: (alias, canonical measure, preset parameters): a name of another tool for a recdiv measure
ALIASES: list[tuple[str, str, dict]] = [
    ("precision", "P", {}),  # ranx
    ("R", "Recall", {}),  # ir_measures
    ("Success", "HitRate", {}),  # ir_measures (trec_eval success.K is a spelling below)
    ("map", "AP", {}),  # trec_eval (no cutoff), ranx map@K
    ("recip_rank", "RR", {}),  # trec_eval
    ("mrr", "RR", {}),  # ranx (the mean over users is the MRR)
    ("r-precision", "Rprec", {}),  # ranx
    ("ndcg_burges", "nDCG", {"gain": "exp"}),  # ranx: gain 2^g − 1 for g ≥ the relevance level
    ("dcg_burges", "DCG", {"gain": "exp"}),  # ranx
]

#: (regular expression over the whole string, canonical replacement): trec_eval's `name.K` / `name_K` cutoffs
#: (pytrec_eval reports `P_10` for `P.10`)
SPELLINGS: list[tuple[str, str]] = [
    (r"(?i)P[._](\d+)", r"P@\1"),
    (r"(?i)recall[._](\d+)", r"Recall@\1"),
    (r"(?i)ndcg_cut[._](\d+)", r"nDCG@\1"),
    (r"(?i)map_cut[._](\d+)", r"AP@\1"),
    (r"(?i)success[._](\d+)", r"HitRate@\1"),
]

#: ranx's relevance level suffix: `precision@10-l4` = `precision(rel=4)@10`
RANX_LEVEL = r"(?P<base>(?P<name>[A-Za-z][\w\-]*?)(?:[@.]\d+)?)-l(?P<level>\d+)"
