"""The disk cache of the catalog's values at identify's sample points: a hit returns what was
stored, a damaged or unwritable cache is ignored, and the key follows the catalog."""

import json

from metricc.audit import identify_cache


def test_a_table_is_stored_and_read_back_with_tuple_keys(tmp_path, monkeypatch):
    monkeypatch.setenv("METRICC_CACHE_DIR", str(tmp_path))
    calls = []

    def compute():
        calls.append(1)
        return {("f1", "macro", "class", (("beta", 0.7),)): (0.5, None, float("nan"))}

    first = identify_cache.cached_table("probe", compute)
    second = identify_cache.cached_table("probe", compute)
    assert len(calls) == 1
    key = ("f1", "macro", "class", (("beta", 0.7),))
    assert list(second) == [key] and second[key][:2] == (0.5, None) and second[key][2] != second[key][2]
    assert first.keys() == second.keys()
    [stored] = tmp_path.glob("identify-*-probe.json")
    assert identify_cache._catalog_hash() in stored.name


def test_a_damaged_cache_is_recomputed_and_an_unwritable_one_ignored(tmp_path, monkeypatch):
    monkeypatch.setenv("METRICC_CACHE_DIR", str(tmp_path))
    identify_cache.cached_table("probe", lambda: {("a",): (1.0,)})
    [stored] = tmp_path.glob("identify-*-probe.json")
    stored.write_text("{not json")
    assert identify_cache.cached_table("probe", lambda: {("b",): (2.0,)}) == {("b",): (2.0,)}
    assert json.loads(stored.read_text()) == [[["b"], [2.0]]]
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("METRICC_CACHE_DIR", str(blocked / "below"))  # a folder under a file: cannot be made
    assert identify_cache.cached_table("probe", lambda: {("c",): (3.0,)}) == {("c",): (3.0,)}
