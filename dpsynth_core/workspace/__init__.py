"""The publisher's workspace: one SQLite file that keeps the budget ledger, releases and choices.

A :class:`Workspace` holds its database and one part per concern, each a small object over that
database:

* :attr:`Workspace.database` (:mod:`.database`): the folder and the file (its owner's alone, never
  another program's database), the tables, the connections and write transactions;
* :attr:`Workspace.ledger` (:mod:`.ledger`): per dataset (keyed by a *fingerprint* of its records
  under the workspace's secret key, or by the name the publisher gave it, so the same records in
  any file form find their history), every draw and every stakeholder report with the privacy
  events the accountant recorded, composed per neighbouring relation by
  :class:`~dpsynth_core.privacy.accounting.Accountant` (events under different relations are never
  added up; a draw with no differential-privacy guarantee is counted as such), and an optional
  **lifetime budget**: a draw or report that would take the total of any relation above it is
  refused with an explanation (:class:`BudgetExceeded`). The check and the insert happen in one
  ``BEGIN IMMEDIATE`` transaction (:meth:`~dpsynth_core.workspace.ledger.Ledger.reserve`), so two tabs or processes
  drawing at once both get recorded (or the second is refused), never lost;
* :attr:`Workspace.releases` (:mod:`.releases`): every release, its settings, card, publisher-only
  report and metrics, its reports, and the synthetic file itself (gzip CSV), so any release can be
  downloaded again. The real data is never stored here;
* :attr:`Workspace.choices` (:mod:`.choices`): the last **declaration** used with each dataset,
  named, reusable **policies**, and the app's last **session** per browser (which data, which
  settings), so a reload or a new tab of the same browser resumes, and another browser never sees it;
* :attr:`Workspace.access` (:mod:`.access`): publisher accounts and reviewer links, for an app
  served to others.

The file lives in ``$DPSYNTH_WORKSPACE`` if set, else ``~/.dpsynth/``; the folder is made
readable by its owner only. One workspace serves one publisher.
"""

from __future__ import annotations

from .access import Access
from .choices import SavedChoices
from .database import ENVIRONMENT_VARIABLE, FILE_NAME, Database, WorkspaceGone, default_folder
from .ledger import BudgetExceeded, Ledger
from .releases import Releases, StoredRelease, TableNotKept

__all__ = [
    "ENVIRONMENT_VARIABLE",
    "FILE_NAME",
    "BudgetExceeded",
    "StoredRelease",
    "TableNotKept",
    "Workspace",
    "WorkspaceGone",
    "default_folder",
]


class Workspace:
    """The workspace database in ``folder`` (default :func:`default_folder`), created on first use
    (``read_only``: never created nor written), and its parts: :attr:`ledger`, :attr:`releases`,
    :attr:`choices` and :attr:`access`."""

    def __init__(self, folder=None, *, read_only: bool = False):
        self.database = Database(folder, read_only=read_only)
        self.ledger = Ledger(self.database)
        self.releases = Releases(self.database, self.ledger)
        self.choices = SavedChoices(self.database)
        self.access = Access(self.database, self.releases, self.ledger)

    @property
    def folder(self):
        """The workspace's folder."""
        return self.database.folder

    @property
    def path(self):
        """The workspace's database file."""
        return self.database.path

    @property
    def notes(self) -> list[str]:
        """Notes for the publisher about the folder (it was tightened), to show once."""
        return self.database.notes
