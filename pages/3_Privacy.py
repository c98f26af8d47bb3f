"""Privacy: epsilon and rho sliders, the method, and a live preview that needs no data."""

import json

import pandas as pd
import streamlit as st

from app_support import state
from app_support.cached import budget_split, column_plan
from app_support.sidebar import page
from dpsynth_core import METHODS, DomainError, TableDomain, constraints
from dpsynth_core.charts import budget_split_chart
from dpsynth_core.planning import epsilon_guidance

page("Privacy", ":material/tune:")
st.title("3. Privacy")
st.markdown("Two choices set the protection. Nothing on this page touches the data: the preview "
            "below is computed from your declaration and the sliders alone.")

EPSILONS = [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0]
left, right = st.columns(2)
with left:
    st.subheader("Privacy budget ε (epsilon)")
    state.bind_widget("privacy_epsilon", state.EPSILON)
    epsilon = st.select_slider("Smaller ε = stronger protection, noisier data", options=EPSILONS,
                               key="privacy_epsilon")
    st.session_state[state.EPSILON] = epsilon
    level, sentence = epsilon_guidance(epsilon)
    (st.warning if epsilon > constraints.EPSILON_WARN_ABOVE else st.info)(f"**{level.capitalize()}.** {sentence}")
    st.caption("Rough guide: ε = 0.1 is very strong protection (results are noisy); ε = 1 is a common "
               "choice for public releases; ε = 10 is weak protection, where one person can noticeably "
               "change what is published.")
with right:
    st.subheader("Tolerance for randomness ρ (rho)")
    state.bind_widget("privacy_rho", state.RHO)
    rho = st.slider("The chance that a column contains no made-up values", min_value=constraints.RHO_MIN,
                    max_value=constraints.RHO_MAX, step=0.01, key="privacy_rho")
    st.session_state[state.RHO] = rho
    st.caption("To keep rare real values deniable, a private release must sometimes show values that are "
               "not in the data. With ρ = 0.9, each category or text column has a 90% chance of showing "
               "none. A higher ρ means fewer made-up values, but only values held by more people survive.")

st.subheader("Method")
state.bind_widget("privacy_method", state.METHOD)
method = st.radio("How the synthetic table is made", sorted(METHODS, key=lambda m: METHODS[m].rank),
                  format_func=lambda m: METHODS[m].title, key="privacy_method")
st.session_state[state.METHOD] = method
st.markdown(METHODS[method].summary)

if method in ("marginals", "dirichlet"):
    columns = [c for c, spec in state.declaration()["columns"].items() if spec.get("type") != "drop"]
    current = "\n".join(", ".join(g) for g in st.session_state[state.GROUPS])
    text = st.text_area("Column groups to keep together (optional): one group per line, 2 or 3 column names "
                        "separated by commas" + (" ; each group is measured together" if method == "marginals" else ""),
                        value=current, key="privacy_groups", height=90,
                        placeholder="sex, relationship\nage, marital-status, income")
    groups, unknown = [], []
    for line in text.splitlines():
        group = [c.strip() for c in line.split(",") if c.strip()]
        unknown += [c for c in group if c not in columns]
        if group:
            groups.append(group)
    if unknown:
        st.error(f"Unknown column(s): {', '.join(unknown)}. Use names from the Domain page.")
    else:
        st.session_state[state.GROUPS] = groups

rows_public = st.checkbox("Use a fixed number of rows that I choose (not computed from the data)",
                          value=st.session_state[state.ROWS] is not None, key="privacy_rows_fixed",
                          help="By default the number of synthetic rows is the real count plus noise, "
                               "paid from the budget. A number you choose without looking at the data costs nothing.")
if rows_public:
    rows = st.number_input("Number of synthetic rows", min_value=1, max_value=constraints.MAX_SYNTHETIC_ROWS,
                           value=st.session_state[state.ROWS] or 10_000, step=1000, key="privacy_rows")
    st.session_state[state.ROWS] = int(rows)
else:
    st.session_state[state.ROWS] = None

st.divider()
st.subheader("What these choices imply, column by column")
declaration = state.declaration()
try:
    problems = TableDomain.from_json(declaration).problems()
except DomainError as problem:  # a declaration that does not fit the schema: say so, plan nothing
    st.error(f"The domain declaration cannot be used: {problem}", icon=":material/error:")
    st.page_link("pages/2_Domain.py", label="Fix the domain declaration", icon=":material/rule:")
    st.stop()
if problems:
    st.warning(f"The domain is not complete yet ({len(problems)} thing(s) to fix), so the preview covers the "
               "declared columns only.", icon=":material/warning:")
    st.page_link("pages/2_Domain.py", label="Finish the domain declaration", icon=":material/rule:")
spec_json = json.dumps(declaration)  # column order matters for the table
row_count = st.session_state[state.ROWS] or state.data()["info"]["rows"]
plan = column_plan(spec_json, float(epsilon), float(rho), rows_public, method, row_count)
table = pd.DataFrame([{
    "column": r["column"],
    "how it is protected": r.get("mechanism", r.get("note", "")),
    "ε for this column": round(r["epsilon"], 4),
    "possible values": r.get("domain_size_words", ""),
    "threshold τ": round(r["tau"], 1) if "tau" in r else None,
    "made-up values expected": round(r["expected_made_up"], 2) if "expected_made_up" in r else None,
    "a value held by this many people survives half the time": r.get("kept_half_the_time"),
    "... survives 95% of the time": r.get("kept_almost_always"),
    "typical noise per bin (people)": round(r["typical_error_per_bin"], 1) if "typical_error_per_bin" in r else None,
    "prior per cell (rows)": round(r["prior_per_cell"]) if r.get("prior_per_cell") else None,
} for r in plan]).dropna(axis=1, how="all")
# Text cells throughout: blank, not "None", where a figure does not apply to a column.
table = table.map(lambda v: "" if pd.isna(v) else (f"{v:,.4g}" if isinstance(v, float) else f"{v:,}"
                                                    if isinstance(v, int) else str(v)))
st.dataframe(table, hide_index=True, width="stretch")
st.caption("τ is the noisy count a category needs to appear in the release. Categories held by fewer "
           "people than the 'half the time' figure will usually be left out, which is what protects them.")
if method == "dirichlet":
    st.info("This method protects against one record being **replaced** by another; the number of rows is "
            "public and is used as it is. Each cell gets a prior of rows / (e^ε − 1) made-up records: when that "
            "is much larger than the data in a cell, the output is close to uniform. It suits a few columns "
            "with short lists of values, or a higher ε.", icon=":material/info:")
elif method == "copula":
    st.info("Every measurement gets the ε shown; they are combined by advanced composition, whose guarantee "
            "has a failure probability δ = 1e-6, so the bars add up to more than the total ε.",
            icon=":material/info:")
elif method == "microagg":
    st.error("Micro-aggregation gives **no differential-privacy guarantee**: its clusters are formed from the "
             "real records without noise. Use it only for teaching or comparison.", icon=":material/gpp_bad:")
elif method == "deniability":
    from dpsynth_core.synthesizers.deniability import record_guarantee

    eps_r, delta_r, _ = record_guarantee(50, 2.0, 1.0)
    st.warning(f"Besides the ε above (for the model), **each released record** is protected on its own with "
               f"ε = {eps_r:.2f} (δ = {delta_r:.0e}). Guarantees add up over records: {row_count:,} records "
               f"make ε ≈ {row_count * eps_r:,.0f} for the whole file. Release few records, or prefer another "
               "method for a whole table.", icon=":material/info:")
elif method == "marginals":
    from dpsynth_core.planning import engine_delta

    delta = engine_delta(row_count)
    st.info(f"**δ (delta) = {delta:.0e}.** This method adds Gaussian noise, whose guarantee is stated with a second "
            "number: δ is the chance, allowed by the method, that the ε above does not hold. It is set in advance "
            "by a public rule, the largest power of ten at most 1 / (number of records)² and at most "
            f"{constraints.DELTA_MAX:g} (the release uses a noisy count of the records for this), so it stands "
            "for an event too unlikely to expect, not for a share of the people in the data. The budget is "
            "spent exactly: the release card states the ε you chose. The pairs of columns to measure are chosen "
            "privately, in rounds, when you generate; the bars show each part's share of the budget.",
            icon=":material/info:")
st.plotly_chart(budget_split_chart(budget_split(spec_json, float(epsilon), rows_public, method)), width="stretch",
                key="privacy_split_chart")
st.page_link("pages/4_Preview.py", label="Next: generate and preview", icon=":material/arrow_forward:")
