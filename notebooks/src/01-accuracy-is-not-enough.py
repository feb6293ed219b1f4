"""Source of notebooks/01-accuracy-is-not-enough.ipynb (build with `python notebooks/build.py`)."""
# ruff: noqa: E501 (markdown tables)

# %% [markdown]
# # 1. Accuracy is not enough
#
# *A recdiv teaching notebook (recommender systems course). Runs in well under a minute on a laptop.*
#
# A recommender that only optimises accuracy tends to fill the list with very similar, very popular items:
# ten Star Wars sequels are each "relevant", but the list as a whole is boring, tells the user nothing new, and
# ignores most of their tastes. McNee, Riedl and Konstan put it bluntly in 2006: *being accurate is not enough*.
#
# In this notebook we
#
# 1. train three **baseline recommenders** on MovieLens 100K and let each produce a top-500 candidate list per user,
# 2. **rerank** the best baseline's candidates into top-50 lists with three **diversifiers** (MMR, IA-Select,
#    xQuAD) that use movie genres as aspects,
# 3. measure every list on **accuracy**, **novelty** and **diversity**, and see that the three disagree,
# 4. trace the **trade-off curve** of one reranker as its diversity weight grows.

# %%
import time

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from recdiv.algorithms import make_recommender
from recdiv.aspects.build import genre_space
from recdiv.data.locate import data_dir
from recdiv.data.movielens import load_ml100k
from recdiv.data.qrels import Qrels
from recdiv.diversifiers import RerankContext, make_reranker
from recdiv.eval.context import EvalContext
from recdiv.eval.results import Results

pd.set_option("display.precision", 4)
T0 = time.perf_counter()

# %% [markdown]
# ## The data and the protocol
#
# MovieLens 100K: 943 users rate 1,682 movies on a 1–5 scale; every movie has one or more of 19 genres. We use
# the predefined split `u1` (80 % of the ratings for training, 20 % for testing). The evaluation protocol is the
# usual offline one ("AllItems", Bellogín et al. 2011):
#
# * every recommender ranks **all items the user has not rated in training**;
# * an item is **relevant** for a user when the user gave it **4 or 5 stars in the test set**; every other item
#   — including the thousands the user never rated — counts as non-relevant;
# * we evaluate the users with at least one relevant test item, and average the per-user values.
#
# The data folder is found by `recdiv.data.locate.data_dir()` (environment variable `RECDIV_DATA`, else
# `../shared/data` next to the repository).

# %%
ds = load_ml100k(data_dir() / "ml-100k")
split = ds.splits["u1"]
genres = genre_space(ds)  # items × 19 genres: the aspects A(i) of every movie
qrels = Qrels.from_interactions(split.test)  # test ratings as graded relevance judgements
eval_ctx = EvalContext(threshold=4, train=split.train, aspects=genres)
users = qrels.population(threshold=4)  # users with ≥ 1 relevant test item
print(f"training ratings: {split.train.matrix.nnz:,}   test ratings: {split.test.matrix.nnz:,}")
print(f"evaluated users: {len(users)}   items: {len(split.train.items):,}   genres: {genres.n_aspects}")

# %% [markdown]
# ## Three baselines
#
# * **pop** — recommend the most-rated movies to everybody (not personalised at all);
# * **mf-als** — biased matrix factorisation trained on the ratings by alternating least squares
#   (predicts the *rating*, which is not the same as predicting what the user will *watch*);
# * **user-knn** — user-based nearest neighbours on the implicit "who watched what" data.
#
# Each one produces a top-500 **candidate list** per user; the diversifiers below may only reorder and select
# from these candidates.

# %%
N_CANDIDATES, K = 500, 50
baselines = {"pop": {}, "mf-als": {}, "user-knn": {"feedback": "implicit"}}
candidates = {}
for name, params in baselines.items():
    t = time.perf_counter()
    model = make_recommender(name, **params).fit(split.train)
    candidates[name] = model.recommend(users, N_CANDIDATES)
    print(f"{name:9s} top-{N_CANDIDATES} for {len(users)} users in {time.perf_counter() - t:.1f} s")

# %% [markdown]
# ## Three diversifiers
#
# A diversifier (reranker) builds the top-K list greedily: at every step it adds the remaining candidate
# i with the best objective f(i | S), given the items S already chosen. ŝ(i) is the baseline score, min–max
# normalised over the user's candidates.
#
# | reranker | objective f(i \| S) | idea |
# |---|---|---|
# | **MMR** (Carbonell & Goldstein 1998) | λ·ŝ(i) − (1 − λ)·max_{j∈S} sim(i, j) | penalise items similar to what is already in the list (here λ is the weight of *relevance*) |
# | **IA-Select** (Agrawal et al. 2009) | Σ_a p(a\|u)·ŝ(i)p(a\|i)·Π_{j∈S}(1 − ŝ(j)p(a\|j)) | cover the user's genres in proportion to their profile, each genre "used up" by relevant items already shown |
# | **xQuAD** (Santos et al. 2010) | (1 − λ)·P(i\|u) + λ·Σ_a p(a\|u)P(i\|u,a)Π_{j∈S}(1 − P(j\|u,a)) | relevance plus an explicit coverage term of the user's genres, both probabilities over the candidates (λ is the weight of *diversity*) |
#
# The similarity used by MMR is the cosine between the genre sets of two movies; p(a|u) is the share of genre a
# in the user's training profile. We rerank the candidates of the most accurate baseline, user-knn.
# (xQuAD already reorders most lists at small λ; we use λ = 0.1, where its α-nDCG is near its best.)

# %%
rerank_ctx = RerankContext(train=split.train, aspects=genres)
rerankers = {"MMR": {"lambda": 0.5}, "IASelect": {}, "xQuAD": {"lambda": 0.1}}
runs = {name: cands.truncate(K) for name, cands in candidates.items()}  # the baselines' own top-50
for name, params in rerankers.items():
    t = time.perf_counter()
    runs[f"user-knn+{name}"] = make_reranker(name, **params).rerank(candidates["user-knn"], K, rerank_ctx)
    print(f"{name:9s} 500 → {K} for {len(users)} users in {time.perf_counter() - t:.1f} s")

# %% [markdown]
# ## What the numbers mean
#
# All metrics are computed per user on the top-50 list and averaged over the users.
#
# * **P@50** (precision) — the fraction of the 50 recommended movies that are relevant. Simple, but blind to
#   the order inside the list.
# * **nDCG@50** (normalised discounted cumulative gain) — relevant items count more near the top (gain
#   discounted by 1/log₂(rank + 1)), divided by the best achievable value, so 1 = a perfect ranking. This is
#   the standard *accuracy* metric.
# * **EPC@50** (expected popularity complement, Vargas & Castells 2011) — the average of 1 − (fraction of
#   training users who rated the item) over the list: a **novelty** metric. High EPC = the list shows items few
#   people know. (We use the plain, rank- and relevance-independent version.)
# * **ILD@50** (intra-list diversity, Ziegler et al. 2005) — the average genre distance (1 − cosine) between
#   all pairs of items in the list: a **diversity** metric that ignores the user and relevance.
# * **α-nDCG@50** (Clarke et al. 2008) — nDCG where a relevant movie earns one unit of gain per genre it
#   belongs to, and every further relevant movie of an already covered genre earns (1 − α) = ½ as much:
#   an **intent-aware** metric that rewards lists covering many genres *with relevant items*.
#
# Novelty and diversity metrics can be computed without any test data (EPC and ILD do not look at relevance
# here), which is exactly why they complement accuracy: they measure properties of the list that the test set
# cannot see.

# %%
MEASURES = ["nDCG@50", "P@50", "EPC@50", "ILD@50", "alpha-nDCG@50"]
results = Results.evaluate(runs, qrels, MEASURES, eval_ctx)
table = results.means()
display(table)

# %% [markdown]
# ## Reading the table
#
# Differences of each reranked list against the list it started from (user-knn), and a paired t-test per
# metric (Holm-corrected over the three rerankers; ▲/▼ = significantly higher/lower than user-knn at 0.05):

# %%
delta = table.loc[[f"user-knn+{r}" for r in rerankers]] - table.loc["user-knn"]
print("change against user-knn:")
print(delta.round(4).to_string())
display(Markdown(results.compare(baseline="user-knn", test="t", correction="holm").to_markdown()))

# %% [markdown]
# Things to notice:
#
# * **Accuracy and novelty disagree.** `pop` is far more accurate than `mf-als`, yet it recommends the same
#   blockbusters to everyone and has the lowest novelty (EPC). `mf-als`, which predicts ratings well, ranks
#   obscure highly-rated movies first: novel, but rarely what the user watches.
# * **Diversity costs accuracy — but not always much.** MMR raises ILD clearly and pays in nDCG; IA-Select
#   raises ILD and novelty even more, and loses more accuracy.
# * **"Diversity" is not one thing.** xQuAD barely changes ILD (it may even lower it) but raises α-nDCG:
#   it covers the genres *the user likes*, with relevant movies, rather than making every pair of movies
#   different. IA-Select increases ILD but can *lower* α-nDCG, because its genre coverage comes with less
#   relevant items, and α-nDCG only rewards coverage by relevant ones.
#
# A table with only nDCG would have declared user-knn (or xQuAD) the winner and hidden everything else.

# %% [markdown]
# ## The accuracy–diversity trade-off
#
# One reranker, one knob: MMR's λ moves from pure relevance (λ = 1, the user-knn list) to pure
# dissimilarity (λ = 0). Each point is one λ; an ideal system would sit in the top-right corner.

# %%
lambdas = [1.0, 0.8, 0.6, 0.4, 0.2, 0.0]
sweep_runs = {f"λ={lam}": make_reranker("MMR", **{"lambda": lam}).rerank(candidates["user-knn"], K, rerank_ctx)
              for lam in lambdas}
sweep = Results.evaluate(sweep_runs, qrels, ["nDCG@50", "ILD@50", "EPC@50", "alpha-nDCG@50"], eval_ctx).means()
sweep.index.name = "MMR"
display(sweep)

fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
for ax, y in zip(axes, ["ILD@50", "alpha-nDCG@50"]):
    ax.plot(sweep["nDCG@50"], sweep[y], marker="o", label="user-knn + MMR(λ)")
    for label, row in sweep.iterrows():
        ax.annotate(label, (row["nDCG@50"], row[y]), textcoords="offset points", xytext=(4, 4), fontsize=8)
    for base, marker in [("pop", "s"), ("mf-als", "^")]:
        ax.scatter(table.loc[base, "nDCG@50"], table.loc[base, y], marker=marker, color="grey", label=base)
    ax.set_xlabel("nDCG@50 (accuracy)")
    ax.set_ylabel(y)
    ax.legend(fontsize=8)
axes[0].set_title("accuracy vs intra-list diversity")
axes[1].set_title("accuracy vs intent-aware diversity")
plt.show()

# %% [markdown]
# As λ falls, ILD rises and nDCG falls. Below λ ≈ 0.4 ILD hardly improves any more (it is close to the
# largest genre dissimilarity the candidates allow) while accuracy keeps collapsing: the last bits of diversity
# are the most expensive. α-nDCG, which needs both relevance *and* coverage, falls along with nDCG for MMR —
# MMR's notion of diversity (pairwise genre dissimilarity) is not the one α-nDCG rewards.
#
# **Take-aways.** (1) Always report accuracy *together with* novelty and diversity; (2) say which notion of
# diversity a metric captures (distance between items, coverage of the user's aspects, ...); (3) compare
# rerankers at several operating points (a curve), not at a single λ.
#
# **Try it live.** `recdiv explore ml-100k` opens the same trade-off in the browser: move MMR's λ and watch one
# user's list (titles, genres, what enters and leaves) and the population's nDCG, ILD and α-nDCG change, with
# xQuAD beside it; docs/teaching.md has a lab sheet built on it.

# %%
print(f"notebook run time: {time.perf_counter() - T0:.0f} s")
