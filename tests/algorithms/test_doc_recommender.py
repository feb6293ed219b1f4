"""docs/architecture.md's one-file recommender: saved as a module, it is usable by `module:Class` without
editing recdiv, and scores as its formula says."""

from __future__ import annotations

import re

import numpy as np
import pytest

from recdiv.algorithms.registry import make_recommender
from recdiv.data.locate import REPO_ROOT
from recdiv.errors import ConfigError
from tests.algorithms.conftest import random_interactions


@pytest.fixture
def mymodels(tmp_path, monkeypatch):
    text = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if "class DampedMean(" in b]
    (tmp_path / "mymodels_doc.py").write_text(re.sub(r"(?m)^  ", "", block), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "mymodels_doc:DampedMean"


def test_doc_recommender_by_module_class(mymodels):
    train = random_interactions()
    model = make_recommender(mymodels, damping=2).fit(train)
    dense = train.matrix.toarray()
    n, total, mu = (dense > 0).sum(axis=0), dense.sum(axis=0), train.matrix.data.mean()
    expected = (total + 2 * mu) / (n + 2)
    users = np.arange(3)
    np.testing.assert_allclose(model.score(users, np.tile(np.arange(train.n_items), (3, 1))),
                               np.tile(expected, (3, 1)), rtol=1e-12)
    top = model.recommend(users, 5, exclude=None)
    assert list(top.items[0]) == list(np.argsort(-expected, kind="stable")[:5])
    with pytest.raises(ConfigError, match="damping"):
        make_recommender(mymodels, damping=-1)
