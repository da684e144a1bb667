"""Which catalog metric answers each metric of scikit-learn, torchmetrics and PyCM (``peers.yaml``).

``metricc list --peers`` prints how much of each peer the catalog covers; ``--peer NAME`` the
table name by name. The file is ours and shipped with the package; tests/acceptance/peers/test_peer_coverage.py
keeps it complete against the installed peers, its metric entries in the catalog, and each
covered name tested against its peer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from metricc.compiler.errors import InternalError

__all__ = ["PEERS_FILE", "Peer", "PeerName", "coverage_lines", "load_peers", "parse_entry"]

PEERS_FILE = Path(__file__).with_name("peers.yaml")
_ENTRY = re.compile(r"^(?P<id>[a-z][a-z0-9_]*)(?:\((?P<params>[^()]*)\))?(?::(?P<average>[a-z]+))?$")
_GROUPS = {"names": None, "class_names": "class", "overall_names": "overall"}


@dataclass(frozen=True)
class PeerName:
    """One of a peer's metrics: ``covered`` by catalog ``metrics``, ``outside`` the catalog's
    scope (counts, curves, reports: ``reason`` says what metricc offers), or ``not_yet``."""

    name: str
    group: str | None  # PyCM: "class" or "overall" statistic
    status: str
    metrics: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class Peer:
    name: str
    version: str
    scope: str
    names: tuple[PeerName, ...]


def parse_entry(entry: str) -> tuple[str, dict[str, float], str | None]:
    """``"f_beta(beta=0.5):macro"`` -> ``("f_beta", {"beta": 0.5}, "macro")``."""
    match = _ENTRY.match(entry)
    if not match:
        raise InternalError(f"{PEERS_FILE.name}: cannot read the catalog entry {entry!r} (id, id(param=value) or id:average)")
    params = {}
    for binding in filter(None, (b.strip() for b in (match["params"] or "").split(","))):
        key, _, value = binding.partition("=")
        params[key.strip()] = float(value)
    return match["id"], params, match["average"]


def _name(name: str, group: str | None, fields: dict) -> PeerName:
    kinds = [kind for kind in ("metrics", "outside", "not_yet") if kind in fields]
    if len(kinds) != 1:
        raise InternalError(f"{PEERS_FILE.name}: {name!r} needs exactly one of metrics, outside, not_yet")
    kind = kinds[0]
    if kind == "metrics":
        return PeerName(name, group, "covered", tuple(fields["metrics"]), fields.get("note", ""))
    return PeerName(name, group, kind, (), fields[kind])


def load_peers() -> dict[str, Peer]:
    try:
        data = yaml.safe_load(PEERS_FILE.read_text("utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise InternalError(f"cannot read {PEERS_FILE}: {error}") from None
    peers = {}
    for peer, body in data.items():
        names = [_name(str(name), group, fields or {})
                 for key, group in _GROUPS.items() for name, fields in (body.get(key) or {}).items()]
        peers[peer] = Peer(peer, str(body["version"]), " ".join(str(body["scope"]).split()), tuple(names))
    return peers


def _line(title: str, names: list[PeerName]) -> str:
    counted = [n for n in names if n.status != "outside"]
    covered = sum(n.status == "covered" for n in counted)
    outside = [n.name for n in names if n.status == "outside"]
    missing = [n.name for n in names if n.status == "not_yet"]
    notes = ([f"not yet: {', '.join(missing)}"] if missing else []) + (
        [f"{len(outside)} outside the catalog (counts, curves, reports, intervals, bands)"] if outside else [])
    return f"{title} covered: {covered}/{len(counted)}" + (f" ({'; '.join(notes)})" if notes else "")


def coverage_lines(peers: dict[str, Peer] | None = None) -> list[str]:
    """One line per peer (per statistic kind for PyCM): covered / (covered + not yet)."""
    lines = []
    for peer in (peers or load_peers()).values():
        groups = sorted({n.group for n in peer.names}, key=str)
        for group in groups:
            kind = f"{group} statistics" if group else "classification metrics"
            lines.append(_line(f"{peer.name} {peer.version} {kind}", [n for n in peer.names if n.group == group]))
    return lines
