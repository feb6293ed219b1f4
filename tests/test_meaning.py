"""No plausible number for a meaningless combination: a mean over 0 users, an aspect file or training data that
shares nothing with the run, a meta-evaluation of a run that meets no evaluated user, a comparison of a run with
itself, LensKit integer item ids against an aspect file — each an error (or a note) instead of a silent 0.000 or
the input order."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from recdiv.cli import main
from recdiv.data.export import export_split, recorded_threshold
from recdiv.data.interactions import Interactions, Split
from recdiv.data.vocab import Vocab

RUN = "".join(f"u{u} Q0 i{i} {r} {10 - r} sys\n" for u in range(1, 6) for r, i in enumerate(range(u, u + 6), 1))
RUN2 = "".join(f"u{u} Q0 i{i} {r} {10 - r} two\n" for u in range(1, 6) for r, i in enumerate(range(9, 2, -1), 1))
QRELS = "".join(f"u{u} 0 i{i} {1 + (u + i) % 5}\n" for u in range(1, 6) for i in range(1, 11))
ASPECTS = "".join(f"i{i}\tg{i % 3}\n" for i in range(1, 13))
SWAPPED = "".join(f"g{i % 3}\ti{i}\n" for i in range(1, 13))
TRAIN = "".join(f"u{u}\ti{i}\t{1 + (u * i) % 5}\n" for u in range(1, 6) for i in range(1, 13) if (u + i) % 3)
OTHER_TRAIN = TRAIN.replace("u", "x")


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, text in {"a.run": RUN, "b.run": RUN2, "t.qrels": QRELS, "aspects.tsv": ASPECTS, "swapped.tsv": SWAPPED,
                       "train.tsv": TRAIN, "other.tsv": OTHER_TRAIN}.items():
        (tmp_path / name).write_text(text, "utf-8")
    return tmp_path


def _error(capsys, *argv) -> str:
    rc = main(list(argv))
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.count("\n") == 1 and err.startswith("recdiv: error: "), err
    return err


def _implicit_export(folder):
    """An implicit-feedback split (every test grade 1) written by `export_split`."""
    rng = np.random.default_rng(0)
    users, items = Vocab([f"u{u}" for u in range(1, 21)]), Vocab([f"i{i}" for i in range(1, 31)])
    pairs = {(u, i) for u in range(20) for i in rng.choice(30, 8, replace=False)}
    u, i = map(np.array, zip(*sorted(pairs)))
    test = rng.random(len(u)) < 0.3
    train = Interactions.from_arrays(u[~test], i[~test], None, users, items, kind="implicit")
    tst = Interactions.from_arrays(u[test], i[test], None, users, items, kind="implicit")
    return export_split(Split(train, tst), folder, source="implicit test data")


def test_a_mean_over_zero_users_is_an_error_that_names_the_threshold(files, capsys):
    out = _implicit_export(files / "exp")
    assert out.threshold == 1.0
    shutil.copy(files / "exp" / "test.qrels", files / "copy.qrels")  # without its record: the default τ = 4
    run = "".join(f"u{u} Q0 i{i} {r} {10 - r} s\n" for u in range(1, 21) for r, i in enumerate(range(1, 11), 1))
    (files / "r.run").write_text(run, "utf-8")
    for command in ("eval", "compare", "meta"):
        argv = [command, "copy.qrels", "r.run", *(["a.run"] if command != "eval" else []), "-m", "P@5"]
        err = _error(capsys, *argv)
        assert ("copy.qrels: no user has a relevant item at --rel-threshold 4 (grades 1 to 1): a mean over 0 users "
                "is no number; --rel-threshold 1 counts the highest grade as relevant") in err


def test_export_records_the_threshold_its_qrels_need_and_eval_uses_it(files, capsys):
    _implicit_export(files / "exp")
    record = json.loads((files / "exp" / "export.json").read_text("utf-8"))
    assert record["threshold"] == 1.0 and record["qrels"] == "test.qrels" and record["feedback"] == "implicit"
    assert recorded_threshold(files / "exp" / "test.qrels")[0] == 1.0
    assert recorded_threshold(files / "copy.qrels") is None
    run = "".join(f"u{u} Q0 i{i} {r} {10 - r} s\n" for u in range(1, 21) for r, i in enumerate(range(1, 11), 1))
    (files / "r.run").write_text(run, "utf-8")
    assert main(["eval", "exp/test.qrels", "r.run", "-m", "P@5", "--format", "json"]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out)["runs"]["r"]["P@5"] > 0
    assert "relevant ⇔ grade ≥ 1 (from exp/export.json; --rel-threshold sets another)" in cap.err
    # an explicit --rel-threshold wins over the record
    assert _error(capsys, "eval", "exp/test.qrels", "r.run", "-m", "P@5", "--rel-threshold", "2")


@pytest.mark.parametrize("measure", ["alpha-nDCG@5", "ERR-IA(weights=uniform)@5", "S-recall@5", "ILD@5"])
def test_aspect_measures_refuse_an_aspect_file_that_describes_no_run_item(files, capsys, measure):
    err = _error(capsys, "eval", "t.qrels", "a.run", "-m", measure, "--aspects", "swapped.tsv")
    assert f"{measure}: no item of run a has an aspect in swapped.tsv" in err
    err = _error(capsys, "compare", "t.qrels", "a.run", "b.run", "-m", measure, "--aspects", "swapped.tsv")
    assert "no item of run a has an aspect" in err
    assert main(["eval", "t.qrels", "a.run", "-m", measure, "--aspects", "aspects.tsv"]) == 0


def test_novelty_measures_refuse_training_data_without_the_run_items(files, capsys):
    other_items = "".join(f"x{u}\tz{i}\t3\n" for u in range(1, 6) for i in range(1, 9))
    (files / "other_items.tsv").write_text(other_items, "utf-8")
    err = _error(capsys, "eval", "t.qrels", "a.run", "-m", "EPC@5", "--train", "other_items.tsv")
    assert "EPC@5: no item of run a is in the training file other_items.tsv" in err


@pytest.mark.parametrize(("method", "extra", "message"), [
    ("xQuAD", ["--aspects", "swapped.tsv", "--train", "train.tsv"], "no candidate item of a.run has an aspect"),
    ("IA-Select", ["--aspects", "aspects.tsv", "--train", "other.tsv"], "no user of a.run is in --train other.tsv"),
    ("xQuAD", ["--aspects", "aspects.tsv", "--train", "other.tsv"], "no user of a.run is in --train other.tsv"),
])
def test_rerankers_refuse_aspects_or_profiles_that_share_nothing_with_the_run(files, capsys, method, extra, message):
    err = _error(capsys, "rerank", "a.run", "--method", method, *extra, "-o", "out.run")
    assert message in err
    assert not (files / "out.run").exists()


def test_meta_refuses_a_run_that_meets_no_evaluated_user(files, capsys):
    (files / "nobody.run").write_text(RUN.replace("u", "nobody-"), "utf-8")
    err = _error(capsys, "meta", "t.qrels", "a.run", "nobody.run", "-m", "P@5", "--analysis", "dp")
    assert "run nobody: none of its users is evaluated" in err


def test_compare_notes_a_run_compared_with_itself(files, capsys):
    shutil.copy(files / "a.run", files / "copy.run")
    assert main(["compare", "t.qrels", "a.run", "copy.run", "b.run", "-m", "P@5"]) == 0
    err = capsys.readouterr().err
    assert "note: runs a and copy hold the same lists" in err
    assert "runs a and b" not in err


@pytest.mark.parametrize("command", ["compare", "eval", "meta"])
def test_a_run_given_twice_is_refused(files, capsys, command):
    """The same path twice would be one run under one name (the second silently replacing the first): refused in
    memory and streamed; `./a.run` beside `a.run` are two names and get the note above instead."""
    err = _error(capsys, command, "t.qrels", "a.run", "b.run", "a.run", "-m", "P@5")
    assert "a.run: the same run is given twice" in err
    if command != "meta":
        assert "a.run: the same run is given twice" in _error(capsys, command, "t.qrels", "a.run", "a.run", "-m",
                                                             "P@5", "--memory", "64M")


def test_lenskit_integer_item_ids_meet_an_aspect_file(tmp_path):
    """LensKit datasets often have integer item ids; an aspect file's ids are text: matched by their text, so the
    diversifier diversifies instead of returning the scorer's order."""
    pytest.importorskip("lenskit")
    from lenskit import recommend
    from lenskit.basic import PopScorer

    from recdiv.data.lenskit_io import interactions_to_lenskit
    from recdiv.diversifiers.lenskit_adapter import DiversifierComponent, RecPipelineBuilder
    from tests.diversifiers.test_lenskit_adapter import _data

    train, space = _data()
    space.to_frame().to_csv(tmp_path / "asp.tsv", sep="\t", header=False, index=False)
    lists = []
    for kw in ({"aspects": space}, {"aspects_file": str(tmp_path / "asp.tsv")}):
        b = RecPipelineBuilder()
        b.scorer(PopScorer)
        b.reranker(DiversifierComponent(method="xQuAD", params={"lambda": 0.9}, candidates=25, **kw))
        pipe = b.build()
        pipe.train(interactions_to_lenskit(train))
        lists.append(list(recommend(pipe, 7, n=8).ids()))
        base = list(pipe.run("ranker", query=7).ids())[:8]
    assert lists[0] == lists[1] != base


def test_a_group_file_of_other_users_is_an_error(files, capsys):
    (files / "groups.tsv").write_text("zz1\tA\nzz2\tB\n", "utf-8")
    err = _error(capsys, "eval", "t.qrels", "a.run", "-m", "P@5", "--groups", "groups.tsv")
    assert "--groups groups.tsv: no evaluated user is in any group" in err


def test_a_streamed_evaluation_over_zero_users_is_an_error_too(files, capsys, monkeypatch):
    """Runs larger than --memory are evaluated in blocks (recdiv.eval.stream): the same refusal of a mean over 0
    users, and the threshold an export records is used there too."""
    import recdiv.eval.stream

    monkeypatch.setattr(recdiv.eval.stream, "streaming_needed", lambda *a, **k: True)
    (files / "ones.qrels").write_text("".join(f"u{u} 0 i{i} 1\n" for u in range(1, 4) for i in range(1, 9)))
    err = _error(capsys, "eval", "ones.qrels", "a.run", "-m", "P@5")
    assert "no user has a relevant item at --rel-threshold 4" in err and "mean over 0 users" in err
    assert main(["eval", "ones.qrels", "a.run", "-m", "P@5", "--rel-threshold", "1"]) == 0


@pytest.mark.parametrize("streamed", [False, True])
def test_base_lists_of_other_users_are_an_error(files, capsys, monkeypatch, streamed):
    """RBO and LIP against a --previous file that lists none of the evaluated users: every user would score a
    plausible 0 (a user without a base list scores 0); refused in one line naming the file, in memory and streamed."""
    import recdiv.eval.stream

    if streamed:
        monkeypatch.setattr(recdiv.eval.stream, "streaming_needed", lambda *a, **k: True)
    (files / "other.run").write_text(RUN.replace("u", "x"), "utf-8")
    for cmd in (["eval", "t.qrels", "a.run"], ["compare", "t.qrels", "a.run", "b.run"]):
        err = _error(capsys, *cmd, "-m", "RBO@5", "-m", "LIP@5", "--previous", "other.run", "--rel-threshold", "1")
        who = "users of the qrels" if streamed else "evaluated users"
        assert f"--previous other.run: no base list for any of the 5 {who} (its users, e.g. 'x1', are not the " \
               "qrels'" in err and "RBO@5, LIP@5 would be 0 for every user" in err, err
    # some users without a base list: the values stand (they score 0), and a note says how many
    (files / "part.run").write_text("".join(line for line in RUN.splitlines(True) if line.startswith(("u1", "u2"))))
    assert main(["eval", "t.qrels", "a.run", "-m", "RBO@5", "--previous", "part.run", "--rel-threshold", "1",
                 "--format", "json"]) == 0
    out, err = capsys.readouterr()
    if not streamed:
        assert "recdiv: note: --previous part.run: no base list for 3 of the 5 evaluated users: they score 0 on " \
               "RBO@5" in err
    assert json.loads(out)["runs"]["a"]["RBO@5"] == pytest.approx(2 / 5)  # u1, u2: identical lists
