"""Figures of a pair attribution: the two texts' tokens side by side, coloured by their share of the score, with
the MaxSim lines between them (as bertviz draws attention: two columns of tokens and lines across). Layout only."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from bertviz_core.figures import plain, plains

ROW_PX = 24
LINES = {"first": ("#2563eb", "solid"), "second": ("#ea580c", "dot")}  # a text's tokens' MaxSim lines


def _positions(count: int, rows: int) -> np.ndarray:
    """y of ``count`` tokens spread over ``rows`` rows, from the top."""
    return np.arange(count) * (rows - 1) / max(count - 1, 1) if count > 1 else np.zeros(1)


def pair_lines_figure(first_tokens: Sequence[str], second_tokens: Sequence[str], first_shares: np.ndarray,
                      second_shares: np.ndarray, maxsim: pd.DataFrame, title: str) -> go.Figure:
    """The first text's tokens down the left, the second's down the right, each marker coloured by the token's
    share (RdBu, 0 white); a line from each token to its MaxSim partner in the other text (``maxsim``: the
    columns of ``token_pairs.maxsim_pairs``), blue from the first text, orange dotted from the second."""
    rows = max(len(first_tokens), len(second_tokens))
    y = {"first": _positions(len(first_tokens), rows), "second": _positions(len(second_tokens), rows)}
    x = {"first": 0.0, "second": 1.0}
    reach = float(max(np.abs(first_shares).max(initial=0), np.abs(second_shares).max(initial=0), 1e-12))
    scale = dict(title="share", tickvals=[-reach, 0, reach], ticktext=[f"{-reach:+.2f}", "0", f"{reach:+.2f}"])
    data = []
    for side, tokens, shares in (("first", first_tokens, first_shares), ("second", second_tokens, second_shares)):
        data.append(dict(type="scatter", x=[x[side]] * len(tokens), y=y[side], mode="markers+text",
                         text=plains(tokens), textposition="middle left" if side == "first" else "middle right",
                         customdata=[[token, float(share)] for token, share in zip(plains(tokens), shares)],
                         name=f"{side} text", showlegend=False,
                         hovertemplate="%{customdata[0]}<br>share %{customdata[1]:+.3f}<extra></extra>",
                         marker=dict(size=14, color=np.asarray(shares, dtype=float), colorscale="RdBu", cmid=0,
                                     cmin=-reach, cmax=reach, line=dict(color="#334155", width=1),
                                     showscale=side == "first", colorbar=scale)))
    for side, other in (("first", "second"), ("second", "first")):
        pairs = maxsim[maxsim["text"] == side]
        xs, ys = [], []
        for position, partner in zip(pairs["position"], pairs["partner position"]):
            xs += [x[side], x[other], None]
            ys += [y[side][int(position)], y[other][int(partner)], None]
        colour, dash = LINES[side]
        data.append(dict(type="scatter", x=xs, y=ys, mode="lines", hoverinfo="skip", opacity=0.55,
                         line=dict(color=colour, width=1.5, dash=dash), name=f"MaxSim from the {side} text"))
    layout = dict(title=dict(text=plain(title)), height=max(320, ROW_PX * rows + 140),
                  margin=dict(l=10, r=10, t=60, b=10),
                  xaxis=dict(range=[-0.6, 1.6], side="top", tickvals=[0, 1], ticktext=["first text", "second text"],
                             showgrid=False, zeroline=False), plot_bgcolor="white",
                  yaxis=dict(autorange="reversed", visible=False),
                  legend=dict(orientation="h", y=-0.02, yanchor="top", x=0.5, xanchor="center"))
    return go.Figure(dict(data=data, layout=layout))
