"""``python -m dpsynth_core account ...`` and ``... review-link ...``: publisher accounts and reviewer
links for an app served to others (see :mod:`dpsynth_core.release.review`)."""

from __future__ import annotations

import argparse
import getpass
import sys

from ..errors import DPSynthError
from . import review

COMMANDS = ("account", "review-link")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m dpsynth_core", description=__doc__.split("\n")[0])
    parser.add_argument("--workspace", metavar="FOLDER", help="the workspace folder (default: $DPSYNTH_WORKSPACE, "
                                                              "else ~/.dpsynth)")
    sub = parser.add_subparsers(dest="command", required=True)
    account = sub.add_parser("account", help="publisher accounts (needed when the app is served to others)")
    account.add_argument("action", choices=("add", "remove", "list"))
    account.add_argument("name", nargs="?")
    link = sub.add_parser("review-link", help="reviewer links that open chosen releases in review mode")
    link.add_argument("action", choices=("add", "list", "revoke"))
    link.add_argument("what", nargs="*", help="add: release numbers; revoke: the link's id")
    link.add_argument("--note", default="", help="who the link is for")
    link.add_argument("--base-url", default="http://localhost:8501", help="the app's address as reviewers reach it")
    return parser


def main(argv) -> int:
    args = _parser().parse_args(argv)
    from ..workspace import Workspace

    workspace = Workspace(args.workspace)
    try:
        if args.command == "account":
            if args.action == "list":
                print("\n".join(review.accounts(workspace)) or "no accounts")
            elif not args.name:
                raise DPSynthError(f"account {args.action} needs a NAME")
            elif args.action == "remove":
                review.remove_account(workspace, args.name)
                print(f"removed {args.name}")
            else:
                password = getpass.getpass(f"Password for {args.name} (at least {review.MIN_PASSWORD} characters): ")
                if sys.stdin.isatty() and getpass.getpass("Again: ") != password:
                    raise DPSynthError("the two passwords differ")
                review.add_account(workspace, args.name, password)
                print(f"account {args.name} ready")
        elif args.action == "add":
            token = review.create_link(workspace, [int(w) for w in args.what if w.isdigit()], args.note)
            print(f"{args.base_url.rstrip('/')}/?review={token}\n(shown once: only its hash is kept)")
        elif args.action == "revoke":
            for link_id in args.what:
                review.revoke_link(workspace, link_id)
            print("revoked")
        else:
            for link in review.links(workspace):
                print(f"{link['id']}  {link['created']}  releases {link['releases']}  "
                      f"{'revoked' if link['revoked'] else 'open'}  {link['note']}")
    except DPSynthError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    return 0
