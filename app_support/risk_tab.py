"""The Preview's empirical-risk tab: run on request, with progress, kept with the release. Publisher only."""

from __future__ import annotations

import streamlit as st

from app_support import state
from app_support.progress import run_with_progress
from dpsynth_core import synthesize
from dpsynth_core.evaluation.charts import risk_chart
from dpsynth_core.evaluation.risk import empirical_risk

EXPLAIN = {
    "singling_out": "**Singling out**: an attacker writes rules from the synthetic rows (such as 'age 30-34, "
    "divorced, in Ohio') hoping each fits exactly one real person.",
    "linkability": "**Linkability**: an attacker holding two halves of someone's record from two sources joins "
    "them through the synthetic table.",
    "inference": "**Attribute inference**: an attacker who knows everything about someone but one column "
    "guesses that column from the closest synthetic row.",
}


def draw(entry: dict, frame, declaration: dict, settings: dict) -> None:
    st.warning(
        "**Computed on the raw data, not differentially private: for you only.** These figures compare "
        "the synthetic table with the real records; do not share them.",
        icon=":material/lock:",
    )
    st.markdown(
        "Three attacks are run against a synthetic table drawn with exactly these settings from a random "
        "half of the rows; the other half, never seen by the method, is the control. The **risk** is how "
        "much better each attack does on the people in the data than on the people left out (0% = no "
        "better): what the attacks learn about people in general is what a synthetic table is for."
    )
    options = state.options(settings)

    def work(report):
        def synthesize_from(rows):
            return synthesize(
                rows,
                declaration,
                settings["epsilon"],
                method=settings["method"],
                rho=settings["rho"],
                rows=settings["rows"],
                progress=lambda done, message: report(0.05 + 0.35 * done, message),
                **options,
            ).data

        return empirical_risk(frame, synthesize_from, declaration, progress=report).as_json()

    if st.button(
        "Run the three attacks" if "risk" not in entry["metrics"] else "Run them again",
        key="preview_risk_run",
        help="Takes 5 to 30 seconds on a table the size of the example. "
        "Spends no privacy budget: nothing here is released.",
    ):
        entry["metrics"]["risk"], _ = run_with_progress(work, title="Attacking a synthetic table")
        state.save_metrics(entry)
    report = entry["metrics"].get("risk")
    if not report:
        return
    st.plotly_chart(risk_chart(report), width="stretch", key="preview_risk_chart")
    for name in ("singling_out", "linkability"):
        r = report[name]
        st.markdown(
            f"{EXPLAIN[name]} Risk **{r['risk']:.1%}** (95% interval {r['low']:.1%} to {r['high']:.1%}); "
            f"success {r['training']:.1%} on people in the data, {r['control']:.1%} on the others."
        )
    beyond_chance = [r for r in report["inference"] if r["meaningful"]]
    worst = max(beyond_chance or report["inference"], key=lambda r: r["risk"])
    st.markdown(
        f"{EXPLAIN['inference']} Highest for **{worst['detail']}**"
        + (" (of the columns where the attack beat random guessing)" if beyond_chance else "")
        + f": risk **{worst['risk']:.1%}** ({worst['low']:.1%} to {worst['high']:.1%})."
    )
    st.caption(
        "Grey bars: the attack did no better than guessing at random. How this relates to ε: differential "
        "privacy bounds what any attack can learn about any one person, in advance and whatever the "
        "attacker knows (a smaller ε, a tighter bound); these figures measure three particular attacks on "
        "this table, so a low figure is a check, never a guarantee. A smaller ε lowers them too. "
        f"{report['training_rows']:,} rows made the table, {report['control_rows']:,} were held out."
    )
