"""`recdiv eval` states how it computed its numbers (stderr): the relevance threshold, the users averaged over, and
per run which of its users were evaluated or ignored; a run whose users are all outside the evaluation is warned
about. The statement explains the difference from trec_eval's numbers on the same files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from recdiv.cli import main

# u: relevant a, b, e (τ = 4); v: judged, nothing relevant; w: relevant z; x: in the run only
QRELS = "u 0 a 5\nu 0 b 4\nu 0 c 3\nu 0 d 2\nu 0 e 4\nv 0 a 1\nw 0 z 5\n"
RUN = "u Q0 x 1 5 t\nu Q0 a 2 4 t\nu Q0 c 3 3 t\nu Q0 b 4 2 t\nu Q0 y 5 1 t\nv Q0 a 1 1 t\nx Q0 a 1 1 t\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r1.run").write_text(RUN)
    (tmp_path / "ids.run").write_text("user-u Q0 a 1 1 t\nuser-w Q0 z 1 1 t\n")
    return tmp_path


def _eval(capsys, *argv):
    rc = main(["eval", *map(str, argv)])
    out = capsys.readouterr()
    assert rc == 0, out.err
    return out.out, out.err.splitlines()


def test_statement_names_threshold_population_and_users(files, capsys):
    _, err = _eval(capsys, files / "q.txt", files / "r1.run", "-m", "P@5")
    assert err[0] == ("recdiv eval: relevant ⇔ grade ≥ 4 (--rel-threshold); mean over 2 users: those with a "
                      "relevant test item (--population relevant); an evaluated user without a list scores 0")
    assert "trec_eval -c -l 4 averages over the 3 users with a judgment" in err[1]
    # r1 lists u, v, x: u evaluated, v judged but without a relevant item, x not in the qrels; w has no list
    assert err[2] == ("recdiv eval: r1: lists for 3 users: 1 evaluated, ignored 1 not in the qrels and 1 judged but "
                      "not evaluated; 1 evaluated user without a list")
    assert len(err) == 3


def test_statement_follows_the_options(files, capsys):
    _, err = _eval(capsys, files / "q.txt", files / "r1.run", "-m", "P@5", "--population", "judged",
                   "--rel-threshold", "2")
    assert "relevant ⇔ grade ≥ 2" in err[0] and "mean over 3 users: those with a judgment" in err[0]
    assert "trec_eval -c -l 2 gives the same values" in err[1]
    assert err[2].endswith("2 evaluated, ignored 1 not in the qrels; 1 evaluated user without a list")


def test_warning_when_no_user_matches(files, capsys):
    out, err = _eval(capsys, files / "q.txt", files / "ids.run", "-m", "P@5", "--format", "json")
    assert json.loads(out)["runs"]["ids"]["P@5"] == 0.0
    assert err[-1].startswith("recdiv eval: warning: ids: none of its users is evaluated (its user ids, e.g. "
                              "'user-u', are not the qrels' ids)")


def test_judged_population_is_trec_eval_c(files, capsys):
    """P@5 with --population judged equals trec_eval -c -l 4 (pytrec_eval, 0 for users without a list); the
    default population (users with a relevant item) and trec_eval's default level (-l 1) each give another
    number, as the statement says."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = {}, {}
    for line in QRELS.splitlines():
        u, _, i, g = line.split()
        qrels.setdefault(u, {})[i] = int(g)
    for line in RUN.splitlines():
        u, _, i, _, s, _ = line.split()
        run.setdefault(u, {})[i] = float(s)

    def trec(level):
        res = pytrec_eval.RelevanceEvaluator(qrels, {"P.5"}, relevance_level=level).evaluate(run)
        return float(np.mean([res.get(u, {}).get("P_5", 0.0) for u in qrels]))  # -c: every judged user

    out, _ = _eval(capsys, files / "q.txt", files / "r1.run", "-m", "P@5", "--population", "judged",
                   "--format", "json")
    assert json.loads(out)["runs"]["r1"]["P@5"] == pytest.approx(trec(4))
    out, _ = _eval(capsys, files / "q.txt", files / "r1.run", "-m", "P@5", "--format", "json")
    default = json.loads(out)["runs"]["r1"]["P@5"]
    assert default == pytest.approx((2 / 5 + 0) / 2)  # u and w only
    assert default != pytest.approx(trec(4)) and trec(1) != pytest.approx(trec(4))
