"""Learn: differential privacy in plain words, why the domain is declared (live), tau, the game."""

import numpy as np
import streamlit as st

from app_support.cached import bad_bins_exact, dp_share_with_and_without, k_anonymous_example
from dpsynth_core.evaluation.charts import tau_curve, with_and_without_chart
from dpsynth_core.evaluation.kanonymity import l_diversity
from dpsynth_core.wording import counted

st.title("How it works")

st.header("What differential privacy promises")
st.markdown(
    """
Imagine running the release twice: once on the real table, once on the same table **with one person
removed**. Differential privacy guarantees that the two results are almost equally likely: any
outcome becomes at most **e^ε** times more or less likely. With ε = 1 that factor is 2.7; with
ε = 0.1 it is 1.1. So nobody looking at the release, whatever else they know, can tell with
confidence whether any given person was in the data. The price is noise: counts are blurred on purpose.
"""
)

st.header("Why you declare the possible values instead of letting the tool read them")
st.markdown(
    """
Twenty patients are in a clinic's table: 12 have the flu, 7 a cold. Alex, the twenty-first, has a
**rare disease**. Below, for each method, the chance that the rare disease shows up in the release
when the table is *without* Alex and *with* Alex (exact chances, worked out from the noise's law).

* **Noise only on the values that occur** (what many tools do): the rare disease can only ever appear
  when Alex is in the data, so seeing it *proves* Alex is there, however much noise is added.
* **CatHist over a declared list of 10 possible diagnoses**: every declared value, present or not, has a
  chance to appear, so seeing the rare disease proves nothing.
"""
)
eps = st.select_slider("ε for this demo", options=[0.25, 0.5, 1.0, 2.0], value=1.0, key="learn_demo_eps")
shares = bad_bins_exact(float(eps))
st.plotly_chart(with_and_without_chart(shares), width="stretch", key="learn_bad_bins")
never, (without, with_alex) = shares["occurring values only"][0], shares["CatHist over the declared list"]
st.markdown(
    f"Without Alex, the first method **never** shows the rare disease ({never:.0%}), "
    f"so its appearance is proof. CatHist shows it sometimes either way: {without:.1%} and {with_alex:.1%}, "
    f"a factor of {with_alex / without:.2f}, at most e^ε = {np.exp(eps):.2f} as promised. This is the "
    "'bad bins' result of Rodriguez and Howe (2018): no private method can output only values that occur "
    "in the data."
)

st.header("The threshold τ and the tolerance for randomness ρ")
st.markdown(
    """
CatHist keeps a value when its noisy count clears a threshold τ. τ is chosen so that, across all the
values that could occur but do not, the chance that **none** sneaks into the release is ρ. A larger
list of possible values needs a higher threshold, but only slowly: τ grows with the *logarithm* of the
domain size, so even "any pair of English words" (5 billion possibilities) needs only a few dozen people.
"""
)
learn_eps = st.select_slider("ε for the plot", options=[0.1, 0.5, 1.0, 2.0, 5.0], value=1.0, key="learn_tau_eps")
st.plotly_chart(tau_curve(epsilon=learn_eps), width="stretch", key="learn_tau")
st.caption(
    "How to read: follow a line to your domain size on the bottom axis; the height is the noisy count "
    "a value needs in order to be released."
)

st.header("The distinguishing game")
st.markdown(
    """
On the Preview page, a classifier is shown real and synthetic records, labelled, and learns to tell them
apart. It is then tested on records it has not seen. If its accuracy is near **50%**, it is guessing:
the synthetic records look like real ones, column by column and in combination. High accuracy means
something is easy to spot, often a relationship between columns (age and marital status, say) that the
method did not keep. The game measures realism, not privacy: privacy comes from ε.
"""
)

st.header("Why not just k-anonymity?")
st.markdown(
    """
A classic alternative is **k-anonymity**: coarsen the columns an outsider could know about someone
(here age, sex, race and country) until every combination is shared by at least *k* people, and drop
the few who still stand out. Below, the Adult example is made k-anonymous with public rules (age in
bands, race hidden, country as US / outside US...). But look at the groups whose members **all have
the same income**: if you know your neighbour is in the table and matches one of these groups, you
learn their income, although the table is k-anonymous. This is the *homogeneity attack*;
l-diversity (at least *l* different values per group) was invented to patch it, and it too can fail.
"""
)


def _share_words(label: str, share: float, records: int) -> str:
    """One release's answer: the share of its records matching the group that have the group's income."""
    if not records:
        return f"{label}, no synthetic record matches the group"
    verb = "has" if records == 1 else "have"
    return f"{label}, {share:.0%} of the {counted(records, 'matching synthetic record')} {verb} that income"


k = st.select_slider("k", options=[2, 5, 10, 20, 50], value=5, key="learn_k")
with st.spinner(f"Making the example {k}-anonymous..."):
    result, classes, homogeneous = k_anonymous_example(k)
c1, c2, c3, c4 = st.columns(4)
c1.metric("groups of look-alikes", f"{len(classes):,}")
c2.metric("people removed", f"{result.suppressed:,}")
c3.metric("l-diversity of income", l_diversity(classes))
c4.metric("incomes given away", f"{int(homogeneous['size'].sum()):,}")
st.caption(
    "Generalisation used: " + ", ".join(f"{n}: level {lvl}" for n, lvl in result.levels.items()) + " (0 = exact value)."
)
st.dataframe(homogeneous.head(6), hide_index=True, width="stretch")
if len(homogeneous):
    with st.spinner("Making two DP releases of the example, with and without one of these people..."):
        target, shares = dp_share_with_and_without(k, 1.0)
    who = ", ".join(f"{n} {target[n]}" for n in ("age", "sex", "race", "native-country") if target[n] != "*")
    st.markdown(
        f"**The attack.** All {int(target['size'])} people with {who} have income **{target['most common value']}**: "
        "the k-anonymous table tells you that about each of them.\n\n"
        "**The same question on a DP synthetic release** (ε = 1), made once with and once without one of "
        "these people: "
        + "; ".join(_share_words(label, *answer) for label, answer in shares.items())
        + ". A DP release is built so that this answer hardly depends on any one person: whatever it says "
        "about the group, it would have said without your neighbour too."
    )
