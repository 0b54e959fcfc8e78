"""amk.ops' shape policies, compile with a tuning database, and amk.tune's
loop with a runner that plays amk-bench (no GPU needed)."""

import json
import os
import sys

import pytest

import amk
from amk import ops
from amk.ops import matmul_source, row_source

FAKE_BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "test",
                          "Tuning", "Inputs", "fake-bench.py")


@pytest.fixture
def policy(monkeypatch, cache):
    """A fresh process-wide kernel table and compile cache, and the policy
    restored afterwards."""
    monkeypatch.setenv("AMK_PY_CACHE", cache)
    monkeypatch.setattr(ops, "_KERNELS", {})
    monkeypatch.setattr(ops, "_policy", "exact")
    return ops


def test_dynamic_policy_leaves_the_row_count_to_the_launch(policy):
    policy.set_shape_policy("dynamic")
    assert policy.shape_policy() == "dynamic"
    k = policy._kernel(matmul_source(None, 256, 128, "bf16", "bf16"),
                       "h200", "dynamic", "M")
    assert k.manifest["sizes"]["M"] == -1
    assert k.manifest["sizes"]["N"] == 256
    head = k.explain().splitlines()[0]
    assert head == ("amk.ops shape policy: dynamic: M chosen at launch "
                    "(B = 1, K = 128, N = 256 fixed); one kernel serves "
                    "every M")
    # Every variant of the bundle is listed, the last one unconditional.
    variants = [line for line in k.explain().splitlines()
                if line.startswith("  variant when ")]
    assert len(variants) == len(k.variants) >= 1
    assert variants[-1].startswith("  variant when otherwise: ")
    assert "remark: planned gemm_Dx256x128_bf16_f32_bf16_nn" in k.explain()


def test_exact_policy_says_so(policy):
    k = policy._kernel(matmul_source(96, 256, 128, "f16", "f16"), "h200",
                       "exact", "M")
    assert k.explain().startswith(
        "amk.ops shape policy: exact: compiled for B = 1, K = 128, M = 96, "
        "N = 256 only; another shape compiles a kernel of its own")
    # amk.compile's own kernels carry no policy.
    assert not amk.compile(matmul_source(96, 256, 128, "f16", "f16"),
                           "h200").explain().startswith("amk.ops")


def test_dynamic_row_ops(policy):
    k = policy._kernel(row_source("rms_norm", (None, None, 1000), "bf16",
                                  "bf16", weight=True, eps=1e-6),
                       "h200", "dynamic", "row count")
    sizes = k.manifest["sizes"]
    assert sizes["N"] == 1000 and sizes["M"] == -1 and sizes["B"] == -1
    assert "B, M chosen at launch (N = 1000 fixed)" in k.explain()


def test_bad_policies_are_refused(policy, monkeypatch):
    with pytest.raises(ValueError, match="must be one of exact, dynamic"):
        policy.set_shape_policy("bucketed")
    monkeypatch.setattr(ops, "_policy", "fuzzy")  # as $AMK_SHAPE_POLICY
    with pytest.raises(ValueError, match="AMK_SHAPE_POLICY must be one of"):
        policy.shape_policy()
    with pytest.raises(ValueError, match="non-empty"):
        row_source("softmax", (4, None), "f32", "f32")


def test_compile_with_a_tuning_database(cache, tmp_path):
    src = matmul_source(512, 512, 512, "bf16", "bf16")
    with pytest.raises(amk.AmkError, match="no tuning database"):
        amk.compile(src, "h200", cache_dir=cache,
                    tuning_db=str(tmp_path / "missing.jsonl"))
    db = tmp_path / "db.jsonl"
    db.write_text("")
    plain = amk.compile(src, "h200", cache_dir=cache)
    tuned = amk.compile(src, "h200", cache_dir=cache, tuning_db=str(db))
    # A database is part of the key: its kernel is compiled on its own.
    assert tuned.path != plain.path
    assert tuned.config == plain.config  # an empty database changes nothing


def test_tune_runs_rounds_and_reports(tmp_path):
    problem = matmul_source(1024, 1024, 1024, "f32", "f32")
    result = amk.tune(problem, "h200", out=str(tmp_path / "t"), rounds=2,
                      candidates=3, progress=False,
                      runner=[sys.executable, FAKE_BENCH])
    assert [os.path.basename(r) for r in result.rounds] == ["r1", "r2"]
    with open(result.tuning_db) as f:
        records = [json.loads(line) for line in f if line.strip()]
    assert sum(r["kind"] == "measurement" for r in records) == 6
    assert list(result.best) == ["gemm_1024x1024x1024_f32_f32_f32_nn"]
    best = result.best["gemm_1024x1024x1024_f32_f32_f32_nn"]
    assert best["config"].startswith("#amk.gemm_config<")
    assert best["us"] > 0 and best["cublas_us"] == 40.0
    assert os.path.isfile(result.report)
    with open(result.report) as f:
        assert "## Round `r2`" in f.read()
    pytest.importorskip("matplotlib")
    assert sorted(os.path.basename(p) for p in result.plots) == [
        "amk-vs-cublas.png", "predicted-vs-measured.png",
        "tflops-per-shape.png"]
    assert all(os.path.getsize(p) > 1000 for p in result.plots)
    # The database steers the planner: the tuned best is planned first.
    k = amk.compile(problem, "h200", cache_dir=str(tmp_path / "c"),
                    tuning_db=result.tuning_db)
    assert k.config == best["config"]


def test_tune_refuses_bad_input(tmp_path):
    with pytest.raises(ValueError, match="rounds, candidates and iters"):
        amk.tune("x", rounds=0, out=str(tmp_path))
    with pytest.raises(ValueError, match="neither a file nor MLIR text"):
        amk.tune("not mlir", out=str(tmp_path),
                 runner=[sys.executable, FAKE_BENCH])
    with pytest.raises(amk.tune.TuneError, match="amk-tune build"):
        amk.tune("func.func @f( {", out=str(tmp_path), progress=False,
                 runner=[sys.executable, FAKE_BENCH])
