"""AMK from Python: compile, prove and run AMK kernels.

    import torch, amk
    y = amk.ops.matmul(x, w.t(), bias=b, activation="gelu")
    k = amk.compile(mlir_text, target="h200")   # config, explain(), ptx
    k(a, b, c)
    amk.tune(problems, target="h200")           # tune on this GPU: a database

Compiling needs the amk-opt tool (amk.compiler.find_amk_opt); launching needs
only the CUDA driver and the runtime's C library (amk.runtime). The
repository's scripts (amk.suite, amk.rowsuite, amk.tune, ...) live here too.
"""

from .compiler import AmkError, Kernel, compile, find_amk_opt  # noqa: F401
from . import ops, target, tune  # noqa: F401  (amk.tune(...) is callable)
from .target import Target  # noqa: F401
