"""Launch AMK bundles from Python through the runtime's C interface.

    from amk.runtime import Bundle
    k = Bundle("out/softmax_4096x4096_bf16_bf16.json")   # loads every kernel
    k.launch([x.data_ptr(), y.data_ptr()], sizes={"M": 300}, stream=0)

The library is libamk_runtime (runtime/include/AMK/Runtime/amk_runtime.h),
found through $AMK_RUNTIME_LIB, in the wheel (amk.native) or in the
runtime's build; it needs only the CUDA driver. Kernels load into the
calling thread's current CUDA context (PyTorch's, once it has touched the
GPU). Failures raise RuntimeError with the runtime's message.
"""

import ctypes
import functools
import json
import os

from . import native

# Where scripts/build-runtime.sh and the main build put the library.
_BUILD_PATHS = ["/tmp/amk-runtime-build/lib/libamk_runtime.so",
                os.path.join(native.REPO, "build", "lib", "Runtime",
                             "libamk_runtime.so")]
_lib = None


def _library():
    global _lib
    if _lib is not None:
        return _lib
    path = os.environ.get("AMK_RUNTIME_LIB")
    candidates = [path] if path else [
        native.packaged_library("libamk_runtime.so")] + _BUILD_PATHS
    for candidate in candidates:
        if candidate and os.path.exists(candidate):
            lib = ctypes.CDLL(candidate)
            break
    else:
        raise RuntimeError("libamk_runtime not found (tried "
                           + ", ".join(c for c in candidates if c)
                           + "); set AMK_RUNTIME_LIB")
    lib.amk_last_error.restype = ctypes.c_char_p
    lib.amk_bundle_load.argtypes = [ctypes.c_char_p,
                                    ctypes.POINTER(ctypes.c_void_p)]
    lib.amk_bundle_free.argtypes = [ctypes.c_void_p]
    lib.amk_bundle_manifest.argtypes = [ctypes.c_void_p]
    lib.amk_bundle_manifest.restype = ctypes.c_char_p
    lib.amk_bundle_launch.argtypes = [
        ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
        ctypes.POINTER(ctypes.c_int64), ctypes.c_int,
        ctypes.POINTER(ctypes.c_uint64), ctypes.c_void_p]
    _lib = lib
    return lib


def _check(rc):
    if rc != 0:
        raise RuntimeError(_library().amk_last_error().decode())


class Bundle:
    """One loaded bundle: its manifest and kernels."""

    def __init__(self, manifest_path):
        lib = _library()
        handle = ctypes.c_void_p()
        _check(lib.amk_bundle_load(os.fsencode(manifest_path),
                                   ctypes.byref(handle)))
        self._handle = handle
        self._size_arrays = {}
        self.manifest = json.loads(lib.amk_bundle_manifest(handle).decode())

    @property
    def problem(self):
        return self.manifest["problem"]

    @property
    def arg_names(self):
        return [a["name"] for a in self.manifest["args"]]

    def launch(self, pointers, sizes=None, stream=0):
        """Runs the bundle on the device pointers of its args, in order,
        with `sizes` giving each dynamic size symbol's value."""
        names, values, count = self._sizes(sizes)
        args = (ctypes.c_uint64 * len(pointers))(*pointers)
        _check(_lib.amk_bundle_launch(self._handle, count, names, values,
                                      len(pointers), args, stream or None))

    def bind(self, pointers, sizes=None, stream=0):
        """A launch on fixed pointers, sizes and stream, ready to repeat:
        a callable of no arguments whose ctypes arguments are built once
        (for timing loops and repeated launches on the same buffers)."""
        names, values, count = self._sizes(sizes)
        args = (ctypes.c_uint64 * len(pointers))(*pointers)
        launch = functools.partial(_lib.amk_bundle_launch, self._handle,
                                   count, names, values, len(pointers), args,
                                   ctypes.c_void_p(stream or None))

        def run():
            if launch():
                raise RuntimeError(_lib.amk_last_error().decode())
        return run

    def _sizes(self, sizes):
        """The C arrays of dynamic sizes (names, values, count), kept per
        set of sizes: the same sizes launch again without re-encoding."""
        if not sizes:
            return None, None, 0
        key = tuple(sizes.items())
        cached = self._size_arrays.get(key)
        if cached is None:
            if len(self._size_arrays) >= 64:  # (many shapes: start over)
                self._size_arrays.clear()
            names = (ctypes.c_char_p * len(key))(*[k.encode() for k, _ in key])
            values = (ctypes.c_int64 * len(key))(*[v for _, v in key])
            cached = self._size_arrays[key] = (names, values, len(key))
        return cached

    def __del__(self):
        if getattr(self, "_handle", None) and _lib is not None:
            _lib.amk_bundle_free(self._handle)
            self._handle = None
