"""The small commands: ``methods`` lists the methods, ``tau`` answers or refuses in one line."""

import pytest

from dpsynth_core.cli import main


def test_methods_and_tau(capsys):
    assert main(["methods"]) == 0
    assert "cathist" in capsys.readouterr().out
    assert main(["tau", "--size", "171000", "--rho", "0.9", "--epsilon", "1"]) == 0
    text = capsys.readouterr().out
    assert "tau = 13.6066" in text and "expected made-up values = 0.1054" in text
    assert main(["tau", "--size", "1000000000000000", "--rho", "0.9", "--epsilon", "1"]) == 0
    capsys.readouterr()
    assert main(["tau", "--size", "100000", "--rho", "0.9", "--epsilon", "0.05", "--records", "10000"]) == 0
    text = capsys.readouterr().out
    assert "made-up value comes with a noisy count of about" in text and "at most about 3" in text
    assert main(["tau", "--size", "10", "--rho", "0.9", "--epsilon", "1", "--records", "many"]) == 2


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--epsilon", "1e-300"], "--epsilon ('1e-300') must be a number from 1e-09"),
        (["--epsilon", "1e-12"], "--epsilon ('1e-12') must be"),
        (["--rho", "1e-300"], "--rho ('1e-300') must be in (0, 1)"),
        (["--size", "0"], "domain size (0) must be"),
        (["--size", "1" * 5000], "domain size"),
    ],
)
def test_tau_refuses_what_would_hang_or_crash(argv, message, capsys):
    args = {"--size": "10", "--rho": "0.9", "--epsilon": "1"}
    args.update(dict(zip(argv[::2], argv[1::2])))
    assert main(["tau", *[x for pair in args.items() for x in pair]]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {message}") and len(err.splitlines()) == 1
