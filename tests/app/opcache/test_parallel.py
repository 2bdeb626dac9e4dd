"""The measurement shared among processes (app/opcache/parallel.py) gives the one-process answer:
the same totals, lists and candidates from the split walk, the same groups from the shared reads,
on generated trees with ties, `*_pre.json`, unparsable and trailing-bytes jsons, hard links
across parts, symlinks and nested dirs; through a fork and through a new interpreter; and when a
worker dies. Also how many processes it takes."""

import json
import os
import random
import sys
from pathlib import Path

import pytest

from cann_config.app.opcache import parallel
from cann_config.app.opcache.cleanup import predict_cleanup
from cann_config.app.opcache.measurement import measure_cache
from cann_config.app.opcache.parallel import ScanPool, scan_pool, worker_count
from cann_config.app.opcache.resolution import Effective
from cann_config.app.opcache.scanner import scan_to_end

NOW = 1_780_000_000
SOCS = ("Ascend910B3", "Ascend310P3")


def kernel_json(stem: str, rng: random.Random, **extra: object) -> bytes:
    info = {"binFileName": stem, "binFileSuffix": ".o", "blockDim": rng.randint(1, 48),
            "kernelName": stem + "__kernel0", "sha256": f"{rng.getrandbits(64):016x}", **extra}
    return json.dumps(info, separators=(",", ":")).encode()


def put(path: Path, data: bytes, atime: float, mtime: float | None = None, size: int = 0) -> None:
    path.write_bytes(data)
    if size > len(data):
        os.truncate(path, size)  # sparse: megabytes of binaries cost no disk
    os.utime(path, (atime, atime if mtime is None else mtime))


def make_cache(root: Path, seed: int) -> Path:
    """A kernel_cache of two SoC dirs with every kind of json CANN's cleaner meets."""
    rng = random.Random(seed)
    kc = root / "kernel_cache"
    kc.mkdir(parents=True)
    (kc / "op_cache.ini").write_text("[op_compiler_cache]\nmax_op_cache_size=1\nremain_cache_size_ratio=50\n")
    put(kc / "loose.json", b"{}", NOW - 9000)
    # A few access seconds shared by many jsons (ties ordered by path), the rest spread.
    tied = [NOW - 7200, NOW - 86400 * 2, NOW - 40000]
    for soc in SOCS:
        soc_dir = kc / soc
        soc_dir.mkdir()
        dirs = [soc_dir] + [soc_dir / f"kernel_meta_{d:03d}" for d in range(rng.randint(10, 24))]
        for d, folder in enumerate(dirs):
            if d and rng.random() < 0.25:
                folder = folder / "nested" / "deeper"
            folder.mkdir(parents=True, exist_ok=True)
            for k in range(rng.randint(0, 14)):
                stem = f"te_{soc}_{d}_{k}"
                atime = rng.choice(tied) if rng.random() < 0.4 else NOW - rng.uniform(0, 14 * 86400)
                kind = rng.choices(("plain", "mix", "pre", "bad", "trailing", "nobin", "otherbin", "binless"),
                                   (40, 6, 4, 3, 4, 2, 3, 2))[0]
                if kind == "mix":
                    subs = [f"{stem}_mix_aic", f"{stem}_mix_aiv"]
                    put(folder / f"{stem}.json",
                        kernel_json(stem, rng, jsonList=[{"jsonFileName": s + ".json"} for s in subs]), atime)
                    for sub in subs:
                        put(folder / f"{sub}.json", kernel_json(sub, rng), atime)
                        put(folder / f"{sub}.o", b"\x7fELF", atime, size=rng.randint(1, 300_000))
                    continue
                if kind == "pre":
                    put(folder / f"{stem}_pre.json", kernel_json(stem, rng), atime)
                elif kind == "bad":
                    put(folder / f"{stem}.json", b'{"binFileName": "' + stem.encode(), atime)
                elif kind == "trailing":  # nlohmann's operator>> reads the first value only
                    put(folder / f"{stem}.json", kernel_json(stem, rng) + b"\n}garbage{", atime)
                elif kind == "nobin":
                    put(folder / f"{stem}.json", b'{"kernelName": "x"}', atime)
                elif kind == "otherbin":
                    put(folder / f"{stem}.json", kernel_json("shared_" + stem[-1], rng), atime)
                    put(folder / ("shared_" + stem[-1] + ".o"), b"\x7fELF", atime, size=50_000)
                    continue
                else:
                    put(folder / f"{stem}.json", kernel_json(stem, rng), atime)
                if kind != "binless":
                    put(folder / f"{stem}.o", b"\x7fELF", atime, size=rng.randint(1, 400_000))
        # a hard link from one part of the walk into another, and a symlink
        first = sorted(soc_dir.glob("kernel_meta_*/*.o"))
        if len(first) > 2:
            os.link(first[0], soc_dir / "kernel_meta_000" / "linked.o")
            os.link(first[-1], soc_dir / "zz_linked.o")
        os.symlink("kernel_meta_001", soc_dir / "link_to_meta")
    return kc


def walk_and_predict(kc: Path, workers: int, max_mb: int, ratio: int = 50, fork: bool = True,
                     monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[dict, dict]:
    """The usage (as comparable data) and every SoC dir's prediction (with its groups), with
    `workers` processes sharing the walk (no minimum size for a split) and as many threads reading
    the jsons."""
    if monkeypatch is not None:
        monkeypatch.setattr(parallel, "_can_fork", lambda: fork)
    pool = ScanPool(workers) if workers > 1 else None
    try:
        if pool is not None:
            pool.min_units = 1
        usage = scan_to_end(kc, candidates_from=0, splitter=pool)
        predictions = {name: predict_cleanup(soc, max_mb, ratio, now=NOW, atime_rule="noatime", threads=workers)
                       for name, soc in usage.socs.items()}
        if pool is not None:
            assert pool.workers == workers  # the workers did start
    finally:
        if pool is not None:
            pool.close()
    data = {"files": usage.files, "dirs": usage.dirs, "apparent": usage.apparent_bytes,
            "allocated": usage.allocated_bytes, "unreadable": usage.unreadable, "other_fs": usage.other_fs,
            "other_uids": usage.other_uids, "top": usage.top.totals(), "socs": {}}
    for name, soc in usage.socs.items():
        data["socs"][name] = (soc.totals(), soc.dirs, soc.hard_links, soc.symlinks, soc.candidates_complete,
                              sorted(soc.json_candidates()), [soc.candidate(k) for k in soc.ordered_candidates()])
    return data, {name: p.to_json(with_groups=True) for name, p in predictions.items()}


def limits_of(kc: Path) -> list[int]:
    """Limits (MiB) from far under to far over the biggest SoC dir: none, 10 % over, all."""
    used = max(scan_to_end(kc).socs[s].cann_bytes for s in SOCS)
    return [max(1, int(used / 1.1) // (1024 * 1024)), 1, 10_000]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_two_and_three_processes_give_the_one_process_answer(tmp_path, seed):
    kc = make_cache(tmp_path, seed)
    for max_mb in (1, 10_000):
        one = walk_and_predict(kc, 1, max_mb)
        assert walk_and_predict(kc, 2, max_mb) == one
        assert walk_and_predict(kc, 3, max_mb) == one
    # the trees hold what the test is about
    ones = walk_and_predict(kc, 1, 1)
    preds = ones[1].values()
    assert sum(p["skipped_pre_jsons"] for p in preds) > 0
    assert sum(p["skipped_unparsed_jsons"] for p in preds) > 0
    assert sum(p["delete_groups"] for p in preds) > 20
    assert any(s[2] for s in ones[0]["socs"].values())  # hard links counted once across parts


def test_the_stop_point_is_the_same_and_nothing_past_it_is_read(tmp_path, monkeypatch):
    kc = make_cache(tmp_path, 7)
    used = scan_to_end(kc).socs["Ascend910B3"].cann_bytes
    max_mb = max(1, int(used / 1.1) // (1024 * 1024))
    # a limit just under the SoC dir: CANN deletes a part and stops
    one = walk_and_predict(kc, 1, max_mb)
    two = walk_and_predict(kc, 2, max_mb)
    assert two == one


def test_a_new_interpreter_as_worker_gives_the_same_answer(tmp_path, monkeypatch):
    """The GUI's way (no fork inside a Qt process): `python -m cann_config.app.opcache.parallel`."""
    kc = make_cache(tmp_path, 5)
    one = walk_and_predict(kc, 1, 1)
    assert walk_and_predict(kc, 2, 1, fork=False, monkeypatch=monkeypatch) == one


def test_a_worker_that_dies_costs_time_not_the_answer(tmp_path, monkeypatch):
    kc = make_cache(tmp_path, 6)
    one = walk_and_predict(kc, 1, 1)

    def die(*_args: object) -> None:
        os._exit(3)

    # the forked worker walks with the module's _walk_units: it dies at its first units
    monkeypatch.setattr(parallel, "_walk_units", die)
    assert walk_and_predict(kc, 2, 1) == one


def test_measure_cache_json_is_the_same_with_any_worker_count(tmp_path):
    kc = make_cache(tmp_path, 8)
    for max_mb in limits_of(kc):
        max_e, ratio_e = Effective(max_mb, "op_cache.ini"), Effective(50, "op_cache.ini")
        docs = []
        for workers in (1, 2):
            data = measure_cache(kc, {"source": "option"}, max_e, ratio_e, workers=workers).to_json("en")
            data.pop("elapsed_seconds")
            data["filesystem"].pop("free_bytes")  # the disk is shared: it changes between the runs
            docs.append(data)
        assert docs[0] == docs[1]


def test_a_split_walk_that_does_not_gather_candidates_gathers_them_when_a_soc_dir_reaches_the_limit(tmp_path):
    kc = make_cache(tmp_path, 9)
    serial = scan_to_end(kc, candidates_from=1000)
    pool = ScanPool(2)
    pool.min_units = 1
    try:
        split = scan_to_end(kc, candidates_from=1000, splitter=pool)
    finally:
        pool.close()
    for name in SOCS:
        assert split.socs[name].candidates_complete == serial.socs[name].candidates_complete is True
        assert sorted(split.socs[name].json_candidates()) == sorted(serial.socs[name].json_candidates())
    huge = 1 << 60
    assert not scan_to_end(kc, candidates_from=huge).socs[SOCS[0]].candidates_complete


@pytest.mark.parametrize(("affinity", "load", "expected"), [
    (2, 0.0, 2), (2, 0.4, 2), (2, 0.6, 1), (2, 1.0, 1), (2, 3.5, 1), (1, 0.0, 1), (8, 2.2, 6), (64, 0.0, 16)])
def test_the_worker_count_follows_the_free_cores(affinity, load, expected):
    assert worker_count(affinity, load, environ={}) == expected


def test_the_worker_count_can_be_set():
    assert worker_count(2, 5.0, environ={"CANN_CONFIG_SCAN_WORKERS": "2"}) == 2
    assert worker_count(2, 0.0, environ={"CANN_CONFIG_SCAN_WORKERS": "junk"}) == 2
    assert worker_count(1, 0.0, environ={"CANN_CONFIG_SCAN_WORKERS": "0"}) == 1


def test_no_fork_in_a_process_with_qt_or_threads(monkeypatch):
    monkeypatch.setitem(sys.modules, "PySide6", sys)
    assert not parallel._can_fork()


def test_one_process_means_no_pool():
    with scan_pool(1) as pool:
        assert pool is None


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_the_bytes_freed_count_each_file_once(tmp_path, seed):
    """freed_bytes (cleanup._distinct_bytes, summed per dir in C where the names cannot repeat)
    is the sum over the distinct files of the groups to delete."""
    kc = make_cache(tmp_path, seed)
    # more groups per dir than the quick sum needs, some naming one shared binary
    folder = kc / SOCS[0] / "kernel_meta_000"
    for k in range(12):
        put(folder / f"many_{k}.json", kernel_json(f"many_{k}", random.Random(k)), NOW - 50_000)
        put(folder / f"many_{k}.o", b"\x7fELF", NOW - 50_000, size=10_000 + k)
    put(folder / "lists_many.json", json.dumps({"jsonList": [{"jsonFileName": "many_3.json"}]}).encode(), NOW - 60_000)
    usage = scan_to_end(kc)
    for name, soc in usage.socs.items():
        prediction = predict_cleanup(soc, 1, 50, now=NOW, atime_rule="noatime")
        files: dict[str, int] = {}
        for group in prediction.delete:
            for member in group.members:
                files.setdefault(member.path, member.size)
        assert prediction.freed_bytes == sum(files.values()), name
        assert prediction.counted_bytes >= prediction.freed_bytes


def _plain(folder: Path, json_name: str, bin_name: str, suffix: str, size: int, atime: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    put(folder / json_name, json.dumps({"binFileName": bin_name, "binFileSuffix": suffix}).encode(), atime)
    put(folder / (bin_name + suffix), b"\x7fELF", atime, size=size)


@pytest.mark.parametrize("case", ["two-suffixes-one-name", "suffix-ends-a-json", "one-suffix-ends-a-json",
                                  "two-lists-one-json",
                                  "list-in-a-subdir", "list-names-a-binary"])
def test_the_bytes_freed_when_names_may_repeat(tmp_path, case):
    """Each way two groups to delete can name one file, against the distinct files themselves
    (cleanup._freed_bytes sums the counted bytes only when no name can repeat)."""
    folder = tmp_path / "kernel_cache" / "S" / "d"
    folder.mkdir(parents=True)
    old = NOW - 50_000
    if case == "two-suffixes-one-name":  # "a" + ".x.o" and "a.x" + ".o" are one binary
        _plain(folder, "a.json", "a", ".x.o", 5_000, old)
        _plain(folder, "a.x.json", "a.x", ".o", 5_000, old - 1)
    elif case == "suffix-ends-a-json":  # "k.jso" + "n" is the json k.json of another group
        _plain(folder, "k.json", "k", ".o", 7_000, old)
        put(folder / "k.jso.json", json.dumps({"binFileName": "k.jso", "binFileSuffix": "n"}).encode(), old - 1)
    elif case == "one-suffix-ends-a-json":  # every binary "<stem>n": "k.jso" + "n" is k.json
        _plain(folder, "k.json", "k", "n", 7_000, old)
        put(folder / "k.jso.json", json.dumps({"binFileName": "k.jso", "binFileSuffix": "n"}).encode(), old - 1)
    elif case == "two-lists-one-json":
        _plain(folder, "sub_mix_aic.json", "sub_mix_aic", ".o", 9_000, old)
        for k in range(2):
            put(folder / f"m{k}.json", json.dumps({"jsonList": [{"jsonFileName": "sub_mix_aic.json"}]}).encode(),
                old - 1 - k)
    elif case == "list-in-a-subdir":
        _plain(folder / "inner", "x.json", "x", ".o", 11_000, old)
        put(folder / "m.json", json.dumps({"jsonList": [{"jsonFileName": "inner/x.json"}]}).encode(), old - 1)
    else:  # a listed json whose binary is a plain group's binary
        _plain(folder, "p.json", "p", ".o", 13_000, old)
        put(folder / "q_mix_aic.json", json.dumps({"binFileName": "p", "binFileSuffix": ".o"}).encode(), old)
        put(folder / "m.json", json.dumps({"jsonList": [{"jsonFileName": "q_mix_aic.json"}]}).encode(), old - 1)
    suffix = "n" if case == "one-suffix-ends-a-json" else ".o"
    for k in range(20):  # plain groups enough to reach past the quick paths
        _plain(folder, f"z{k}.json", f"z{k}", suffix, 100_000 + k, old - 100 - k)
    soc = scan_to_end(tmp_path / "kernel_cache").socs["S"]
    prediction = predict_cleanup(soc, 1, 0, now=NOW, atime_rule="noatime")
    files: dict[str, int] = {}
    for group in prediction.delete:
        for member in group.members:
            files.setdefault(member.path, member.size)
    assert prediction.freed_bytes == sum(files.values())
    assert prediction.counted_bytes > prediction.freed_bytes  # the case does repeat a name
