"""The model layer shared by the metrics (`recdiv.eval`) and the rerankers (`recdiv.diversifiers`), below both
(RankSys-novdiv's place): rank discounts, relevance models, item novelty. Neither `eval` nor `diversifiers`
imports the other; both compose these models."""
