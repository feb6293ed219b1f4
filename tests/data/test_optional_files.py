"""An optional file of a dataset that is there but cannot be read — a broken symbolic link, a symlink loop, a
folder — is an error naming it, never skipped as if the file were absent (`recdiv data info`, every loader)."""

from __future__ import annotations

import os

import pytest

from recdiv.cli import main
from recdiv.data._source import optional_file
from recdiv.errors import DataError


def test_optional_file_tells_absent_from_broken(tmp_path):
    assert optional_file(tmp_path / "absent.dat") is False
    (tmp_path / "there.dat").write_text("x", "utf-8")
    assert optional_file(tmp_path / "there.dat") is True
    os.symlink(tmp_path / "there.dat", tmp_path / "link.dat")
    assert optional_file(tmp_path / "link.dat") is True
    os.symlink(tmp_path / "nowhere.dat", tmp_path / "broken.dat")
    with pytest.raises(DataError, match=r"broken.dat: a broken symbolic link \(to .*nowhere.dat"):
        optional_file(tmp_path / "broken.dat")
    os.symlink(tmp_path / "loop.dat", tmp_path / "loop.dat")
    with pytest.raises(DataError, match="symlink loop"):
        optional_file(tmp_path / "loop.dat")
    (tmp_path / "dir.dat").mkdir()
    with pytest.raises(DataError, match="not a regular file"):
        optional_file(tmp_path / "dir.dat")


@pytest.mark.parametrize(("marker", "optional"), [("interactions.tsv", None), ("ratings.csv", "tags.csv"),
                                                  ("ratings.csv", "links.csv"), ("u.data", "u.user")])
def test_data_info_names_a_broken_optional_file(tmp_path, capsys, marker, optional):
    folder = tmp_path / "ds"
    folder.mkdir()
    if marker == "interactions.tsv":
        os.symlink(tmp_path / "gone.tsv", folder / marker)  # the file that identifies the format
        broken = marker
    else:
        body = {"ratings.csv": "userId,movieId,rating,timestamp\n1,1,4.0,964982703\n2,1,3.0,964982704\n",
                "u.data": "1\t1\t4\t881250949\n2\t1\t3\t881250950\n"}[marker]
        (folder / marker).write_text(body, "utf-8")
        if marker == "ratings.csv":
            (folder / "movies.csv").write_text("movieId,title,genres\n1,Toy Story (1995),Animation\n", "utf-8")
        else:
            (folder / "u.item").write_text("1|Toy Story (1995)|01-Jan-1995||http://x|0|0|0|1|1|1|0|0|0|0|0|0|0|0|0|0|0|"
                                           "0|0\n", "utf-8")
            (folder / "u.genre").write_text("".join(f"g{j}|{j}\n" for j in range(19)), "utf-8")
        os.symlink(tmp_path / "gone", folder / optional)
        broken = optional
    rc = main(["data", "info", str(folder)])
    err = capsys.readouterr().err
    assert rc == 2 and f"{broken}: a broken symbolic link" in err, err
