"""Streamlit's own floor: one slider and one plotly chart, no model. bench/ compares every page with it."""
import numpy as np
import plotly.graph_objects as go
import streamlit as st

layer = st.slider("Layer", 0, 6, 5, key="layer")
values = np.random.default_rng(layer).normal(size=384)
st.plotly_chart(go.Figure(go.Bar(y=values)), key="chart")
