"""Home: what the tool does and the steps, with the bundled example ready to go."""

import streamlit as st

from app_support import state
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

st.subheader("Five steps")
st.page_link(
    "app_pages/1_Data.py", label="**1. Data**: pick the example or upload a CSV file", icon=":material/description:"
)
st.page_link(
    "app_pages/2_Domain.py", label="**2. Domain**: say what values each column could take", icon=":material/rule:"
)
st.page_link("app_pages/3_Privacy.py", label="**3. Privacy**: choose the protection level", icon=":material/tune:")
st.page_link(
    "app_pages/4_Preview.py",
    label="**4. Preview**: generate and compare with the real data",
    icon=":material/bar_chart:",
)
st.page_link(
    "app_pages/5_Release.py",
    label="**5. Release**: download the synthetic table, its card and a report",
    icon=":material/download:",
)
st.subheader("And")
st.page_link(
    "app_pages/6_Releases.py",
    label="**Releases**: every release made from this data, side by side",
    icon=":material/history:",
)
st.page_link("app_pages/7_Learn.py", label="**Learn**: how it works, with live examples", icon=":material/school:")
st.caption(
    "Your work is kept in a workspace on this computer (the privacy budget spent on each file, every "
    "release, your declarations), so a reload or a restart picks up where you were; an uploaded file is "
    "never saved, so after a restart it is asked for again."
)

if st.button("Start with the example", type="primary", key="home_start"):
    if not state.has_data() or state.data()["source"] != "example: adult":
        state.use_example("adult")
    st.switch_page("app_pages/1_Data.py")
