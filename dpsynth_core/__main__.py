import sys

from .cli import main

if __name__ == "__main__":
    if sys.argv[1:2] and sys.argv[1] in ("account", "review-link"):  # accounts and reviewer links
        from .release.review_cli import main as review_main

        sys.exit(review_main(sys.argv[1:]))
    sys.exit(main())
