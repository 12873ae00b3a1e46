"""ui.layout.html_table: a static table drawn as one HTML element shows what Streamlit's table showed (numbers to 3
decimals, text as typed, a dash where a value is missing) and keeps every value, read back exactly."""
from __future__ import annotations

import numpy as np
import pandas as pd
from conftest import static_tables, table, table_text
from streamlit.testing.v1 import AppTest

from ui.layout.html_table import TABLE_CLASS, table_html

FRAME = pd.DataFrame({
    "token": ["[CLS]", "## x", "<b>bold</b>", "*a* & b"],
    "id": np.array([101, 2044, 7, 102], dtype=np.int64),
    "cosine": np.array([0.123456789, -1.0, np.nan, 2 / 3], dtype=np.float32),
    "word": ["After", None, "x", "y"],
    "best": [True, False, True, False],
    "start": pd.Series([None, 0, 5, 7], dtype=object),  # as a token table holds it: ints, None for a special token
})


def _draw(frame: pd.DataFrame) -> AppTest:
    def script() -> None:
        import streamlit as st

        from ui.display import table as ui_table

        ui_table(st.session_state["frame"], key="t")

    at = AppTest.from_function(script)
    at.session_state["frame"] = frame
    return at.run()


def test_cells_show_three_decimals_text_as_typed_and_a_dash_where_missing() -> None:
    drawn = table_html(FRAME)
    assert drawn.startswith(f'<div class="{TABLE_CLASS}"><table>') and "<script" not in drawn
    assert "&lt;b&gt;bold&lt;/b&gt;" in drawn and "*a* &amp; b" in drawn  # markup is shown, never applied
    rows = drawn.split("<tr>")[2:]  # past the header's
    assert '<td class="n" title="0.12345679104328156">0.123</td>' in rows[0]  # the float32's exact value on hover
    assert '<td class="n">2044</td>' in rows[1] and '<td class="n">—</td>' in rows[2]  # an int as it is; NaN a dash
    assert "<td>—</td>" in rows[1] and '<td class="b">False</td>' in rows[1]
    assert '<td class="n">—</td>' in rows[0] and '<td class="n">0</td>' in rows[1]  # ints with a None: numeric


def test_row_css_styles_every_cell_of_its_row() -> None:
    css = pd.Series(["background-color: #e0e7ff", "", "color: #94a3b8", ""], index=FRAME.index)
    rows = table_html(FRAME, css).split("<tr>")[2:]
    assert rows[0].count('style="background-color: #e0e7ff"') == len(FRAME.columns)
    assert "style=" not in rows[1] and rows[2].count('style="color: #94a3b8"') == len(FRAME.columns)


def test_the_drawn_table_reads_back_as_the_frame() -> None:
    frame = FRAME  # ints, floats, text, None, booleans, and ints with a None
    at = _draw(frame)
    assert not at.exception and static_tables(at) == 1
    back = table(at, "t")
    assert list(back.columns) == list(frame.columns) and back["token"].tolist() == frame["token"].tolist()
    assert back["id"].tolist() == frame["id"].tolist() and back["best"].tolist() == frame["best"].tolist()
    assert back["word"].tolist() == frame["word"].tolist() and back["start"].tolist()[1:] == [0, 5, 7]
    np.testing.assert_array_equal(back["cosine"], frame["cosine"].astype(float))  # the exact float, through its title
    assert table_text(at, "t")["cosine"].tolist() == ["0.123", "-1.000", "—", "0.667"]


def test_a_long_table_scrolls_in_a_data_grid() -> None:
    at = _draw(pd.DataFrame({"n": range(200)}))
    assert not at.exception and static_tables(at) == 0 and len(table(at, "t")) == 200
