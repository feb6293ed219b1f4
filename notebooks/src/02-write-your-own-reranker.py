"""Source of notebooks/02-write-your-own-reranker.ipynb (build with `python notebooks/build.py`)."""

# %% [markdown]
# # 2. Write your own reranker
#
# *A recdiv teaching notebook (recommender systems course).*
#
# Every greedy diversifier — MMR, IA-Select, xQuAD, PM2, ... — runs the same loop:
#
# ```
# S ← ()
# while |S| < k:
#     i* ← argmax over the remaining candidates i of f(i | S)      (ties → the earliest candidate)
#     append i* to S, update whatever f remembers about S
# ```
#
# Only the **objective** f(i | S) and the **state** it keeps about S differ. recdiv's `GreedyReranker` owns the
# loop (once, vectorised over all users: every array is *users × N candidates*), so a new reranker is three short
# methods:
#
# * `init_state(block)` — anything you want to remember, built from the block of users' candidates
#   (`block.items`, `block.scores`, `block.valid`, all users × N; `block.context` has the aspects and training data);
# * `objective(state, block, remaining, t)` — f(i | S) for every candidate of every user (users × N; NaN = skip);
# * `update(state, block, picked, t)` — fold the picked candidate positions (one per user, −1 = none) into the state.
#
# In this notebook we invent a reranker, check it by hand on a four-movie example, test it against a plain
# per-user loop, and run it on MovieLens 100K.

# %%
import time
from types import SimpleNamespace

import numpy as np
import pandas as pd
from IPython.display import Markdown, display
from pydantic import Field

from recdiv.algorithms import make_recommender
from recdiv.aspects.build import genre_space
from recdiv.aspects.space import AspectSpace
from recdiv.data.locate import data_dir
from recdiv.data.movielens import load_ml100k
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.diversifiers import GreedyReranker, RerankContext, RerankerConfig, make_reranker
from recdiv.diversifiers.normalize import normalize
from recdiv.eval.context import EvalContext
from recdiv.eval.results import Results
from recdiv.testing import UserCase, check_against_loop, check_reranker, loop_rerank

pd.set_option("display.precision", 4)
T0 = time.perf_counter()

# %% [markdown]
# ## The idea: a bonus for genres the list does not show yet
#
# We reward a candidate for the share of its genres that are still missing from the list:
#
# $$f(i \mid S) = (1-\lambda)\,\hat s(i) + \lambda\,\frac{|A(i) \setminus A(S)|}{|A(i)|}$$
#
# where ŝ(i) is the baseline score min–max normalised over the user's candidates, A(i) the genres of movie i,
# A(S) the genres already covered by the list (a movie without genres gets no bonus). λ = 0 keeps the baseline
# order; λ = 1 only chases new genres. The **state** is the set of covered genres per user, a boolean
# users × genres matrix; the update ORs in the genres of the picked movie.

# %%
class NewGenreConfig(RerankerConfig):
    lambda_: float = Field(0.5, alias="lambda", ge=0.0, le=1.0)


class NewGenre(GreedyReranker):
    """f(i|S) = (1 − λ)·ŝ(i) + λ·|A(i) \\ A(S)| / |A(i)|: relevance plus the share of i's aspects not yet in S."""

    NAME, Config = "NewGenre", NewGenreConfig

    def init_state(self, block):
        member = block.context.require_aspects(self.NAME).dense(dtype=bool)  # items × aspects
        A = member[np.maximum(block.items, 0)] & block.valid[:, :, None]  # users × N × aspects
        return {"rel": normalize(block.scores, block.valid, "minmax"), "A": A, "size": A.sum(axis=2),
                "covered": np.zeros((block.n, member.shape[1]), dtype=bool)}

    def objective(self, state, block, remaining, t):
        new = (state["A"] & ~state["covered"][:, None, :]).sum(axis=2)
        bonus = np.divide(new, state["size"], out=np.zeros(new.shape), where=state["size"] > 0)
        lam = self.config.lambda_
        return (1 - lam) * state["rel"] + lam * bonus

    def update(self, state, block, picked, t):
        rows = np.flatnonzero(picked >= 0)
        state["covered"][rows] |= state["A"][rows, picked[rows]]


# %% [markdown]
# ## Check it by hand
#
# One user, four candidates, k = 3:
#
# | candidate | baseline score | ŝ (min–max) | genres |
# |---|---|---|---|
# | m1 | 1.0 | 1.000 | Action, Sci-Fi |
# | m2 | 0.9 | 0.875 | Action, Sci-Fi |
# | m3 | 0.6 | 0.500 | Comedy |
# | m4 | 0.2 | 0.000 | Action, Drama |
#
# With **λ = 0.5**: step 1, nothing is covered, every bonus is 1, so f = 0.5·ŝ + 0.5 and m1 wins (1.0).
# Step 2, Action and Sci-Fi are covered: f(m2) = 0.4375 + 0 = 0.4375, f(m3) = 0.25 + 0.5 = 0.75,
# f(m4) = 0 + 0.5·½ = 0.25 → m3. Step 3: f(m2) = 0.4375 > f(m4) = 0.25 → m2. List: **m1, m3, m2**.
#
# With **λ = 0.8**: step 2 gives f(m2) = 0.175, f(m3) = 0.1 + 0.8 = 0.9, f(m4) = 0.4 → m3; step 3
# f(m2) = 0.175 < f(m4) = 0.4 → m4 (Drama is new). List: **m1, m3, m4**. λ = 0 must give the baseline order.

# %%
toy_items = Vocab(["m1", "m2", "m3", "m4"])
toy_users = Vocab(["alice"])
toy_genres = pd.DataFrame({"item": ["m1", "m1", "m2", "m2", "m3", "m4", "m4"],
                           "aspect": ["Action", "Sci-Fi", "Action", "Sci-Fi", "Comedy", "Action", "Drama"]})
toy_space = AspectSpace.from_frame(toy_genres, toy_items, name="genres")
toy_candidates = Rankings(np.array([0]), np.array([[0, 1, 2, 3]]), np.array([[1.0, 0.9, 0.6, 0.2]]),
                          toy_users, toy_items)
toy_ctx = RerankContext(aspects=toy_space)


def top3(lam: float) -> list[str]:
    out = NewGenre(**{"lambda": lam}).rerank(toy_candidates, 3, toy_ctx)
    return [str(i) for i in toy_items.id_of(out.items[0])]


for lam, expected in [(0.5, ["m1", "m3", "m2"]), (0.8, ["m1", "m3", "m4"]), (0.0, ["m1", "m2", "m3"])]:
    got = top3(lam)
    print(f"λ = {lam}: {got}   expected {expected}")
    assert got == expected, (lam, got)

# %% [markdown]
# ## Test it the way recdiv tests its own rerankers
#
# `recdiv.testing` is the kit recdiv's own tests use (it is installed with recdiv):
#
# - `check_reranker` runs the reranker on random instances — ragged candidate lists, items without genres, users
#   without a profile — and checks what every reranker must do: an ordered subset of each user's own candidates,
#   no repeats, min(k, N) long, padded with −1, the same lists on a second call, the candidates left unchanged;
# - `check_against_loop` compares the vectorised lists with a plain per-user loop of the same objective, written
#   straight from the formula: `objective(i, chosen, user)` is f(i | S) for candidate position `i` given the chosen
#   positions, with the user's candidates (`user.items`, `user.scores`) and their genres (`user.env.aspects(item)`).
#   The greedy loop around it (best value first, ties to the earliest candidate) is the kit's `loop_rerank`.

# %%
def new_genre_objective(lam):
    def objective(i, chosen, user):
        lo, hi = min(user.scores), max(user.scores)
        rel = (user.scores[i] - lo) / (hi - lo) if hi > lo else 1.0
        genres = user.env.aspects(user.items[i])
        covered = set().union(*(user.env.aspects(user.items[j]) for j in chosen))
        return (1 - lam) * rel + lam * (len(genres - covered) / len(genres) if genres else 0.0)

    return objective


check_reranker(NewGenre())
for lam in (0.3, 0.6, 0.9):
    check_against_loop(NewGenre(**{"lambda": lam}), new_genre_objective(lam))
print("properties hold; the vectorised lists equal the per-user loop on random instances")


# %% [markdown]
# ## Real candidates: MovieLens 100K
#
# The per-user loop also runs on real candidate lists: below, the first 30 candidates of 100 users, k = 10, three
# values of λ.
#
#
# The same setting as notebook 1: split `u1`, relevant = test rating ≥ 4, user-knn top-500 candidates reranked
# to top-50, genres as aspects.


# %%
ds = load_ml100k(data_dir() / "ml-100k")
split = ds.splits["u1"]
genres = genre_space(ds)
qrels = Qrels.from_interactions(split.test)
eval_ctx = EvalContext(threshold=4, train=split.train, aspects=genres)
users = qrels.population(threshold=4)
candidates = make_recommender("user-knn", feedback="implicit").fit(split.train).recommend(users, 500)
rerank_ctx = RerankContext(train=split.train, aspects=genres)
print(f"{len(users)} users × {candidates.k} candidates")

# %%
sample = candidates.for_users(users[:100]).truncate(30)
member = genres.dense(dtype=bool)
mismatches = 0
for lam in (0.3, 0.6, 0.9):
    fast = NewGenre(**{"lambda": lam}).rerank(sample, 10, rerank_ctx)
    for row in range(len(sample)):
        n = int(sample.lengths[row])
        items, scores = sample.items[row, :n], sample.scores[row, :n]
        env = SimpleNamespace(aspects=lambda i: frozenset(np.flatnonzero(member[i])))
        user = UserCase(items.tolist(), scores.tolist(), env, rerank_ctx)
        expected = [items[c] for c in loop_rerank(new_genre_objective(lam), user, 10)]
        mismatches += list(fast.items[row, : len(expected)]) != expected
print(f"users whose list differs from the loop: {mismatches} of {3 * len(sample)}")
assert mismatches == 0

# %% [markdown]
# ## Evaluate
#
# We compare NewGenre at two λ values with the baseline and with MMR and xQuAD. Besides the metrics of notebook 1
# we add **S-recall@50** (subtopic recall, Zhai et al. 2003): the fraction of the genres of the user's relevant test
# movies that the list covers with relevant movies — the metric closest to what NewGenre optimises.

# %%
K = 50
runs = {"user-knn": candidates.truncate(K)}
for label, reranker in {"NewGenre(λ=0.3)": NewGenre(**{"lambda": 0.3}),
                        "NewGenre(λ=0.6)": NewGenre(**{"lambda": 0.6}),
                        "MMR(λ=0.5)": make_reranker("MMR", **{"lambda": 0.5}),
                        "xQuAD(λ=0.1)": make_reranker("xQuAD", **{"lambda": 0.1})}.items():
    t = time.perf_counter()
    runs[label] = reranker.rerank(candidates, K, rerank_ctx)
    print(f"{label:16s} {time.perf_counter() - t:.1f} s")

MEASURES = ["nDCG@50", "P@50", "EPC@50", "ILD@50", "alpha-nDCG@50", "S-recall@50"]
results = Results.evaluate(runs, qrels, MEASURES, eval_ctx)
table = results.means()
display(table)
display(Markdown(results.compare(baseline="user-knn", test="t", correction="holm").to_markdown()))

# %% [markdown]
# How does the new reranker compare? Look at the table above: it should raise ILD (it spreads the list over
# more genres) at a cost in nDCG that grows with λ. Whether it beats MMR is a question of *where on the
# trade-off curve* you compare them — try a few more λ values for both and plot nDCG@50 against ILD@50 as in
# notebook 1.
#
# **Exercises.**
#
# 1. Weight the bonus by the user's taste: replace |A(i) \ A(S)|/|A(i)| by Σ_{a ∈ A(i) \ A(S)} p(a|u)
#    (`block.user_distribution()` gives p(a|u), users × aspects). What happens to α-nDCG?
# 2. Make the bonus decay instead of vanish: count how often each genre is covered and give (1 − α)^count
#    (this is the α-nDCG gain model used as an objective).
# 3. Use it from the command line without touching recdiv: save the two classes in `newgenre.py` and run, in that
#    folder, `recdiv rerank base.run --method newgenre:NewGenre --param lambda=0.5 ...` (a `module:Class` is
#    imported with the working folder on the path, as `python -m` does), and the
#    same `newgenre:NewGenre` in an experiment file (docs/tutorial-reranker.md).
# 4. Explore it live: save the class in `mymodule.py` and run, in that folder,
#    `recdiv explore ml-100k --plugin mymodule:NewGenre`. Its λ becomes a slider beside MMR and
#    xQuAD, and the user view shows its objective at the step each item was chosen; add a
#    `relevance_term(state, block, remaining, t)` method returning the (1 − λ)·ŝ(i) part to see it split into
#    relevance and diversity (docs/teaching.md).

# %%
print(f"notebook run time: {time.perf_counter() - T0:.0f} s")
