"""Items for people (`recdiv.data.items`, items.tsv of `recdiv data export`) and `recdiv show`: a user's list with
titles and aspects in the terminal, against a baseline; text from files never reaches the terminal raw."""

from __future__ import annotations

import pytest

from recdiv.cli import main
from recdiv.data.items import Items, clean, read_items_tsv, write_items_tsv
from recdiv.data.load import load_dataset
from recdiv.errors import DataError


def test_items_file_round_trip_and_cleaning(tmp_path):
    items = Items({"1": "Toy Story (1995)", "2": "Bad\ttitle\nwith\x1b[2J escapes", "3": "[bold]x[/bold]"},
                  {"1": ("Animation", "Children's"), "2": (), "3": ("a b",)})
    path = tmp_path / "items.tsv"
    write_items_tsv(items, path)
    back = read_items_tsv(path)
    assert back.describe("1") == ("Toy Story (1995)", ("Animation", "Children's"))
    assert back.describe("2") == ("Bad title with [2J escapes", ())
    assert back.describe("3") == ("[bold]x[/bold]", ("a b",))
    assert back.describe(99) == ("99", ())  # an unknown item shows its id
    assert clean("a\x00\x07b\u2028c") == "a b c"


def test_items_file_errors(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("# item\ttitle\n1\tA\n1\tB\n")
    with pytest.raises(DataError, match="line 3: item '1' is listed twice"):
        read_items_tsv(bad)
    bad.write_text("onlyone\n")
    with pytest.raises(DataError, match=r"line 1: expected item<TAB>title"):
        read_items_tsv(bad)


@pytest.mark.realdata
def test_ml100k_items_and_export(data_root, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # rich's table width when the output is not a terminal
    items = Items.of(load_dataset("ml-100k", data_dir=data_root))
    assert items.describe(50)[0] == "Star Wars (1977)" and len(items) == 1682
    out = tmp_path / "u1"
    assert main(["data", "export", "ml-100k", "--split", "u1", "--data-dir", str(data_root), "-o", str(out)]) == 0
    back = read_items_tsv(out / "items.tsv")
    assert back.describe("50") == ("Star Wars (1977)", ("Action", "Adventure", "Romance", "Sci-Fi", "War"))
    assert "items.tsv" in (out / "README.txt").read_text(encoding="utf-8")
    run, base = tmp_path / "a.run", tmp_path / "b.run"
    run.write_text("1 Q0 50 1 3 x\n1 Q0 181 2 2 x\n1 Q0 999999 3 1 x\n2 Q0 50 1 1 x\n")
    base.write_text("1 Q0 181 1 3 y\n1 Q0 100 2 2 y\n1 Q0 50 3 1 y\n")
    capsys.readouterr()
    assert main(["show", str(run), "--user", "1", "--items", str(out / "items.tsv"), "--baseline", str(base),
                 "--qrels", str(out / "test.qrels")]) == 0
    text = capsys.readouterr().out
    assert "Star Wars (1977)" in text and "Return of the Jedi (1983)" in text and "Sci-Fi" in text
    assert "was 3" in text and "was 1" in text and "new" in text  # 999999 is not in the baseline
    assert "left the list: Fargo (1996) (was 2)" in text
    assert main(["show", str(run), "--user", "1", "--dataset", "ml-100k", "--data-dir", str(data_root)]) == 0
    assert "Star Wars (1977)" in capsys.readouterr().out


def test_show_escapes_and_errors(tmp_path, capsys):
    items = tmp_path / "items.tsv"
    write_items_tsv(Items({"i1": "evil \x1b]0;pwned\x07 [red]markup[/red]"}, {"i1": ("\x1b[31mred",)}), items)
    run = tmp_path / "r.run"
    run.write_text("u Q0 i1 1 1 t\n")
    assert main(["show", str(run), "--user", "u", "--items", str(items)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "[red]markup[/red]" in out  # printed as text, not as rich markup
    assert main(["show", str(run), "--user", "nobody", "--items", str(items)]) == 2
    assert "no list for user 'nobody'" in capsys.readouterr().err


@pytest.mark.realdata
def test_an_export_folder_is_a_dataset_with_the_same_numbers(data_root, tmp_path):
    from recdiv.explore.engine import Engine
    from recdiv.explore.server import plan
    from recdiv.explore.views import population, user_view

    out = tmp_path / "u1"
    assert main(["data", "export", "ml-100k", "--split", "u1", "--data-dir", str(data_root), "-o", str(out)]) == 0
    ds = load_dataset(out)
    assert list(ds.splits) == ["export"] and "genres" in ds.attributes
    assert ds.splits["export"].train.nnz == 80_000 and ds.splits["export"].test.nnz == 20_000
    catalog, state = plan(str(out))
    assert (state.dataset, state.split) == ("u1", "export")
    exported = Engine(catalog).prepare(state)
    catalog2, _ = plan("ml-100k", data_dir=str(data_root))
    direct = Engine(catalog2).prepare(state.replace(dataset="ml-100k", split="u1"))
    means = [{(r["system"], r["measure"]): r["mean"] for r in population(e, p)["rows"]}
             for e, p in ((Engine(catalog), exported), (Engine(catalog2), direct))]
    # the same lists; means equal up to the order in which intent-aware measures sum over the aspects (the
    # export's aspects.tsv lists genres in another order than the dataset's genre vocabulary)
    assert means[0] == pytest.approx(means[1], rel=1e-12, abs=1e-15)
    first = user_view(Engine(catalog), exported)["lists"]["A"][0]
    assert first["title"] == "Raiders of the Lost Ark (1981)" and first["aspects"] == ["Action", "Adventure"]
