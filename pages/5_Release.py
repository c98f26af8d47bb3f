"""Release: download the synthetic CSV, the release card (JSON and HTML) and the declaration."""

import json

import streamlit as st

from app_support import state
from app_support.sidebar import page
from dpsynth_core.card import render_card_html

page("Release", ":material/download:")
st.title("5. Release")

entry = state.current_release()
if entry is None:
    st.info("There is no synthetic table yet for the current settings. Generate one on the Preview page.")
    st.page_link("pages/4_Preview.py", label="Go to Preview", icon=":material/bar_chart:")
    st.stop()

release = entry["release"]
card = release.card
g = card["guarantee"]
st.markdown(f"### The guarantee\n{g['plain_words']}")
if g["epsilon"] is None:
    st.error("This method gives **no differential-privacy guarantee**. Use it for teaching or comparison, "
             "not for a real release.", icon=":material/gpp_bad:")
note = card.get("method_details", {}).get("per_record_note")
if note:
    st.warning(note, icon=":material/info:")
c1, c2 = st.columns(2)
c1.metric("ε (epsilon)", "none" if g["epsilon"] is None else f"{g['epsilon']:.3g}")
c2.metric("Synthetic rows", f"{len(release.data):,}")
st.markdown(f"**Method:** {card['method']['title']}")
st.caption(f"Privacy unit: {g['neighbouring']}. Randomness: {card['noise_source']}. The random seed is never "
           "part of a release.")

stem = (card["domain"]["dataset"] or "synthetic").removesuffix(".csv")
d1, d2, d3, d4 = st.columns(4)
d1.download_button("Synthetic data (CSV)", release.data.to_csv(index=False).encode("utf-8"),
                   file_name=f"{stem}_synthetic.csv", mime="text/csv", type="primary", key="release_csv")
d2.download_button("Release card (HTML)", render_card_html(card).encode("utf-8"),
                   file_name=f"{stem}_release_card.html", mime="text/html", key="release_card_html")
d3.download_button("Release card (JSON)", json.dumps(card, indent=2).encode("utf-8"),
                   file_name=f"{stem}_release_card.json", mime="application/json", key="release_card_json")
d4.download_button("Domain declaration (JSON)", json.dumps(state.declaration(), indent=2).encode("utf-8"),
                   file_name=f"{stem}.domain.json", mime="application/json", key="release_domain")

st.markdown("**What you can share:** the synthetic CSV, the release card and the declaration. "
            "**Keep to yourself:** the Preview charts, which compare with the real data.")
st.subheader("The release card, as stakeholders will see it")
st.iframe(render_card_html(card), height=720)
