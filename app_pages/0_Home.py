"""Home: what the tool does and the steps, with the bundled example ready to go."""

import streamlit as st

from app_support import state
from app_support.pages import DATA, KEEP_TRACK, STEPS
from dpsynth_core.constraints import SHOWN_MIN_ROWS

st.title("Share a private synthetic copy of a sensitive table")
st.markdown(
    f"""
This tool makes a **synthetic** version of a table about people: new rows that keep the overall
patterns (how many are in each group, how values are spread) while protecting every individual
with **differential privacy**, a mathematical promise that the result would look almost the
same whether or not any one person's record was in the data.

You never have to show the tool your data's values: you describe what values *could* occur,
choose how much protection you want, and download the synthetic table with a **release card**
that explains what was done. Only the Preview's comparisons, for your eyes only, read the real
table without noise: shares per declared category or public bin, numbers and dates value by
value, and a text value by name only when at least {SHOWN_MIN_ROWS} real rows hold it.
"""
)

st.info(
    "A bundled example (the 1994 US Census 'Adult' table) is loaded unless you were working on "
    "something else, so you can walk through every step right now without uploading anything.",
    icon=":material/arrow_forward:",
)

for heading, listed in (("Five steps", STEPS), ("And", KEEP_TRACK)):
    st.subheader(heading)
    for page in listed:
        st.page_link(page.path, label=f"**{page.title}**: {page.summary}", icon=page.icon)
st.caption(
    "Your work is kept in a workspace on this computer (the privacy budget spent on each file, every "
    "release, your declarations), so a reload or a restart picks up where you were; an uploaded file is "
    "never saved, so after a restart it is asked for again."
)

if st.button("Start with the example", type="primary", key="home_start"):
    if not state.has_data() or state.data()["source"] != "example: adult":
        state.use_example("adult")
    st.switch_page(DATA.path)
