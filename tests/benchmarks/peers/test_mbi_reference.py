"""benchmarks.peers.mbi_reference: ours on the coded table, and the stored rows of the peers' comparison."""

from benchmarks.common import coded_table
from benchmarks.peers import mbi_reference as versus_aim


def test_ours_runs_on_the_codes():
    codes, cells = coded_table("pums", 16)
    synthetic, seconds = versus_aim.ours(codes.head(300), cells, 1.0, 1e-9, 0)
    assert list(synthetic.columns) == list(cells) and seconds > 0
    assert all(synthetic[n].between(0, cells[n] - 1).all() for n in cells)


def test_stored_rows_are_replaced_per_seed_and_summarised(tmp_path, capsys):
    import pandas as pd

    store = tmp_path / "versus_aim.csv"

    def rows(method, seeds, tvd2, seconds):
        return pd.DataFrame(
            [
                {
                    "table": "pums",
                    "method": method,
                    "epsilon": 1.0,
                    "seed": s,
                    "status": "ok",
                    "tvd2": tvd2,
                    "score3": 0.7,
                    "seconds": seconds,
                    "peak_mb": 100.0,
                }
                for s in seeds
            ]
        )

    versus_aim.store_rows(store, rows("aim", [0], 0.20, 100.0))
    versus_aim.store_rows(store, rows("aim", [1, 2], 0.20, 100.0))  # --first-seed 1 --seeds 2 adds to seed 0
    versus_aim.store_rows(store, rows("marginals", [0, 1, 2], 0.10, 1.0))
    versus_aim.store_rows(store, rows("marginals", [0, 1, 2], 0.15, 2.0))  # a rerun replaces
    stored = pd.read_csv(store)
    assert len(stored) == 6 and set(stored[stored["method"] == "marginals"]["tvd2"]) == {0.15}
    versus_aim.summarise(stored)
    printed = capsys.readouterr().out
    assert "| 1 | pums | aim | -0.05 | ahead | 0.02 | 1 | 3 |" in printed
