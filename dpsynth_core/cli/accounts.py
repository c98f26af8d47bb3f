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
    account.add_argument("--replace", action="store_true", help="with add: set a new password for an existing account")
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
    from .commands import open_workspace

    return open_workspace(args.workspace)  # '' refused, notes on stderr, as every command


def _password(prompt: str) -> str:
    """A password typed at a terminal (not echoed), or one line of standard input; end of input or
    bytes that are not text are refused in one line."""
    try:
        if sys.stdin is not None and sys.stdin.isatty():
            return getpass.getpass(prompt)
        line = sys.stdin.buffer.readline() if sys.stdin is not None else b""
    except EOFError:
        line = b""
    except UnicodeDecodeError:
        raise DPSynthError("the password is not text in UTF-8") from None
    if isinstance(line, bytes):
        if not line:
            raise DPSynthError("no password given: type it, or pass it on standard input")
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            raise DPSynthError("the password is not text in UTF-8") from None
    return line.rstrip("\r\n")


def run_account(args) -> None:
    from ..workspace.access import MIN_PASSWORD

    if args.action != "list" and not args.name:
        raise DPSynthError(f"account {args.action} needs a NAME")
    if args.replace and args.action != "add":
        raise DPSynthError("--replace goes with 'account add'")
    access = _workspace(args).access
    if args.action == "list":
        print("\n".join(access.accounts()) or "no accounts")
    elif args.action == "remove":
        access.remove_account(args.name)
        print(f"removed {args.name}")
    else:
        access.check_new_account(args.name, replace=args.replace)  # before the password is asked
        password = _password(f"Password for {args.name} (at least {MIN_PASSWORD} characters): ")
        if sys.stdin is not None and sys.stdin.isatty() and _password("Again: ") != password:
            raise DPSynthError("the two passwords differ")
        access.add_account(args.name, password, replace=args.replace)
        print(f"account {args.name} {'has its new password' if args.replace else 'ready'}")


def run_review_link(args) -> None:
    from ..validation import check_ids

    if args.action == "add":
        ids = check_ids(args.what, "review-link add", "release number")
    elif args.action == "revoke" and not args.what:
        raise DPSynthError("review-link revoke needs the id of a link ('review-link list' shows them)")
    elif args.action == "list" and args.what:
        raise DPSynthError("review-link list takes no ids")
    access = _workspace(args).access
    if args.action == "add":
        token = access.create_link(ids, args.note)
        print(f"{args.base_url.rstrip('/')}/?review={token}\n(shown once: only its hash is kept)")
    elif args.action == "revoke":
        for link_id in args.what:  # each checked before any is revoked
            access.check_revocable(link_id)
        for link_id in args.what:
            access.revoke_link(link_id)
        print(f"revoked {', '.join(args.what)}")
    else:
        for link in access.links():
            print(
                f"{link['id']}  {link['created']}  releases {link['releases']}  "
                f"{'revoked' if link['revoked'] else 'open'}  {link['note']}"
            )
