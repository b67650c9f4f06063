"""Names of the form ``Bot …`` are the bots' (RULES.md 5.1): a person may
not take one that a reader would take for a bot's, whatever letters draw it
(:mod:`service.edge.names`), at a table's creation or at a join; through the
app on a real Redis."""

from __future__ import annotations

from typing import Any

import pytest

LOOK_ALIKES = [
    "Bot 3 (basic)",
    "ʙᴏᴛ 3",  # small capitals
    "ʙot",
    "Ɓot 3 (basic)",  # U+0181, B with hook
    "ƁOT",
    "ɓoʈ",  # hooks, small and retroflex
    "Ƀot",  # B with stroke
    "Bøt",  # o with stroke
    "bɵt",  # barred o
    "Boŧ",  # t with stroke
    "Boƭ",  # t with hook
    "Bòt",  # a mark on a letter
    "Bǒt",
    "B\u0336ot",  # a combining overlay
    "ᴮᵒᵗ",  # modifier letters
    "Ⓑot",
    "Bоt",  # Cyrillic o (the library's confusables, as before)
    # Issue 39, second attacker: o-like Cyrillic and Greek letters the
    # confusables draw as an o with a mark, or leave out.
    "Bѳt",  # Cyrillic fita
    "BѲT",
    "Bθt 2",  # Greek theta
    "BΘT",
    "Bөt",  # Cyrillic barred o
    "Bᲂt",  # Cyrillic narrow o
    "Bꙩt",  # Cyrillic monocular o
    "Бот 5",  # the Russian word, Cyrillic be
    # Issue 39, third attacker: gaps nobody sees, round shapes no table lists.
    "B\u2800ot",  # the blank Braille pattern
    "B\U0001d159ot",  # the null notehead
    "B\u200aot 1",  # a hair space
    "Bo\u2009t",  # a thin space
    "B\u202fot",  # a narrow no-break space
    "Bᴑt",  # a sideways o
    "B°t",  # a degree sign
    "B𐒆t",  # Osmanya deel
    "Boʇ",  # a turned t
    "฿ot",  # the baht sign
    # Issue 39, fourth attacker.
    *("Bㅇt", "B๏t", "B∘t", "B○t", "B⊙t", "Bʘt"),  # round shapes of other scripts
    *("Bo†", "Boꞇ"),  # a dagger, an insular t
    *("ьot", "Բot", "βot", "8ot", "ßot"),  # what is drawn as a b
    "B\u1680ot",  # the Ogham space mark
    # Issue 39, fifth attacker: punctuation between the letters.
    *("B.o.t", "B_o_t", "B-ot", "B'o't 2", "Bot-ty", "B\u00b7o\u00b7t", "B\u2010ot"),
    # Issue 39, sixth attacker: symbols and quotes between them, spacing marks.
    *("B\u2019o\u2019t", "B~o~t", "B|o|t", "B^o^t", "B=o=t", "B\u00a8ot", "B`o`t"),
    *("Ъot", "ъot", "Bo+"),  # a hard sign drawn as a b, a plus as a t
    # Seventh attacker: signs NFKD spells as letters, symbols drawing letters.
    *("Bot\u00b9 (random)", "Bot\u2161 (basic)", "Bot\u2122 2"),  # ¹, Ⅱ, ™ after Bot
    *("\U0001f171ot 2", "B\u0366t 2", "\u00deot 2"),  # 🅱, a combining o above, a thorn
    *("Bo\u2534 2", "Bo\u22a5 2", "Bo\u271d 2"),  # ┴, ⊥, ✝ drawn as a t
]
IGNORABLE = [
    ("Bo\u1160t 1", "U+1160"),  # Hangul fillers: letters (Lo) that draw nothing
    ("Bo\u115ft 2", "U+115F"),
    ("Bo\u3164t 3", "U+3164"),
    ("B\uffa0ot 4", "U+FFA0"),
    ("Bo\ufe0ft", "U+FE0F"),  # a variation selector (Mn)
    ("B\u034fot", "U+034F"),  # combining grapheme joiner (Mn)
    ("Bo\u17b4t", "U+17B4"),  # Khmer inherent vowel
    ("Bo\u180bt", "U+180B"),  # Mongolian variation selector
    ("Bo\U000e0100t", "U+E0100"),  # variation selector 17, above U+FFFF
    ("Ann\u00ad", "U+00AD"),  # soft hyphen (Cf: refused before, now named)
]
PEOPLE = [
    *("Bottle", "Robot", "Abbot", "Zoë", "Björn", "Øyvind", "Łukasz", "Bo"),
    *("Bät", "B o t", "Bo Tanner", "Bo\u3000T", "Ana Bot"),  # a's a letter; a space is seen
    *("Bo-Tanner", "B.J.", "Bo.", "Bots", "Bo|l", "B+"),  # punctuation between other letters
    *("Ann \u2764", "Ann \u2665 Bob", "\u2161 Ann", "Bo\u00b2"),  # symbols elsewhere
]


def _create(client: Any, name: str) -> Any:
    body = {"variant": "classic", "players": ["Ann", name, "Cy", None], "first_dealer": 0}
    return client.post("/v1/tables", json=body)


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_a_name_that_reads_as_a_bots_is_refused(client: Any, name: str) -> None:
    r = _create(client, name)
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid-request"), r.get_json()
    assert r.get_json()["errors"][0]["pointer"] == "/players/1"
    assert "the bots'" in r.get_json()["errors"][0]["detail"]
    open_table = _create(client, "Ben")
    assert open_table.status_code == 201
    join = client.post(
        f"/v1/tables/{open_table.get_json()['table_id']}/join",
        json={"name": name, "code": open_table.get_json()["join_codes"][0]["code"]},
    )
    assert (join.status_code, join.get_json()["code"]) == (422, "invalid-request")
    assert join.get_json()["errors"][0]["pointer"] == "/name"


@pytest.mark.parametrize("name", PEOPLE)
def test_a_persons_name_that_only_holds_bot_is_taken(client: Any, name: str) -> None:
    r = _create(client, name)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["table"]["seats"][1]["name"] == name


@pytest.mark.parametrize(("name", "code_point"), IGNORABLE)
def test_a_name_with_a_character_drawn_as_nothing_is_refused_naming_it(
    client: Any, name: str, code_point: str
) -> None:
    # Issue 39, second attacker: "Bo\u1160t 1" rendered as "Bot 1" and was
    # taken as a person's name (a Hangul filler is a letter, category Lo).
    r = _create(client, name)
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid-request"), r.get_json()
    error = r.get_json()["errors"][0]
    assert error["pointer"] == "/players/1"
    assert f"must not hold {code_point} (" in error["detail"]
    assert "Default_Ignorable_Code_Point" in error["detail"]


def test_the_ignorable_table_holds_the_fillers_selectors_and_tags() -> None:
    # A spot check of the copied DerivedCoreProperties ranges, by the names.
    import sys
    import unicodedata

    from service.edge.ignorable import ignorable

    names = {c: unicodedata.name(chr(c), "") for c in range(sys.maxunicode + 1)}
    drawn_as_nothing = [
        chr(c)
        for c, name in names.items()
        if (name.startswith("HANGUL") and name.endswith("FILLER"))
        or "VARIATION SELECTOR" in name
        or name.startswith(("TAG ", "ZERO WIDTH"))
        or name in ("LANGUAGE TAG", "CANCEL TAG", "SOFT HYPHEN", "COMBINING GRAPHEME JOINER")
    ]
    assert len(drawn_as_nothing) == 4 + 16 + 240 + 4 + 97 + 3 + 2, len(drawn_as_nothing)
    assert all(ignorable(ch) for ch in drawn_as_nothing)
    assert not any(ignorable(ch) for ch in "Bot 1ÆØÅ李\u2800\u00a0\ufff9\u0600\U00016fe4")
