"""Numbers and sizes in plain words, one home for the app, the CLI, the planner and the card; and a list of names or
values written on one line and read back (a column group, missing markers, a lone category)."""

from __future__ import annotations

import csv
import math

from .constraints import EPSILON_WARN_ABOVE


def line_values(text: str) -> list[str]:
    """Texts typed on one line separated by commas, a text holding a comma in double quotes (as a CSV line is read).

    >>> line_values('NA, "n,a", .')
    ['NA', 'n,a', '.']
    """
    return next(csv.reader([text], skipinitialspace=True), [])


def line_text(texts) -> str:
    """Texts as one line that :func:`line_values` reads back as them: separated by commas, one holding a comma (or
    opening with a double quote) in double quotes.

    >>> line_text(["NA", "n,a", "."])
    'NA, "n,a", .'
    """
    return ", ".join('"' + t.replace('"', '""') + '"' if "," in t or t.startswith('"') else t for t in map(str, texts))


def size_in_words(size: int) -> str:
    """Say a domain size the way a person would.

    >>> size_in_words(29_400_000_000)
    'about 29 billion'
    >>> size_in_words(171_000), size_in_words(9_999)
    ('about 171 thousand', '9,999')
    """
    if size < 10_000:
        return f"{size:,}"
    names = [(10**15, "quadrillion"), (10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (10**3, "thousand")]
    if size >= 10**18:
        return f"about 10^{len(str(size)) - 1}"
    for scale, name in names:
        if size >= scale:
            value = size / scale
            shown = f"{value:.0f}" if value >= 10 else f"{value:.1f}".rstrip("0").rstrip(".")
            return f"about {shown} {name}"
    return f"{size:,}"  # pragma: no cover


#: What a seeded run is, said before it runs (CLI) and in its card's guarantee.
SEED_NOTE = (
    "--seed makes the release a fixed function of the data and the seed, so it is not private: anyone "
    "who knows the seed can tell tables apart. Use it for tests and teaching only, never for a release"
)
SEEDED_GUARANTEE = (
    "No differential-privacy guarantee: this release was drawn with a fixed random seed, so it is a "
    "fixed function of the data and the seed. Anyone who knows the seed can tell two tables apart "
    "from it, and no epsilon holds. Never publish it."
)


#: Plurals no rule makes (a person unit's word is the publisher's: "woman" on nlswork, "child" on a school's).
IRREGULAR_PLURALS = {"person": "people", "woman": "women", "man": "men", "child": "children"}


def plural(word: str) -> str:
    """An English noun's plural, its last word made plural (``study participant``, ``household``).

    >>> [plural(w) for w in ("bin", "woman", "study participant", "family", "survey", "address", "Person")]
    ['bins', 'women', 'study participants', 'families', 'surveys', 'addresses', 'People']
    """
    head, space, last = word.rpartition(" ")
    lower = last.lower()
    if lower in IRREGULAR_PLURALS:
        made = IRREGULAR_PLURALS[lower]
        made = made.capitalize() if last[:1].isupper() else made
    elif lower.endswith(("s", "x", "z", "ch", "sh")):
        made = last + "es"
    elif lower.endswith("y") and lower[-2:-1] not in tuple("aeiou"):
        made = last[:-1] + "ies"
    else:
        made = last + "s"
    return head + space + made


def counted(number: int, noun: str) -> str:
    """A count and its noun, singular for one: ``1 bin``, ``12 bins``, ``1,200 bins``.

    >>> counted(1, "bin"), counted(12, "bin"), counted(3, "person")
    ('1 bin', '12 bins', '3 people')
    """
    return f"{number:,} {noun if number == 1 else plural(noun)}"


def noun(number: int, word: str) -> str:
    """A noun as it goes with a count: singular for one (``column``), plural for any other (``columns``).

    >>> noun(1, "column"), noun(2, "column")
    ('column', 'columns')
    """
    return word if number == 1 else plural(word)


def short_names(names, limit: int = 40) -> list[str]:
    """Column names short enough for a chart's axis: a name longer than ``limit`` keeps its start and its end around
    an ellipsis (a survey's columns named by one question and each of its answers differ at the end, which an
    axis cutting names at their end would hide), longer again only where two would read alike; shorter names as
    they are.

    >>> short_names(["age", "Please state how you view each character | Han Solo", "Please state how you view "
    ...              "each character | Yoda"], 30)
    ['age', 'Please state h…cter | Han Solo', 'Please state h…haracter | Yoda']
    >>> short_names(["Are you a fan of the Star Wars films? | Response", "Are you a fan of the Star Trek films? | "
    ...              "Response", "Gender | Response"], 24)
    ['Are you a fan of…s films? | Response', 'Are you a fan of…k films? | Response', 'Gender | Response']
    """
    names = [str(n) for n in names]
    widths = [limit] * len(names)

    def shown(name: str, width: int) -> str:
        head = width // 2 - 1
        return name if len(name) <= width else name[:head].rstrip() + "…" + name[-(width - head - 1) :]

    for _ in range(max((len(n) for n in names), default=0)):
        out = [shown(n, w) for n, w in zip(names, widths, strict=True)]
        seen: dict = {}
        for i, label in enumerate(out):
            seen.setdefault(label, set()).add(names[i])
        alike = [i for i, label in enumerate(out) if len(seen[label]) > 1]
        if not alike:
            return out
        for i in alike:  # only the names that read alike grow
            widths[i] += 1
    return names


def first_names(names, shown: int = 3) -> str:
    """The first ``shown`` of ``names`` quoted and shortened (:func:`short_names`), "..." after them when there are
    more: a sentence's examples.

    >>> first_names(["a", "b", "c", "d"]), first_names(["age"])
    ("'a', 'b', 'c', ...", "'age'")
    """
    names = list(names)
    return ", ".join(f"'{n}'" for n in short_names(names[:shown])) + (", ..." if len(names) > shown else "")


def rounded_up(value: float, digits: int, *, down: bool = False) -> float:
    """``value`` (positive) to ``digits`` significant digits, rounded up (``down``: down): a bound shown is never
    on the wrong side of it. A millionth of the last digit is not rounded (a calibrated 0.99999999935 is 1).

    >>> rounded_up(1.4249, 3), rounded_up(0.9999999993502717, 3), rounded_up(2.718281828, 3), rounded_up(34312.4, 5)
    (1.43, 1.0, 2.72, 34313.0)
    >>> rounded_up(0.40000000065, 3, down=True), rounded_up(0.3999, 2, down=True)
    (0.4, 0.39)
    """
    scale = 10.0 ** (digits - 1 - math.floor(math.log10(value)))
    return (math.floor if down else math.ceil)(round(value * scale, 6)) / scale


def format_epsilon(value: float | None, *, down: bool = False) -> str:
    """Epsilon in plain digits, never scientific notation, rounded up at the digits shown (:func:`rounded_up`: a
    composed total of 1.4249 is at most 1.43, never 1.42); ``down``: a budget left, rounded down (what is left of
    1.4 after 0.9999 is 0.4, not 0.401).

    >>> [format_epsilon(v) for v in (0.05, 1.9, 1.4249, 0.9999999993, 19.99999998, 12.34, 34312.4, 0.0001, None)]
    ['0.05', '1.9', '1.43', '1', '20', '12.4', '34,313', 'less than 0.001', 'no guarantee']
    >>> format_epsilon(1.4 - 0.9999, down=True)
    '0.4'
    """
    if value is None or (isinstance(value, float) and math.isinf(value)):
        return "no guarantee"
    if value <= 0:
        return "0"
    if value >= 100:
        return f"{rounded_up(value, len(str(int(value))), down=down):,.0f}"
    if value >= 10:  # 20, not 20.0 (as the card and the slider write it); 12.4
        return f"{rounded_up(value, 3, down=down):.1f}".removesuffix(".0")
    if value >= 0.001:
        return f"{rounded_up(value, 3, down=down):.3g}"
    return "less than 0.001"


def protected_one(unit=None) -> str:
    """Who one step of the guarantee adds or removes, in plain words: ``one person's record`` when the unit is a row
    (a person with several rows is protected row by row), ``one patient (all of their rows)`` under a person unit
    (:class:`~dpsynth_core.domain.table.PersonUnit`; its declared name)."""
    return "one person's record" if unit is None else f"one {unit.name} (all of their rows)"


def factor_bound(epsilon: float) -> str:
    """``e^epsilon``, the most one record can change the chance of any result, in plain digits for readers, rounded
    up: to hundredths under 10, to a whole number under 10,000, to three significant digits above (the digits after
    them say nothing to a reader). Taken from the epsilon as :func:`format_epsilon` shows it where that is larger (a
    calibrated 19.99999998 shown as 20), so the factor beside an epsilon is never below ``e`` to it.

    >>> [factor_bound(e) for e in (0.05, 1.0, 0.9999999993502717, 3.0, 7.0, 10.0, 19.99999998)]
    ['1.06', '2.72', '2.72', '21', '1,097', '22,100', '486,000,000']
    """
    shown = float(format_epsilon(epsilon).replace(",", ""))
    factor = math.exp(max(epsilon, shown))
    if factor < 10:
        return f"{rounded_up(factor, 3):.2f}"
    digits = len(str(int(factor)))
    return f"{rounded_up(factor, digits if factor < 10_000 else 3):,.0f}"


def epsilon_guidance(epsilon: float, unit=None) -> tuple[str, str]:
    """A level ("strong", "moderate", "weak", "very weak") and a sentence for the slider; the factor ``e^epsilon``
    rounded up at the digits shown (at most 2.72 times at epsilon 1, never 2.7), for the privacy unit ``unit``
    (:func:`protected_one`: a record, or a person with all of their rows).

    >>> epsilon_guidance(1.0)[1]
    "A common choice for public releases: results change by at most 2.72 times with or without any one person's record."
    """
    who = "any " + protected_one(unit)
    factor = factor_bound(epsilon)
    if epsilon <= 0.3:
        return (
            "strong",
            f"Strong protection: adding or removing {who} changes the chance of any result by at most "
            f"{factor} times. Expect visible noise.",
        )
    if epsilon <= 2:
        return (
            "moderate",
            f"A common choice for public releases: results change by at most {factor} times with or without {who}.",
        )
    if epsilon <= EPSILON_WARN_ABOVE:
        return (
            "weak",
            f"Weak protection: adding or removing {who} can shift the chance of a result up to {factor} times. Use "
            "only when the data is not very sensitive.",
        )
    return (
        "very weak",
        f"Very weak protection: a factor of {factor}. Values above "
        f"{EPSILON_WARN_ABOVE:g} are rarely defensible for data about people.",
    )


def value_text(value, digits: int = 3) -> str:
    """A column's own value (a mean, a median, a common value) in plain digits for readers: whole or large
    numbers rounded, grouped by thousands from five digits on only, as the SI brochure writes numbers (a
    four-digit number is not grouped), so that a year reads 1993 and not 1,993. ``digits``: the significant
    digits of a fraction (more than 3 keep decimals in a large number too: :func:`value_texts`).

    >>> [value_text(v) for v in (1993, 1993.4, 45_000.2, -2500, 3.14159, 0.5, None, "x")]
    ['1993', '1993', '45,000', '-2500', '3.14', '0.5', '-', 'x']
    >>> value_text(40.719586, 6), value_text(1993.45, 6), value_text(45_000.25, 7), value_text(1993.0, 6)
    ('40.7196', '1993.45', '45,000.25', '1993')
    """
    if isinstance(value, str) or value is None:
        return value or "-"
    number = float(value)
    if abs(number) < 100 and not number.is_integer():
        return f"{number:.{digits}g}"
    whole = len(str(int(abs(number)))) if math.isfinite(number) else 0
    decimals = 0 if digits <= 3 or number.is_integer() else max(0, digits - whole)
    text = f"{number:,.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{number:,.0f}"
    return text.replace(",", "") if abs(round(number)) < 10_000 else text


def value_texts(values, digits: int = 3) -> list[str]:
    """Several of a column's values, each as :func:`value_text` writes it, with as many more significant digits
    as it takes (up to 15) for values that differ to read differently, each within a twentieth of their spread: a
    latitude's real range is 40.71 to 40.75, not 40.7 to 40.7, and a longitude's largest value -74.032, not -74 (a
    value below -74). Texts (dates shown as dates) and missing values are written as they are.

    >>> value_texts([40.7101087, 40.748715945]), value_texts([3.14159, 0.5]), value_texts([1993.4, 2010.2])
    (['40.71', '40.75'], ['3.14', '0.5'], ['1993', '2010'])
    >>> value_texts([-74.0858489, -74.0321082]), value_texts(["2018-01-01", None, 2.0]), value_texts([17, 90])
    (['-74.086', '-74.032'], ['2018-01-01', '-', '2'], ['17', '90'])
    """
    values = list(values)
    numbers = {float(v) for v in values if not (isinstance(v, str) or v is None) and math.isfinite(float(v))}
    near = (max(numbers) - min(numbers)) / 20 if numbers else 0.0

    def faithful(d: int) -> bool:
        texts = {n: value_text(n, d) for n in numbers}
        close = all(abs(float(t.replace(",", "")) - n) <= near for n, t in texts.items())
        return close and len(set(texts.values())) == len(numbers)

    shown = next((d for d in range(digits, 16) if faithful(d)), 15)
    return [value_text(v, shown) for v in values]


def format_delta(value: float) -> str:
    """Delta, a probability of failure, to two significant digits rounded **up** (shown, it is never smaller than
    it is: a person unit's 4.2863e-10 is 4.3e-10, not 4e-10), as a power of ten when tiny.

    >>> format_delta(1e-6), format_delta(0.0), format_delta(4.2863e-10), format_delta(4.2e-10), format_delta(2e-9)
    ('1e-6', '0', '4.3e-10', '4.2e-10', '2e-9')
    >>> format_delta(9.96e-11), format_delta(0.0123)
    ('1e-10', '0.013')
    """
    if value <= 0:
        return "0"
    up = rounded_up(value, 2)
    if up >= 1e-3:
        return f"{up:.2g}"
    mantissa, exponent = f"{up:.1e}".split("e")
    return f"{mantissa.removesuffix('.0')}e{int(exponent)}"


#: An epsilon at or above this lets one record change an outcome's chance by more than e^30 (about 10^13): a bound
#: that protects no one in practice (deniability's whole file, a person's many rows over composed runs).
EMPTY_EPSILON = 30.0


def protects(guarantee: dict) -> bool:
    """Whether a card's guarantee says anything in practice: there is one, its delta is below 1 and its epsilon
    below :data:`EMPTY_EPSILON` (the card, the Release page and the command line say the others protect no one).

    >>> protects({"epsilon": 1.0, "delta": 1e-10}), protects({"epsilon": 1055.0, "delta": 8e-4})
    (True, False)
    """
    epsilon = guarantee.get("epsilon")
    return epsilon is not None and guarantee.get("delta", 0.0) < 1 and epsilon < EMPTY_EPSILON


def guarantee_line(guarantee: dict) -> str:
    """A card's guarantee in one line, as the command line states a release's.

    >>> guarantee_line({"epsilon": 0.9999999, "delta": 1e-10, "neighbouring": "add or remove one record"})
    'epsilon 1, delta 1e-10, add or remove one record'
    >>> guarantee_line({"epsilon": 1055.07, "delta": 8e-4, "neighbouring": "add or remove one record"})
    'epsilon 1055, delta 8e-4, add or remove one record: a guarantee that protects no one in practice'
    """
    if guarantee.get("epsilon") is None:
        return "no differential-privacy guarantee: see the card"
    delta = f", delta {format_delta(guarantee['delta'])}" if guarantee.get("delta") else ""
    empty = "" if protects(guarantee) else ": a guarantee that protects no one in practice"
    return f"epsilon {guarantee['epsilon']:.4g}{delta}, {guarantee['neighbouring']}{empty}"


def rows_in_words(rows: int | None, default_rows: int | None, count_is_public: bool) -> str:
    """How many synthetic rows a draw makes, from public settings only: the publisher's number, the
    method's own fixed number of tries, the real count (public under the method's privacy unit) or
    the real count plus noise.

    >>> rows_in_words(500, None, False), rows_in_words(None, None, True)
    ('500 (your choice)', "the real count (public under this method's privacy unit)")
    """
    if rows:
        return f"{rows:,} (your choice)"
    if default_rows:
        return f"{default_rows:,} tries (the method's own number, fixed in advance)"
    return (
        "the real count (public under this method's privacy unit)" if count_is_public else "the real count plus noise"
    )


def ledger_rows(spends: list[dict]) -> list[dict]:
    """The ledger's spends (:meth:`~dpsynth_core.workspace.ledger.Ledger.spends`) as table rows, in plain words."""
    return [
        {
            "when": s["created"],
            "what": s["purpose"] + (f" #{s['release_id']}" if s["release_id"] else ""),
            "method": s["method"],
            "from": s["source"],
            "cost": (
                f"ε = {format_epsilon(s['epsilon'])}, δ = {format_delta(s['delta'])}"
                if s["guaranteed"]
                else "no guarantee"
            ),
            "privacy unit": s["neighbouring"] if s["guaranteed"] else "",
        }
        for s in spends
    ]


def cost_words(spend: dict) -> str:
    """One recorded spend's cost as the ledger states it (``Ledger.spends``), the same words everywhere:
    ``ε = 0.1``, or where its composition traded a delta for a smaller epsilon, ``ε = 0.0786, δ = 1e-6
    (advanced composition of its measurements; ε = 0.1 by adding them up)``."""
    if not spend.get("guaranteed"):
        return "no guarantee"
    text = f"ε = {format_epsilon(spend['epsilon'])}, δ = {format_delta(spend['delta'])}"
    basic = spend.get("basic_epsilon")
    if spend.get("delta") and basic is not None and basic > spend["epsilon"] * 1.0005:
        text += (
            f" ({spend['composition']} composition of its measurements; ε = {format_epsilon(basic)} by adding them up)"
        )
    return text
