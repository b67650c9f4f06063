"""The fields and base schemas every schema is made of: documented and strict
schemas, strict booleans and integers, cards, texts and a person's name, and
the bounds of what a game can hold."""

from __future__ import annotations

import unicodedata
from typing import Any, ClassVar

import marshmallow as ma
from marshmallow import fields, utils, validate

from ..edge.ignorable import first_ignorable
from ..edge.names import BOT_NAME_RULE, bot_like
from ..games.cards import BLANKS_AROUND_A_CARD
from ..games.may_i.options import LARGEST_DECK as MAY_I_DECK
from ..games.sevens.options import LARGEST_DECK as SEVENS_DECK
from ..games.ship.options import LARGEST_DECK as SHIP_DECK
from ..games.ship.options import LARGEST_HAND as SHIP_HAND

CARD_PATTERN_DOC = "A card: rank then suit, e.g. `TH`, `10H`, `A♥` (any case); answers use `TH`."

MAX_NAME = 40

MAX_CALL = 80

LARGEST_DECK = max(SHIP_DECK, SEVENS_DECK, MAY_I_DECK)
"""The most cards a round of any game holds (May I?'s four decks with their
jokers, 216): a deal of any game, its hands and its stock together, holds no
more. Each game's own checks bound it by its own deck."""

LARGEST_DEALT_HAND = SHIP_HAND
"""The most cards a deal gives one seat in any game: My Ship Sails' largest
``hand_size`` (26; Sevens deals at most 18, May I? 10)."""


ERRORS_KEPT = 8
"""The most item errors a list reports, and the most unknown members an
object does (the first ones): past them the request is refused anyway, and
each error costs what a few cards cost to read, so a 64 KiB body of bad
items would cost a hundred moves (issue 39, tenth attacker's High)."""


def _length_first(field: fields.Field[Any], value: Any) -> None:
    # A Length refusal is decided by len() alone: before the items are read
    # and the other validators walk the text (marshmallow runs them all).
    for check in field.validators:
        if isinstance(check, validate.Length):
            check(value)


class Items(fields.List):  # type: ignore[type-arg]
    """A list field that is refused by its ``validate.Length`` before its
    items are read, and that reports at most :data:`ERRORS_KEPT` bad items:
    no body costs more than its schema's largest list of good items (issue 39).
    Every list a request body holds is one (``tests/spec``)."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> list[Any]:
        if not utils.is_collection(value):
            raise self.make_error("invalid")
        _length_first(self, value)
        result: list[Any] = []
        errors: dict[int, Any] = {}
        for index, each in enumerate(value):
            try:
                result.append(self.inner.deserialize(each, **kwargs))
            except ma.ValidationError as error:
                if error.valid_data is not None:
                    result.append(error.valid_data)
                errors[index] = error.messages
                if len(errors) == ERRORS_KEPT:
                    break
        if errors:
            raise ma.ValidationError(errors, valid_data=result)
        return result


class String(fields.String):
    """A string field refused by its ``validate.Length`` before its other
    validators walk it (a name's checks read every character)."""

    def _validate(self, value: Any) -> None:
        _length_first(self, value)
        super()._validate(value)


class DocumentedSchema(ma.Schema):
    """A schema whose docstring becomes its description in the OpenAPI spec.

    As a response's schema, every member it declares is ``required`` in the
    spec (each answer holds it, ``null`` where the field allows) unless
    ``PRESENT`` names the only ones that are: the views shared by the games
    hold each game's own members on that game's tables only."""

    PRESENT: ClassVar[tuple[str, ...] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__doc__:
            meta = cls.__dict__.get("Meta") or type("Meta", (getattr(cls, "Meta", object),), {})
            setattr(meta, "description", " ".join(cls.__doc__.split()))  # noqa: B010
            setattr(cls, "Meta", meta)  # noqa: B010


class StrictSchema(DocumentedSchema):
    """Unknown fields are an error, not silently dropped (the first
    :data:`ERRORS_KEPT` of them reported when there are more)."""

    class Meta:
        unknown = ma.RAISE

    @ma.pre_load
    def _few_unknown(self, data: Any, **kwargs: Any) -> Any:
        if isinstance(data, dict) and len(data) > ERRORS_KEPT:
            known = {field.data_key or name for name, field in self.load_fields.items()}
            unknown = [key for key in data if key not in known]
            if len(unknown) > ERRORS_KEPT:
                refused = self.error_messages["unknown"]
                raise ma.ValidationError({key: [refused] for key in unknown[:ERRORS_KEPT]})
        return data


def Int(**kwargs: Any) -> fields.Integer:  # noqa: N802 - reads like a field class
    """A whole number that refuses ``"7"`` and ``7.5``."""
    return fields.Integer(strict=True, **kwargs)


class StrictBoolean(fields.Boolean):
    """A JSON ``true`` or ``false`` only."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


def Bool(**kwargs: Any) -> fields.Boolean:  # noqa: N802 - reads like a field class
    """A JSON ``true`` or ``false`` that refuses ``"yes"``, ``"false"``, ``1`` and ``0``
    (marshmallow's own Boolean takes them all), as ``Int()`` refuses ``"7"``."""
    return StrictBoolean(**kwargs)


_RANK = "(?:10|[2-9TtJjQqKkAa])"

_SUIT = "(?:[SsHhDdCc]|[\u2660\u2665\u2666\u2663\u2664\u2661\u2662\u2667][\ufe0e\ufe0f]?)"

_BLANKS = rf"\s{{0,{BLANKS_AROUND_A_CARD}}}"

CARD_PATTERN = rf"^{_BLANKS}{_RANK}{_SUIT}{_BLANKS}$"
"""What :func:`service.games.cards.parse_card` reads as a card, for the spec.
Its blanks are bounded so that every string it matches is at most 8
characters long (the field's ``maxLength``): with ``\\s*`` a generator drew
strings the length then refused, and a body of many cards was nearly always
drawn again (Hypothesis's health check failed on the exchange check)."""

_SELECTORS = "[\ufe0e\ufe0f]*"

SUIT_PATTERN = (
    rf"^\s*{_SELECTORS}(?:[SsHhDdCc]|[\u2660\u2665\u2666\u2663\u2664\u2661\u2662\u2667])"
    rf"{_SELECTORS}\s*$"
)
"""A suit as :func:`~service.games.cards.parse_suit` reads it: a letter (any
case) or a symbol, variation selectors anywhere inside."""

CARD_OR_JOKER_PATTERN = rf"^{_BLANKS}(?:{_RANK}{_SUIT}|[Jj][Kk]|[Jj][Oo][Kk][Ee][Rr]){_BLANKS}$"
"""The same, or May I?'s joker (``JK``, ``joker``)."""


def Card(*, joker: bool = False, judged: bool = False, **kwargs: Any) -> fields.String:  # noqa: N802
    """One card code as a player may write it (with ``joker``, also May I?'s
    joker). Its pattern is in the spec, and the game refuses what does not
    match it with the card's pointer; a ``judged`` card (a deal check's) has
    none, since the check answers a bad card as one of its problems."""
    metadata = {"description": CARD_PATTERN_DOC, **kwargs.pop("metadata", {})}
    if not judged:
        metadata["pattern"] = CARD_OR_JOKER_PATTERN if joker else CARD_PATTERN
    return String(validate=validate.Length(1, 8), metadata=metadata, **kwargs)


def Cards(  # noqa: N802
    most: int,
    least: int = 0,
    what: str = "cards",
    *,
    joker: bool = False,
    judged: bool = False,
    **kwargs: Any,
) -> fields.List[Any]:
    """A list of ``least``..``most`` cards: ``most`` is what the game can hold
    there (a hand, a stock, a meld), so that no request costs more than the
    game's largest real one."""
    error = f"{what}: {least} to {most} cards (the most the game can hold there)"
    length = validate.Length(least, most, error=error)
    return Items(Card(joker=joker, judged=judged), validate=length, **kwargs)


INVISIBLE = ("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp")
"""Unicode general categories refused in names and texts: controls (Cc), format
characters such as the bidirectional overrides and isolates, zero-width joiners
and the BOM (Cf), private use (Co), lone surrogates (Cs), unassigned code points
(Cn), line and paragraph separators (Zl, Zp)."""

TEXT_DOC = (
    "Kept as typed, but refused (422) when it holds a character of Unicode category "
    + ", ".join(INVISIBLE)
    + " (controls, format and direction-changing characters such as U+202E, private use, "
    "lone surrogates, unassigned code points, line and paragraph separators) or of "
    "Unicode's Default_Ignorable_Code_Point (characters drawn as nothing: the Hangul "
    "fillers U+115F, U+1160, U+3164, U+FFA0, variation selectors such as U+FE0F, "
    "U+034F, tags; the error names it), or when it has no visible character (only "
    "spaces, combining marks or blank fillers)."
)


def _printable(text: str) -> None:
    # Lone surrogates cannot be stored as UTF-8; invisible or direction-changing
    # characters let a name pass for another ("Bo\u1160t" reads "Bot"); a blank
    # name names no one.
    found = first_ignorable(text)
    if found is not None:
        raise ma.ValidationError(
            f"must not hold {found}: Unicode draws it as nothing "
            "(Default_Ignorable_Code_Point), so the text would pass for another"
        )
    if any(unicodedata.category(ch) in INVISIBLE for ch in text):
        raise ma.ValidationError(
            "must not hold control, format (such as direction overrides), private-use, "
            "unassigned or separator characters, nor lone surrogates"
        )
    if not any(_visible(ch) for ch in text):
        raise ma.ValidationError("must hold a visible character")


BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern)."""


def _visible(ch: str) -> bool:
    """Whether ``ch`` draws something by itself: not a space, separator, mark,
    invisible character or blank letter."""
    category = unicodedata.category(ch)
    return not (category[0] in "ZC" or category in ("Mn", "Me") or ch in BLANK_LETTERS)


def Text(low: int, high: int, component: str, **kwargs: Any) -> fields.String:  # noqa: N802
    """A string of ``low``..``high`` characters, at least one visible (see
    ``TEXT_DOC``), which the spec states as its text ``component`` (the rule
    as a pattern: :mod:`.texts`)."""
    metadata = kwargs.pop("metadata", {})
    description = " ".join(filter(None, [metadata.get("description"), TEXT_DOC]))
    return String(
        validate=[validate.Length(low, high), _printable],
        metadata={**metadata, "description": description, "text_component": component},
        **kwargs,
    )


def _a_persons(text: str) -> None:
    # A person named "Bot 3 (basic)" would pass for the bot (RULES.md 5.1).
    if bot_like(text):
        raise ma.ValidationError(BOT_NAME_RULE)


PERSON_NAME_DOC = (
    "Names of the form `Bot …` are the bots' (RULES.md 5.1): a person's name whose first "
    'word reads "Bot" (in any case, or in letters that look alike: Unicode\'s confusables, '
    "small capitals, letters with hooks, strokes or marks, gaps a reader does not see) "
    "is refused (422)."
)


def PersonName(**kwargs: Any) -> fields.String:  # noqa: N802 - reads like a field class
    """A person's name (:data:`MAX_NAME` characters at most, see ``TEXT_DOC``),
    never a bot's (:func:`.names.bot_like`)."""
    metadata = kwargs.pop("metadata", {})
    description = " ".join(filter(None, [metadata.get("description"), PERSON_NAME_DOC]))
    field = Text(1, MAX_NAME, "Name", metadata={**metadata, "description": description}, **kwargs)
    field.validators.append(_a_persons)
    return field
