"""Weakly constrained text domains: values from a public generator (letters, words, digits, any value)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from .. import constraints
from ..wording import counted, size_in_words
from .column import ColumnDomain
from .kinds import ALPHABETS, DEFAULT_ALPHABET, KIND_STATEMENTS, TEXT_GENERATORS
from .public_lists import english_word_set, public_list

#: A range of characters typed in an alphabet, as a regular expression writes one: two letters of one case or two
#: digits, low to high, around a hyphen (``A-Z``, ``a-f``, ``0-9``); a hyphen anywhere else is itself.
_CHARACTER_RANGE = re.compile(r"([a-z])-([a-z])|([A-Z])-([A-Z])|([0-9])-([0-9])")


def spelled_alphabet(typed: str) -> str:
    """The characters an alphabet allows, as a publisher types it: each range such as ``A-Z`` written out, in the
    order typed (CDISC's causes of death in capitals and spaces, typed ``A-Z `` from a regular expression's habit,
    allowed the letters A and Z, a hyphen and a space). A character typed twice stays twice, for the declaration's
    check to refuse (:meth:`TextDomain.problems`).

    >>> spelled_alphabet("A-Z "), spelled_alphabet("a-f0-3"), spelled_alphabet(" -'"), spelled_alphabet("z-a")
    ('ABCDEFGHIJKLMNOPQRSTUVWXYZ ', 'abcdef0123', " -'", 'z-a')
    """

    def written(found: re.Match) -> str:
        low, high = (g for g in found.groups() if g is not None)
        return "".join(map(chr, range(ord(low), ord(high) + 1))) if low <= high else found[0]

    return _CHARACTER_RANGE.sub(written, typed) if isinstance(typed, str) else typed


def _generator_keys() -> tuple:
    """Each text key read by some generators only, with those generators: the ``when`` of the text kind's statement
    (:data:`~.kinds.KIND_STATEMENTS`), the keys' one home (its prefixes are checked apart)."""
    keys = [k for k in KIND_STATEMENTS["text"].keys if k.when and k.when[0] == "generator" and k.name != "prefixes"]
    return tuple((k, k.when[1] if isinstance(k.when[1], tuple) else (k.when[1],)) for k in keys)


_GENERATOR_KEYS = _generator_keys()
_READERS = {g: [k.name for k, readers in _GENERATOR_KEYS if g in readers] for _, rs in _GENERATOR_KEYS for g in rs}
#: What a key read by another generator is told to do ("remove it ('letters' reads max_length and alphabet, ...)").
_READS = (
    "remove it ("
    + ", ".join(f"'{g}' {'reads ' * (i == 0)}{' and '.join(keys)}" for i, (g, keys) in enumerate(_READERS.items()))
    + ")"
)


@dataclass(frozen=True)
class TextDomain(ColumnDomain):
    """A weakly constrained domain of exact size, listed by a public generator.

    Generators and their sizes:

    * ``letters``: strings of 1 to ``max_length`` characters from ``alphabet``
      (sum of ``len(alphabet)**l``);
    * ``english_word``: any word of the bundled English word list, matched ignoring case
      and released in lower case;
    * ``word_pair``: two such words separated by a space (size ``W**2``);
    * ``digits``: codes of exactly ``length`` digits such as ZIP codes (size ``10**length``);
    * ``any``: any value, released as one of ``size`` public pseudonyms ``value-N``; a value
      is mapped to its pseudonym by a fixed public hash (a pseudonym maps to itself), so the
      original strings never appear in a release (printing them could not be DP: see the "bad
      bins" theorem).

    Values outside the domain become missing.

    ``prefixes`` (``letters`` and ``digits`` only): declared prefix lengths that mean something
    (``428.31`` -> ``428`` -> ``42``). A value's *generalised* form at length ``L`` is its first ``L``
    characters followed by ``*`` (``428*``); a release may hold these, and they read back as themselves
    (:meth:`normalise`). How the levels are released: :mod:`dpsynth_core.privacy.prefixes`.
    """

    generator: str | None = None
    max_length: int | None = None
    alphabet: str = DEFAULT_ALPHABET
    length: int | None = None
    declared_size: int | None = None
    prefixes: tuple = ()
    kind: ClassVar[str] = "text"
    binned: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "alphabet", spelled_alphabet(self.alphabet))

    def problems(self) -> list[str]:
        if self.generator is None:
            return [
                f"column '{self.name}': its possible values are not declared yet: choose a kind (whole numbers, "
                "numbers, categories, dates, or free text: any string of letters, any English word or pair of "
                "words, a code of N digits, or pseudonyms) and its values, or drop the column"
            ]
        if self.generator == "":  # the kind is chosen (the Domain page), which values it holds not yet
            return [
                f"column '{self.name}': choose which values are possible: any string of letters up to a length, any "
                "English word, any pair of English words, a code of N digits, or any value released as pseudonyms"
            ]
        if self.generator not in TEXT_GENERATORS:
            return [f"column '{self.name}': generator ({self.generator!r}) must be one of {', '.join(TEXT_GENERATORS)}"]
        unread = [
            f"'{key.name}'" for key, readers in _GENERATOR_KEYS if self.generator not in readers and self._has(key)
        ]
        if unread:
            return [f"column '{self.name}': the generator '{self.generator}' reads no {' or '.join(unread)}: {_READS}"]
        if self.generator == "letters":
            if not self.max_length or self.max_length < 1:
                return [f"column '{self.name}': 'letters' needs max_length >= 1"]
            if not self.alphabet or len(set(self.alphabet)) != len(self.alphabet):
                return [self._alphabet_problem()]
        if self.generator == "digits" and (not self.length or self.length < 1):
            return [f"column '{self.name}': 'digits' needs length >= 1"]
        if self.generator == "any" and (not self.declared_size or self.declared_size < 1):
            return [f"column '{self.name}': 'any' needs a declared size >= 1"]
        if self.prefixes:
            return self._prefix_problems()
        if self._count() > constraints.MAX_TEXT_DOMAIN_SIZE:
            return [
                f"column '{self.name}': the domain has about {_power_of_ten(self._count())} values, more than "
                f"{_power_of_ten(constraints.MAX_TEXT_DOMAIN_SIZE)}; declare {self._fitting_words()}"
            ]
        return []

    def _alphabet_problem(self) -> str:
        """Why the allowed characters are refused: none, or some given twice (words typed where characters are
        asked, "letters (small and capital)", repeat their letters), named."""
        how = (
            "type each allowed character once (a-z stands for every small letter, A-Z every capital, 0-9 every "
            "digit), or choose one of the sets offered"
        )
        if not self.alphabet:
            return f"column '{self.name}': no characters are allowed: {how}"
        twice = [repr(c) for c, n in Counter(self.alphabet).items() if n > 1]
        more = f" and {len(twice) - 5} more" if len(twice) > 5 else ""
        return f"column '{self.name}': the allowed characters repeat {', '.join(twice[:5])}{more}: {how}"

    def _has(self, key) -> bool:
        """Whether the column declares ``key`` (an alphabet other than the default one)."""
        value = getattr(self, key.field)
        return value != DEFAULT_ALPHABET if key.name == "alphabet" else value is not None

    def _fitting_words(self) -> str:
        """What a declaration of this generator within :data:`~dpsynth_core.constraints.MAX_TEXT_DOMAIN_SIZE` is."""
        most = constraints.MAX_TEXT_DOMAIN_SIZE
        if self.generator == "letters":
            a, total, longest = len(self.alphabet), 0, 0
            while total + a ** (longest + 1) <= most:
                longest, total = longest + 1, total + a ** (longest + 1)
            return f"a longest length of at most {longest}"
        if self.generator == "digits":
            return f"a number of digits of at most {len(str(most)) - 1}"
        return f"a size of at most {_power_of_ten(most)}"

    def _prefix_problems(self) -> list[str]:
        longest = self.max_length if self.generator == "letters" else self.length
        if self.generator not in ("letters", "digits"):
            return [
                f"column '{self.name}': prefix lengths need codes of letters or digits (a pseudonym or an "
                "English word has no meaningful prefix)"
            ]
        if len(set(self.prefixes)) != len(self.prefixes) or not all(1 <= p < longest for p in self.prefixes):
            return [
                f"column '{self.name}': prefix lengths must be different whole numbers from 1 to {longest - 1} "
                f"(shorter than the codes' {longest} characters)"
            ]
        if "*" in self.alphabet:
            return [
                f"column '{self.name}': with prefix lengths the allowed characters cannot include '*' (it marks "
                "a shortened code)"
            ]
        return []

    @property
    def levels(self) -> tuple:
        """The declared prefix lengths, longest first (empty: no fallback)."""
        return tuple(sorted(self.prefixes, reverse=True))

    def prefix_domain(self, length: int) -> TextDomain:
        """The domain of the prefixes of length ``length``: what CatHist lists at that level."""
        if self.generator == "digits":
            return TextDomain(self.name, missing=False, generator="digits", length=length)
        return TextDomain(self.name, missing=False, generator="letters", max_length=length, alphabet=self.alphabet)

    @property
    def size(self) -> int:
        self._require_complete()
        return self._count()

    def _count(self) -> int:
        """The exact number of values of a complete declaration."""
        if self.generator == "letters":
            a = len(self.alphabet)
            return sum(a**length for length in range(1, self.max_length + 1))
        if self.generator == "english_word":
            return len(english_word_set())
        if self.generator == "word_pair":
            return len(english_word_set()) ** 2
        if self.generator == "digits":
            return 10**self.length
        return int(self.declared_size)

    def describe(self) -> str:
        if not self.complete:
            return "free text (domain not declared yet)"
        allowed = f"among {ALPHABETS[self.alphabet]}" if self.alphabet in ALPHABETS else f"from '{self.alphabet}'"
        what = {
            "letters": f"strings of 1 to {self.max_length} characters {allowed}",
            "english_word": "any English word (bundled word list)",
            "word_pair": "any pair of English words",
            "digits": f"any {self.length}-digit code",
            "any": "any value, released as public pseudonyms",
        }[self.generator]
        fallback = ""
        if self.prefixes:
            fallback = (
                "; a code too rare to release comes out as its first "
                + " or ".join(map(str, self.levels))
                + " characters and '*' (the column's budget split "
                f"equally between the full codes and the {counted(len(self.levels), 'prefix length')})"
            )
        return f"{what}: {size_in_words(self.size)} possible values{fallback}"

    def to_json(self) -> dict:
        out = self._base_json()
        if self.generator is not None:
            out["generator"] = self.generator
        if self.generator == "letters":
            out["max_length"] = self.max_length
            if self.alphabet != DEFAULT_ALPHABET:
                out["alphabet"] = self.alphabet
        if self.generator == "digits":
            out["length"] = self.length
        if self.generator == "any":
            out["size"] = int(self.declared_size)
        if self.prefixes:
            out["prefixes"] = list(self.prefixes)
        return out

    # --- listing the domain -------------------------------------------------------------

    def label_at(self, index: int) -> str:
        """The value with position ``index`` in the domain's public enumeration."""
        if not 0 <= index < self.size:
            raise IndexError(index)
        if self.generator == "letters":
            a = len(self.alphabet)
            length = 1
            while index >= a**length:
                index -= a**length
                length += 1
            chars = []
            for _ in range(length):
                index, r = divmod(index, a)
                chars.append(self.alphabet[r])
            return "".join(reversed(chars))
        if self.generator == "english_word":
            return _sorted_words()[index]
        if self.generator == "word_pair":
            words = _sorted_words()
            first, second = divmod(index, len(words))
            return f"{words[first]} {words[second]}"
        if self.generator == "digits":
            return f"{index:0{self.length}d}"
        return self._pseudonym(index)

    def index_of(self, label) -> int:
        """The position of ``label`` in the public enumeration: the exact inverse of :meth:`label_at`.

        Codes built on a text column follow these positions, never the data's frequencies.
        Raises ``ValueError`` for a value outside the domain.
        """
        if self.prefixes and isinstance(label, str) and self._generalised(label):
            return self.size + self._generalised_position(label[:-1])
        index = self._position(label) if isinstance(label, str) else None
        if index is None or not 0 <= index < self.size or self.label_at(index) != label:
            raise ValueError(f"column '{self.name}': {label!r} is not in the domain")
        return index

    def _position(self, label: str) -> int | None:
        if self.generator == "letters":
            a = len(self.alphabet)
            if not 1 <= len(label) <= self.max_length or any(ch not in self.alphabet for ch in label):
                return None
            offset = sum(a**length for length in range(1, len(label)))
            value = 0
            for ch in label:
                value = value * a + self.alphabet.index(ch)
            return offset + value
        if self.generator == "english_word":
            return _word_positions().get(label)
        if self.generator == "word_pair":
            parts = label.split(" ")
            positions = [_word_positions().get(p) for p in parts]
            if len(parts) != 2 or None in positions:
                return None
            return positions[0] * len(_sorted_words()) + positions[1]
        if self.generator == "digits":
            return int(label) if len(label) == self.length and label.isascii() and label.isdigit() else None
        digits = label[len("value-") :]
        if not label.startswith("value-") or not (digits.isascii() and digits.isdigit()):
            return None
        return int(digits)

    def _generalised(self, label: str) -> bool:
        """Whether ``label`` is a shortened code of a declared level: its stem then ``*``."""
        stem = label[:-1]
        if not label.endswith("*") or not 1 <= len(stem) <= max(self.prefixes):
            return False
        allowed = "0123456789" if self.generator == "digits" else self.alphabet
        return all(ch in allowed for ch in stem) and (self.generator != "digits" or len(stem) in self.prefixes)

    def _generalised_position(self, stem: str) -> int:
        """A public position for a shortened code, after the domain's own values: its stem's place among
        the strings of its characters, shortest first."""
        allowed = "0123456789" if self.generator == "digits" else self.alphabet
        a = len(allowed)
        value = 0
        for ch in stem:
            value = value * a + allowed.index(ch)
        return sum(a**length for length in range(1, len(stem))) + value

    def _pseudonym(self, index: int) -> str:
        return f"value-{index:0{len(str(self.declared_size - 1))}d}"

    def normalise(self, values) -> list:
        """Map raw strings to domain labels; ``None`` for anything outside the domain.

        Idempotent: a label of the domain maps to itself (a pseudonym included), so a released
        table put through it again is unchanged and compares cell for cell with the real one.
        """
        if self.prefixes:  # shortened codes of a release read back as themselves
            values = list(values)
            kept = [v if isinstance(v, str) and self._generalised(v) else None for v in values]
            plain = self._normalise_plain([None if k is not None else v for k, v in zip(kept, values)])
            return [k if k is not None else p for k, p in zip(kept, plain)]
        return self._normalise_plain(values)

    def _normalise_plain(self, values) -> list:
        import hashlib

        out = []
        if self.generator == "letters":
            pattern = re.compile(f"[{re.escape(self.alphabet)}]{{1,{self.max_length}}}")
            return [v if v is not None and pattern.fullmatch(v) else None for v in values]
        if self.generator == "english_word":
            words = english_word_set()
            return [v.lower() if v is not None and v.lower() in words else None for v in values]
        if self.generator == "word_pair":
            words = english_word_set()
            for v in values:
                parts = v.lower().split() if v is not None else []
                ok = len(parts) == 2 and parts[0] in words and parts[1] in words
                out.append(" ".join(parts) if ok else None)
            return out
        if self.generator == "digits":
            pattern = re.compile(f"[0-9]{{{self.length}}}")
            return [v if v is not None and pattern.fullmatch(v) else None for v in values]
        width = len(str(self.declared_size - 1))
        released = re.compile(f"value-[0-9]{{{width}}}")
        for v in values:
            if v is None:
                out.append(None)
                continue
            if released.fullmatch(v) and int(v[6:]) < self.declared_size:
                out.append(v)  # already a pseudonym: the released form of a released value is itself
                continue
            digest = hashlib.blake2b(v.encode("utf-8"), digest_size=16, person=b"dpsynth-any").digest()
            out.append(self._pseudonym(int.from_bytes(digest, "big") % self.declared_size))
        return out


def _sorted_words() -> tuple[str, ...]:
    """The bundled word list, which is stored sorted: position i is the i-th word."""
    return public_list("english_words")


@lru_cache(maxsize=1)
def _word_positions() -> dict:
    """Word -> its position in the bundled (sorted) list."""
    return {word: i for i, word in enumerate(_sorted_words())}


def _power_of_ten(number: int) -> str:
    """A huge whole number in words, to two significant digits: ``about 1.2 × 10^101`` for 12 followed by 100 zeros.

    >>> _power_of_ten(12 * 10**100), _power_of_ten(10**100)
    ('1.2 × 10^101', '10^100')
    """
    digits = str(int(number))
    lead = int(digits[:2]) / 10
    return f"10^{len(digits) - 1}" if lead == 1 else f"{lead:g} × 10^{len(digits) - 1}"
