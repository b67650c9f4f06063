"""``referee keys``: issue, list or revoke client keys (``create``,
``list``, ``revoke``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..config import Settings, SettingsError


def _keys(args: argparse.Namespace) -> int:
    """Issue, list or revoke client keys in the service's Redis (``REDIS_URL``,
    else the embedded one of ``REFEREE_DATA_DIR`` while ``referee serve``
    runs it: never a new one, whose keys the service would not know)."""
    import dataclasses

    import redis

    from ..storage.client import redis_client
    from ..storage.client_keys import ClientKeys, NameTaken
    from ..storage.embedded import running_embedded_redis

    try:
        settings = Settings.from_env()
        if not settings.redis_url:
            url = running_embedded_redis(settings.data_dir)
            if url is None:
                print(
                    "referee keys: no Redis: REDIS_URL is not set and no embedded Redis "
                    f"answers in {Path(settings.data_dir).resolve()} (REFEREE_DATA_DIR). Run "
                    "it where `referee serve` runs, while it runs, or set REDIS_URL to the "
                    "service's Redis.",
                    file=sys.stderr,
                )
                return 2
            settings = dataclasses.replace(settings, redis_url=url)
        keys = ClientKeys(redis_client(settings))
        if args.action == "create":
            try:
                key = keys.create(args.name, args.tables_per_minute, args.requests_per_second)
            except (ValueError, NameTaken) as error:
                print(f"referee: {error}", file=sys.stderr)
                return 2
            # The key on stdout alone (for a script to capture); it is shown only this once.
            print(key)
            print(
                f"client key {args.name!r} issued; send it as 'Referee-Client-Key: <key>'. "
                "It is shown only now: Redis keeps its SHA-256.",
                file=sys.stderr,
            )
        elif args.action == "list":
            for one in keys.all():
                tables = one.tables_per_minute or "default"
                requests = one.requests_per_second or "default"
                print(
                    f"{one.name}\ttables-per-minute={tables}\trequests-per-second={requests}"
                    f"\tcreated-ms={one.created_ms}"
                )
        elif not keys.revoke(args.name):
            print(f"referee: no client key named {args.name!r}", file=sys.stderr)
            return 1
        else:
            print(f"client key {args.name!r} revoked", file=sys.stderr)
    except (redis.RedisError, SettingsError, RuntimeError) as error:
        print(f"referee: cannot reach Redis: {error}", file=sys.stderr)
        return 2
    return 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``keys`` and its actions to the commands."""
    keys = sub.add_parser(
        "keys",
        help="issue, list or revoke client keys (a front end's server's own quotas)",
        description="Client keys, in the service's Redis (REDIS_URL, else the embedded one). "
        "A key is sent as 'Referee-Client-Key'; its quotas replace the per-address limits.",
    )
    actions = keys.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="issue a key (printed once on stdout)")
    create.add_argument("name", help="the key's name: 1-40 of a-z 0-9 . _ -")
    create.add_argument(
        "--tables-per-minute",
        type=int,
        help="table creations (and joins) a minute (default CLIENT_KEY_TABLES_PER_MINUTE)",
    )
    create.add_argument(
        "--requests-per-second",
        type=int,
        help="requests a second (default CLIENT_KEY_REQUESTS_PER_SECOND)",
    )
    actions.add_parser("list", help="list the keys' names and quotas (never a key)")
    revoke = actions.add_parser("revoke", help="revoke a key at once, on every worker")
    revoke.add_argument("name")
    keys.set_defaults(func=_keys)
