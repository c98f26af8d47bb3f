"""The use cases: every use of the data that leaves a figure, budgeted the one way.

Above the layers that make releases (:mod:`dpsynth_core.release`), keep the ledger
(:mod:`dpsynth_core.workspace`) and measure quality (:mod:`dpsynth_core.evaluation`), and below the
command line and the app, which call them:

* the budgeted draw (:mod:`.budgeted_draw`): a release priced from public settings, checked against
  the dataset's lifetime budget and recorded, then drawn;
* the budgeted report (:mod:`.budgeted_report`): a stakeholder report, the same way.
"""

from .budgeted_draw import Draw, Reservation, draw, draw_help, draw_label, projection, reserve
from .budgeted_report import Report, default_columns, plan, report

__all__ = [
    "Draw",
    "Report",
    "Reservation",
    "default_columns",
    "draw",
    "draw_help",
    "draw_label",
    "plan",
    "projection",
    "report",
    "reserve",
]
