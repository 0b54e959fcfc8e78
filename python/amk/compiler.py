"""Compile AMK problems to verified kernels from Python.

    import amk
    k = amk.compile(mlir_text, target="h200")   # plan, verify, lower: a Kernel
    print(k.config, k.explain())
    k(a, b, c)                                   # torch tensors (or pointers)

Compiling runs the `amk-opt` tool (found as $AMK_OPT, on PATH, or in the
repository's build/bin) with `--amk-pipeline="target=... bundle-dir=...
explain"`: MLIR's Python bindings are not needed. Each distinct (source,
target, amk-opt build) compiles once into a cache directory ($AMK_PY_CACHE,
else ~/.cache/amk/python); later calls, in this process or another, load
the bundle from there. Launching goes through the runtime's C library
(amk.runtime), never through a tool.
"""

import hashlib
import json
import os
import shutil
import subprocess
import tempfile

from . import native, runtime

# Manifest element types and the torch dtypes they are.
_TORCH_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32",
                 "f64": "float64", "i32": "int32"}


class AmkError(RuntimeError):
    """What AMK refused, with its diagnostics (file:line: error: ...)."""


def find_amk_opt():
    """The amk-opt executable: $AMK_OPT, the wheel's own (amk.native), PATH,
    or this repository's build."""
    path = native.find_tool("amk-opt", "AMK_OPT")
    if path is None:
        raise AmkError("amk-opt not found: set AMK_OPT, put it on PATH, "
                       "install the wheel (scripts/build-wheel.sh) or build "
                       "the repository (scripts/build.sh)")
    return path


def _identity(path):
    """Which version of a file (amk-opt, a tuning database): its path, size
    and time (as ccache does)."""
    st = os.stat(path)
    return f"{os.path.realpath(path)} {st.st_size} {st.st_mtime_ns}"


def _cache_root(cache_dir):
    if cache_dir:
        return cache_dir
    if os.environ.get("AMK_PY_CACHE"):
        return os.environ["AMK_PY_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "amk", "python")


def compile(source, target="h200", *, cache_dir=None, tuning_db=None,
            form_graph=False):
    """Plans, verifies and lowers the one problem op in `source` (MLIR text:
    an amk.matmul, linalg.matmul on buffers, a row reduction, ...) for
    `target` (a preset name such as "h200", or a target JSON file),
    consulting the tuning database `tuning_db` (default $AMK_TUNING_DB; what
    amk.tune wrote) when there is one. With `form_graph`, a function whose
    body is only graph steps (products, norms, elementwise ops, decode
    attention) on its arguments and buffers it allocates is first made one
    amk.graph, one megakernel (--amk-form-graph). Returns its Kernel; raises
    AmkError with AMK's diagnostics when it refuses."""
    if not isinstance(source, str):
        raise TypeError("amk.compile takes MLIR text, got "
                        + type(source).__name__)
    if not isinstance(target, str) or not target:
        raise TypeError("amk.compile: target is a preset name or a target "
                        "JSON file")
    # The target and the database are single words of the pass options.
    if any(c in target for c in ' "'):
        raise AmkError(f"amk.compile: bad target name {target!r}")
    tuning_db = tuning_db or os.environ.get("AMK_TUNING_DB") or None
    options = f"target={target}"
    if form_graph:
        options += " form-graph=true"
    if tuning_db:
        # (Checked as the absolute path the option will carry.)
        tuning_db = os.path.abspath(tuning_db)
        if any(c in tuning_db for c in ' "') or not os.path.isfile(tuning_db):
            raise AmkError(f"amk.compile: no tuning database {tuning_db!r}")
        options += f" tuning-db={tuning_db}"
    opt = find_amk_opt()
    # A database that changed (a new tuning round) plans anew.
    key = hashlib.sha256("\0".join(
        [source, options, _identity(opt),
         _identity(tuning_db) if tuning_db else ""]).encode()).hexdigest()[:32]
    root = _cache_root(cache_dir)
    final = os.path.join(root, key)
    if not os.path.isfile(os.path.join(final, "explain.txt")):
        _compile_into(opt, source, options, root, final)
    manifests = sorted(f for f in os.listdir(final) if f.endswith(".json"))
    if len(manifests) != 1:
        raise AmkError(f"amk.compile: expected one problem op in the source, "
                       f"got {len(manifests)} kernels")
    with open(os.path.join(final, "explain.txt")) as f:
        explain = f.read()
    return Kernel(os.path.join(final, manifests[0]), explain)


def _compile_into(opt, source, options, root, final):
    """Compiles into a fresh directory, then renames it into place (a
    concurrent compile of the same key leaves one complete entry)."""
    os.makedirs(root, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".compile-", dir=root)
    try:
        src = os.path.join(work, "source.mlir")
        with open(src, "w") as f:
            f.write(source)
        proc = subprocess.run(
            [opt, src, "-o", os.devnull,
             f"--amk-pipeline={options} bundle-dir={work} explain"],
            capture_output=True, text=True)
        # Diagnostics name the source as <amk.compile>, not the scratch file.
        diagnostics = proc.stderr.replace(src, "<amk.compile>")
        if proc.returncode != 0:
            raise AmkError(diagnostics.strip() or
                           f"amk-opt failed with exit code {proc.returncode}")
        os.remove(src)
        with open(os.path.join(work, "explain.txt"), "w") as f:
            f.write(diagnostics)
        # An entry without its explain.txt is incomplete (an interrupted
        # older compile): replaced.
        if os.path.isdir(final) and not os.path.isfile(
                os.path.join(final, "explain.txt")):
            shutil.rmtree(final, ignore_errors=True)
        try:
            os.rename(work, final)
        except OSError:
            if not os.path.isfile(os.path.join(final, "explain.txt")):
                raise
        else:
            work = None
    finally:
        if work:
            shutil.rmtree(work, ignore_errors=True)


class Kernel:
    """A compiled, verified bundle: what the agent chose and why, and a
    launch on tensors. The bundle's kernels load on the first call."""

    def __init__(self, manifest_path, explain=""):
        self.path = manifest_path
        with open(manifest_path) as f:
            self.manifest = json.load(f)
        self._explain = explain
        self._bundle = None
        # Set by amk.ops: the shape policy the kernel was compiled under.
        self.policy_note = ""

    @classmethod
    def load(cls, manifest_path):
        """A kernel from a bundle on disk (its manifest's path)."""
        return cls(manifest_path)

    @property
    def name(self):
        return self.manifest["name"]

    @property
    def config(self):
        """The first kernel's config (`#amk.gemm_config<...>`)."""
        return self.manifest["kernels"][0].get("config", "")

    @property
    def configs(self):
        return [k.get("config", "") for k in self.manifest["kernels"]]

    @property
    def verdict(self):
        return self.manifest["verdict"]

    @property
    def cache_key(self):
        return self.manifest["kernels"][0].get("cache_key", "")

    @property
    def predicted_us(self):
        return self.manifest["kernels"][0].get("predicted_us", 0)

    @property
    def ptx(self):
        """The PTX of the bundle's kernels."""
        kernel = self.manifest["kernels"][0]
        with open(os.path.join(os.path.dirname(self.path), kernel["ptx"])) as f:
            return f.read()

    @property
    def args(self):
        return [a["name"] for a in self.manifest["args"]]

    @property
    def variants(self):
        """The bundle's variants, in the order the runtime tries them: each
        {"when": condition (absent: always), "steps": [...]}."""
        return self.manifest.get("variants", [{"steps": [{"kernel": "main"}]}])

    def explain(self):
        """The agent's decision as `--amk-plan=explain` prints it (empty for
        a kernel loaded from disk), after amk.ops' shape policy when the
        kernel came from there."""
        if self.policy_note:
            return self.policy_note + "\n" + self._explain
        return self._explain

    def bind(self, tensors, sizes=None):
        """The device pointers and dynamic sizes of a launch on `tensors`
        (torch tensors, or raw device pointers with `sizes` given): every
        tensor on the GPU, contiguous, of the manifest's element type and
        shape; each dynamic size from the tensors that have it, agreeing."""
        args = self.manifest["args"]
        if len(tensors) != len(args):
            raise ValueError(f"{self.name} takes {len(args)} buffers "
                             f"({', '.join(self.args)}), got {len(tensors)}")
        declared = self.manifest["sizes"]
        found = dict(sizes or {})
        pointers = []
        for spec, t in zip(args, tensors):
            if isinstance(t, int):
                pointers.append(t)
                continue
            pointers.append(_check_tensor(self.name, spec, t, declared, found))
        missing = [s for s, v in declared.items() if v < 0 and s not in found]
        if missing:
            raise ValueError(f"{self.name}: no value for dynamic size(s) "
                             f"{', '.join(missing)}: pass sizes=")
        dynamic = {s: v for s, v in found.items() if declared.get(s, 0) < 0}
        return pointers, dynamic

    def __call__(self, *tensors, sizes=None, stream=None):
        pointers, dynamic = self.bind(tensors, sizes)
        if stream is None:
            device = next((t.device for t in tensors if hasattr(t, "device")),
                          None)
            stream = current_stream(device) if device is not None else 0
        self.launch(pointers, dynamic, stream)

    def launch(self, pointers, sizes, stream):
        """Launches on device pointers already bound (bind()), with the
        dynamic sizes, on a raw CUstream handle."""
        if self._bundle is None:
            self._bundle = runtime.Bundle(self.path)
        self._bundle.launch(pointers, sizes, stream)

    def __repr__(self):
        return f"<amk.Kernel {self.name} {self.config}>"


def _check_tensor(name, spec, t, declared, found):
    """The device pointer of tensor `t` for manifest buffer `spec`, after
    checking it; records the dynamic sizes it gives."""
    what = f"{name}: buffer {spec['name']}"
    if not hasattr(t, "data_ptr") or not hasattr(t, "shape"):
        raise TypeError(f"{what}: expected a torch tensor or a device "
                        f"pointer, got {type(t).__name__}")
    if getattr(t.device, "type", "cuda") != "cuda":
        raise ValueError(f"{what} is on {t.device}, not a CUDA device")
    want = _TORCH_DTYPES.get(spec["elem"], spec["elem"])
    got = str(t.dtype).replace("torch.", "")
    if got != want:
        raise TypeError(f"{what} must be {want}, got {got}")
    if not t.is_contiguous():
        raise ValueError(f"{what} must be contiguous (strides "
                         f"{tuple(t.stride())})")
    shape = spec["shape"]
    if len(t.shape) != len(shape):
        raise ValueError(f"{what} must have {len(shape)} dimensions "
                         f"({shape}), got shape {tuple(t.shape)}")
    for dim, (sym, extent) in enumerate(zip(shape, t.shape)):
        want_extent = sym if isinstance(sym, int) else declared.get(sym, -1)
        if isinstance(want_extent, int) and want_extent >= 0:
            if extent != want_extent:
                raise ValueError(f"{what}: dimension {dim} must be "
                                 f"{want_extent}, got {extent}")
            continue
        if found.setdefault(sym, extent) != extent:
            raise ValueError(f"{what}: dimension {dim} ({sym}) is {extent}, "
                             f"but another buffer has {sym} = {found[sym]}")
    return t.data_ptr()


def current_stream(device):
    """The raw handle of PyTorch's current stream on CUDA `device`."""
    import torch
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(device.index if device.index is not None
                   else torch.cuda.current_device())
    return torch.cuda.current_stream(device).cuda_stream
