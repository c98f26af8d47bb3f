"""``account ...`` and ``review-link ...``: publisher accounts and reviewer links for an app served to
others (:mod:`dpsynth_core.workspace.access` holds their logic); subcommands of the one command line."""

from __future__ import annotations

import getpass
import sys

from ..errors import DPSynthError

COMMANDS = ("account", "review-link")
_WORKSPACE = "the workspace folder (default: $DPSYNTH_WORKSPACE, else ~/.dpsynth)"


def add_commands(sub) -> None:
    """Register ``account`` and ``review-link`` on the command line's subparsers (each sets ``run``)."""
    account = sub.add_parser("account", help="publisher accounts (needed when the app is served to others)")
    account.add_argument("action", choices=("add", "remove", "list"))
    account.add_argument("name", nargs="?")
    account.add_argument("--workspace", metavar="FOLDER", help=_WORKSPACE)
    account.set_defaults(run=run_account)
    link = sub.add_parser("review-link", help="reviewer links that open chosen releases in review mode")
    link.add_argument("action", choices=("add", "list", "revoke"))
    link.add_argument("what", nargs="*", help="add: release numbers; revoke: the link's id")
    link.add_argument("--note", default="", help="who the link is for")
    link.add_argument("--base-url", default="http://localhost:8501", help="the app's address as reviewers reach it")
    link.add_argument("--workspace", metavar="FOLDER", help=_WORKSPACE)
    link.set_defaults(run=run_review_link)


def _workspace(args):
    from ..workspace import Workspace

    return Workspace(args.workspace)


def run_account(args) -> None:
    from ..workspace.access import MIN_PASSWORD

    if args.action != "list" and not args.name:
        raise DPSynthError(f"account {args.action} needs a NAME")
    access = _workspace(args).access
    if args.action == "list":
        print("\n".join(access.accounts()) or "no accounts")
    elif args.action == "remove":
        access.remove_account(args.name)
        print(f"removed {args.name}")
    else:
        password = getpass.getpass(f"Password for {args.name} (at least {MIN_PASSWORD} characters): ")
        if sys.stdin.isatty() and getpass.getpass("Again: ") != password:
            raise DPSynthError("the two passwords differ")
        access.add_account(args.name, password)
        print(f"account {args.name} ready")


def run_review_link(args) -> None:
    access = _workspace(args).access
    if args.action == "add":
        token = access.create_link([int(w) for w in args.what if w.isdigit()], args.note)
        print(f"{args.base_url.rstrip('/')}/?review={token}\n(shown once: only its hash is kept)")
    elif args.action == "revoke":
        for link_id in args.what:
            access.revoke_link(link_id)
        print("revoked")
    else:
        for link in access.links():
            print(
                f"{link['id']}  {link['created']}  releases {link['releases']}  "
                f"{'revoked' if link['revoked'] else 'open'}  {link['note']}"
            )
