"""MovieLens readers, on small fixtures written here in the published layouts."""

from pathlib import Path

import pytest

from taurec.catalog.errors import DataError
from taurec.catalog.interaction_sources import load_interactions
from taurec.catalog.movielens import read_movielens

U_ITEM = [
    "1|Alpha Film (1995)|01-Jan-1995||http://x|0|0|0|1|1|1|0|0|0|0|0|0|0|0|0|0|0|0|0",
    "2|Beta Film (1996)|01-Jan-1996||http://x|0|1|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0",
    "3|Gamma Film (1997)|01-Jan-1997||http://x|0|0|0|0|0|0|0|0|1|0|0|0|0|0|0|0|0|0|0",
]
U_DATA = ["7\t1\t5\t881250949", "7\t2\t3\t881250950", "9\t3\t4\t881250960", "9\t1\t2\t881250900"]


def _u_layout(tmp_path: Path, data: list[str] = U_DATA) -> Path:
    (tmp_path / "u.item").write_text("\n".join(U_ITEM) + "\n", encoding="latin-1")
    (tmp_path / "u.data").write_text("\n".join(data) + "\n", encoding="latin-1")
    return tmp_path


def _csv_layout(tmp_path: Path, ratings_header: str = "userId,movieId,rating,timestamp") -> Path:
    (tmp_path / "movies.csv").write_text(
        'movieId,title,genres\n1,Alpha Film (1995),Animation|Comedy\n2,"Beta, The (1996)",Action\n',
        encoding="utf-8",
    )
    (tmp_path / "ratings.csv").write_text(
        f"{ratings_header}\n1,1,4.5,964982703\n1,2,3.0,964982224\n2,2,5.0,964983000\n",
        encoding="utf-8",
    )
    return tmp_path


def test_u_files_give_users_items_ratings_and_genres(tmp_path: Path):
    data = read_movielens(_u_layout(tmp_path))
    assert len(data) == 4 and data.user_ids == ["7", "9"]
    alpha = data.items[data.item_of("ml1")]
    assert alpha.title == "Alpha Film (1995)"
    assert alpha.categories == ["Animation", "Children's", "Comedy"]
    assert alpha.attributes == {"Year": "1995"}


def test_u_data_with_a_missing_column_names_the_file_and_what_was_expected(tmp_path: Path):
    with pytest.raises(DataError, match=r"u\.data: line 2: 3 tab-separated columns; expected 4"):
        read_movielens(_u_layout(tmp_path, ["7\t1\t5\t881250949", "7\t2\t3"]))


def test_csv_files_read_through_the_source_string(tmp_path: Path):
    data = load_interactions(f"movielens:{_csv_layout(tmp_path)}")
    assert len(data) == 3
    assert data.items[data.item_of("ml2")].title == "Beta, The (1996)"
    assert data.items[data.item_of("ml1")].categories == ["Animation", "Comedy"]


def test_ratings_csv_with_a_wrong_column_names_the_file_and_the_column(tmp_path: Path):
    folder = _csv_layout(tmp_path, "userId,itemId,rating,timestamp")
    with pytest.raises(DataError, match=r"ratings\.csv: has no column 'movieId'"):
        read_movielens(folder)


def test_a_folder_in_neither_layout_says_what_it_expected(tmp_path: Path):
    with pytest.raises(DataError, match=r"neither u\.data"):
        read_movielens(tmp_path)


def test_the_recbole_copy_reads_as_movielens_100k_when_installed():
    pytest.importorskip("recbole", exc_type=ImportError)
    data = read_movielens("recbole")
    assert (len(data), len(data.user_ids), len(data.items)) == (100_000, 943, 1682)
