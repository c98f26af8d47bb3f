"""Privacy: epsilon (and rho where it applies), the method, the lifetime budget, and a live preview
that needs no data."""

import json

import streamlit as st

from app_support import state
from app_support.advice import choose_groups, choose_person, plan_settings, show_person_check, show_resolution
from app_support.cached import budget_split, column_plan, price, row_warning
from app_support.gates import usable_domain
from app_support.lifetime import lifetime_budget
from app_support.markdown import literal
from app_support.pages import PREVIEW, PRIVACY
from dpsynth_core import METHODS, DomainError, DPSynthError, TableDomain, constraints
from dpsynth_core.evaluation.budget_chart import budget_split_chart
from dpsynth_core.synthesizers import ranked
from dpsynth_core.synthesizers.planning import (
    ESTIMATE_NOTE,
    PLAN_HELP,
    epsilon_advice,
    plan_table,
    privacy_note,
    text_outlook,
)

st.title(PRIVACY.title)
st.markdown(
    "Choose how strongly people are protected and how the synthetic table is made. Nothing on this page "
    "spends budget: the preview below is computed from your declaration, your choices and the file's row "
    "count (shown to you only, never released; the release uses a noisy count)."
)

EPSILONS = [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0]
declaration = choose_person(state.declaration())  # who one record of the guarantee is: a row, or a person
spec_json = json.dumps(declaration)  # column order matters for the table
method = st.session_state.get("privacy_method", st.session_state[state.METHOD])
try:
    declared = TableDomain.from_json(declaration)
except DomainError:  # said below, where the plan would be
    declared = None
info = METHODS[method]
uses_rho = declared is None or info.cls.uses_tolerance(declared)


def whole_file_epsilon(epsilon: float) -> float | None:
    """What the ledger will record for a draw with these settings (None: no guarantee); the nominal ε
    while the declaration is not complete enough to price it."""
    options = json.dumps(state.options(state.settings()), sort_keys=True)
    try:
        return price(spec_json, epsilon, method, st.session_state[state.ROWS], options).epsilon
    except DPSynthError:
        return epsilon


left, right = st.columns(2)
with left:
    st.subheader("Privacy budget ε (epsilon)")
    state.bind_widget("privacy_epsilon", state.EPSILON)
    epsilon = st.select_slider("Smaller ε = stronger protection, noisier data", options=EPSILONS, key="privacy_epsilon")
    st.session_state[state.EPSILON] = epsilon
    whole_file = whole_file_epsilon(float(epsilon))
    if whole_file is None:
        st.error(
            "**No guarantee.** The method chosen below gives no differential-privacy guarantee, whatever ε "
            "is: ε only sets how much noise it adds.",
            icon=":material/gpp_bad:",
        )
    else:
        warn, text = epsilon_advice(whole_file, epsilon, declared.person if declared is not None else None)
        (st.warning if warn else st.info)(text)
    st.caption(
        "Rough guide: ε = 0.1 is very strong protection (results are noisy); ε = 1 is a common "
        "choice for public releases; ε = 10 is weak protection, where one person can noticeably "
        "change what is published."
    )
with right:
    st.subheader("Tolerance for randomness ρ (rho)")
    if uses_rho:
        state.bind_widget("privacy_rho", state.RHO)
        rho = st.slider(
            "The chance that a column contains no made-up values",
            min_value=constraints.RHO_MIN,
            max_value=constraints.RHO_MAX,
            step=0.01,
            key="privacy_rho",
        )
        st.session_state[state.RHO] = rho
        st.caption(
            "To keep rare real values deniable, a private release must sometimes show values that are "
            f"not in the data. With ρ = 0.9, each {info.cls.tolerance_columns} column has a 90% chance of "
            "showing none. A higher ρ means fewer made-up values, but only values held by more people survive."
        )
    else:
        rho = st.session_state[state.RHO]
        st.markdown("Does not apply here.")
        st.caption(
            "ρ sets the threshold τ that values from a very large list (free text, or every category with "
            "the 'Independent columns' method) must clear. With this method and this declaration every "
            "possible value is measured with noise instead, so there is no threshold."
        )

st.subheader("Method")
state.bind_widget("privacy_method", state.METHOD)
method = st.radio(
    "How the synthetic table is made", ranked(), format_func=lambda m: METHODS[m].title, key="privacy_method"
)
st.session_state[state.METHOD] = method
info = METHODS[method]
st.markdown(info.summary)

if info.takes("groups"):
    choose_groups(declaration, info.options["groups"].help)

rows_public = st.checkbox(
    "Use a fixed number of rows that I choose (not computed from the data)",
    value=st.session_state[state.ROWS] is not None,
    key="privacy_rows_fixed",
    help="By default the number of synthetic rows is the real count plus noise, "
    "paid from the budget. A number you choose without looking at the data costs nothing.",
)
if rows_public:
    rows = st.number_input(
        "Number of synthetic rows",
        min_value=1,
        max_value=constraints.MAX_SYNTHETIC_ROWS,
        value=st.session_state[state.ROWS] or 10_000,
        step=1000,
        key="privacy_rows",
    )
    st.session_state[state.ROWS] = int(rows)
else:
    st.session_state[state.ROWS] = None
row_count = state.expected_rows()
public_rows = st.session_state[state.ROWS]
options = state.options(state.settings())

lifetime_budget()

st.divider()
st.subheader("What these choices imply, column by column")
problems = usable_domain(declaration)
keys = plan_settings(spec_json, epsilon, rho, method, public_rows, row_count, options)  # the cached plans' keys
try:
    plan = column_plan(*keys)
    split, few = budget_split(*keys[:2], *keys[3:]), row_warning(*keys[:2], *keys[3:])  # (these take no rho)
except DPSynthError as problem:  # the method refuses these settings (said before any data is read)
    st.error(f"{info.title} cannot be used with these choices: {problem}", icon=":material/block:")
    state.save_session()
    st.stop()
if few and not problems:  # before the draw: the noisy row count's noise beside the file's own row count
    st.warning(few, icon=":material/info:")

table = plan_table(plan)
st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    column_config={
        name: st.column_config.TextColumn(name, help=text) for name, text in PLAN_HELP.items() if name in table.columns
    },
)
if any(row.get("estimated") for row in plan):
    st.caption(ESTIMATE_NOTE)
if "τ" in table.columns:
    st.caption(
        "τ is the noisy count a value needs to appear in the release. Values held by fewer people than "
        "the 'kept half the time' figure will usually be left out, which is what protects them."
    )
for row in plan:
    words = text_outlook(row) if row["kind"] == "text" else []
    if words:
        st.info(
            f"**{literal(row['column'])}**:\n\n" + "\n".join(f"- {literal(w)}" for w in words),
            icon=":material/lightbulb:",
        )
if not problems:  # from public settings only; then the opt-in check of rows per person (its own budget)
    show_resolution(keys, declared.rows_per_person)
    show_person_check(declared)
note = None
if not problems:  # the draw's charge, cached, says a person's delta
    charge = price(spec_json, float(epsilon), method, public_rows, json.dumps(options, sort_keys=True))
    note = privacy_note(declared, float(epsilon), method=method, rows=public_rows, charge=charge, **options)
if note:  # what the method says about its guarantee, in its own words
    level, text = note
    getattr(st, level)(text, icon=":material/gpp_bad:" if level == "error" else ":material/info:")
st.plotly_chart(budget_split_chart(split, declaration.get("columns", {})), width="stretch", key="privacy_split_chart")
state.save_session()
st.page_link(PREVIEW.path, label="Next: generate and preview", icon=":material/arrow_forward:")
