"""``referee verify`` and ``referee replay``: a round record's checks
(RULES.md 5.2) and their output: what matched, what was checked and what not."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

UNREADABLE = 5
"""``referee verify``/``replay``'s exit status for a record that could not
be read (the others are :data:`.games.replay.STATUSES`)."""

CHECK_EXIT = (
    "Exit status: 0 it matches; 1 it does not (each problem printed); 2 what was read is "
    "no round record; 3 a record of another version of the game's rules (only what "
    "needs no rules was checked: the commitment, the shuffle of each deck it states, the "
    "chain; not its starting deck, deal or moves: check it with the release it names); "
    "4 what the record holds matches, but moves are missing from it (a release that kept "
    "no record made them); 5 it could not "
    "be read (a file that cannot be opened, a URL that does not answer, or answers an "
    "error: the service's problem is printed, e.g. 409 round-not-over while the round "
    "is played)."
)


class Unreadable(Exception):
    """A record that could not be read: its source's own words."""


def _read_record(source: str) -> Any:
    """A round record from a file, ``-`` (stdin) or an ``http(s)://`` URL
    (``GET /v1/tables/{id}/rounds/{n}/record``); raises :class:`Unreadable`
    with the reason (the service's problem for an HTTP error) when it cannot
    be read, ``ValueError`` when it is not JSON."""
    import json
    import urllib.error
    import urllib.request

    if source == "-":
        return json.load(sys.stdin)
    if source.startswith(("http://", "https://")):
        try:
            with urllib.request.urlopen(source, timeout=30) as answer:  # noqa: S310 - the user's URL
                return json.load(answer)
        except urllib.error.HTTPError as refused:
            raise Unreadable(f"{source} answered {refused.code}: {_problem(refused)}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as failed:
            reason = getattr(failed, "reason", None) or failed
            raise Unreadable(f"cannot reach {source}: {reason}") from None
    try:
        return json.loads(Path(source).read_text())
    except OSError as failed:
        raise Unreadable(f"cannot read {source}: {failed.strerror or failed}") from None


def _problem(refused: Any) -> str:
    """An HTTP error's problem+json as ``code: detail`` (or its reason)."""
    import json

    try:
        problem = json.loads(refused.read() or b"{}")
    except (ValueError, OSError):
        problem = {}
    if isinstance(problem, dict) and problem.get("code"):
        return f"{problem['code']}: {problem.get('detail', '')}".rstrip(": ")
    return str(refused.reason)


def _check_record(args: argparse.Namespace) -> int:
    """``referee verify`` (the deal from its proof) and ``referee replay``
    (that and every move, and the result); what they check and their exit
    statuses are :mod:`.games.replay`'s (``STATUSES``: 0 it matches, 1 not
    (each problem printed), 2 no record, 3 another rules version, 4 moves
    missing from the record), and 5 (:data:`UNREADABLE`) for a record that
    could not be read (:data:`CHECK_EXIT`)."""
    from ..games.replay import NOT_A_RECORD, replay, verify

    try:
        record = _read_record(args.record)
    except Unreadable as failed:
        print(f"referee {args.command}: {failed}", file=sys.stderr)
        return UNREADABLE
    except ValueError as bad:  # the text is no JSON
        print(f"referee {args.command}: not a round record: not JSON ({bad})", file=sys.stderr)
        return NOT_A_RECORD
    if not isinstance(record, dict):
        print(f"referee {args.command}: not a round record: not an object", file=sys.stderr)
        return NOT_A_RECORD
    try:
        report = (replay if args.command == "replay" else verify)(record)
    except KeyError as missing:
        print(
            f"referee {args.command}: not a round record: it has no member {missing.args[0]!r}",
            file=sys.stderr,
        )
        return NOT_A_RECORD
    except (ValueError, TypeError, AttributeError, IndexError) as bad:
        print(f"referee {args.command}: not a round record: {bad}", file=sys.stderr)
        return NOT_A_RECORD
    _noted(record, args.commitment, args.head or [], report)
    what = f"table {record.get('table_id')} round {record.get('round')} ({record.get('game')})"
    if report.ok:
        done = (
            f", {report.moves} moves replayed, result matches" if args.command == "replay" else ""
        )
        print(f"OK {what}: everything checked matches{done}")
    elif report.problems:
        print(f"MISMATCH {what}:")
        for problem in report.problems:
            print(f"- {problem}")
    elif report.other_rules:
        print(
            f"OTHER RULES {what}: {report.other_rules}. Only what needs no rules was checked "
            "and matches (the commitment, the shuffle of each deck it states, the chain of "
            "moves); its starting deck, deal and moves were not: check it with the release "
            "it names"
        )
    else:
        replayed = f"; {report.moves} moves replayed" if args.command == "replay" else ""
        print(f"INCOMPLETE {what}: what it holds matches{replayed}, but:")
        for gap in report.incomplete:
            print(f"- {gap}")
    _coverage(record, report, args.commitment, args.head or [])
    return report.status


def _noted(record: Any, commitment: str | None, heads: list[str], report: Any) -> None:
    """Add to ``report`` a problem for a ``commitment`` noted before the
    deal that is not the record's, and for each head noted during the
    round that is not a link of the record (RULES.md 5.2)."""
    proof = record.get("proof") if isinstance(record, dict) else None
    if not isinstance(proof, dict):
        return
    if commitment is not None and commitment.lower() != str(proof.get("commitment")):
        report.problems.append("the commitment you noted is not the record's")
    links = {str(proof.get("commitment"))} | {
        str(m.get("link")) for m in record.get("moves") or () if isinstance(m, dict)
    }
    for head in heads:
        if head.lower() not in links:
            report.problems.append(f"the head you noted, {head}, is no link of the record")


def _coverage(record: Any, report: Any, commitment: str | None, heads: list[str]) -> None:
    """Print what was checked and what not, in words (:data:`.games.record.CHECKS`)."""
    from ..games.record import CHECKS

    moves = record.get("moves") if isinstance(record, dict) else None
    count = len(moves) if isinstance(moves, list) else 0
    if report.checked:
        print("Checked:")
    for name in report.checked:
        more = f" ({count} entries)" if name == "chain" else ""
        print(f"- {name}: {CHECKS[name]}{more}")
    if commitment is not None:
        print("- --commitment: the commitment you noted before the deal is the record's")
    if heads:
        print(f"- --head ({len(heads)}): each head you noted during the round is a link of it")
    print("Not checked:")
    for part in report.unchecked:
        print(f"- {part['check']}: {part['reason']}")
    if commitment is None:
        print(
            "- that the commitment is the one published before the deal (give it with --commitment)"
        )
    print(
        "- that the moves are the ones played: anyone can recompute every link once the "
        "secret is public, so the chain proves the moves only against heads noted while the "
        "round was played"
        + (
            ": give the ones you noted with --head"
            if not heads
            else " (only up to the last head you noted)"
        )
    )
    print(
        "- that the game, options, seats and dealer are the ones the table showed before the "
        "deal (the commitment binds the secret alone), and that your seed is in the proof's "
        "seeds: compare them yourself"
    )


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``verify`` and ``replay`` to the commands."""
    for name, text, more in (
        (
            "verify",
            "check a round record's deal: commitment, seeds, deck order (RULES.md 5.2)",
            "Checks a finished round's record (GET /v1/tables/{id}/rounds/{n}/record) as a "
            "stranger can with the docs alone: the secret hashes to the commitment, the deal "
            "shuffles the starting deck the game and options give, the seats' seeds and the "
            "secret give the deck order, the order dealt is the deal, each rebuilt stock "
            "shuffles the discard pile the moves leave, every move's link, and every move "
            "run again from the deal (each accepted) to the recorded result. It prints what "
            "it checked and what it did not: the chain proves the moves only against the "
            "heads you noted during the round (--head), and the commitment only if you noted "
            "it (--commitment). docs/guide/deal-proofs.md says how.",
        ),
        (
            "replay",
            "re-run a round record through the game: the deal, every move, the result",
            "Does what `referee verify` does (which plays every move of the record again "
            "through the game's own rules and compares the result with the record's).",
        ),
    ):
        check = sub.add_parser(
            name,
            help=text,
            description=more,
            epilog=CHECK_EXIT,
        )
        check.add_argument(
            "record", help="a record file, - for stdin, or its URL (http:// or https://)"
        )
        check.add_argument(
            "--commitment",
            help="the commitment you noted before the deal (next_deal.commitment)",
        )
        check.add_argument(
            "--head",
            action="append",
            help="a head of the chain of moves you noted during the round (move_chain.head); "
            "repeat it for each",
        )
        check.set_defaults(func=_check_record)
