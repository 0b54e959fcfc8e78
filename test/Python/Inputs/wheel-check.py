"""Run by the installed wheel's Python, away from the repository: where the
package finds its tools, what the dynamic loader resolves amk-opt's LLVM
to, and a compile through the packaged amk-opt."""
import subprocess
import tempfile

import amk
from amk import native, runtime

opt = amk.find_amk_opt()
print("amk-opt:", opt)
for line in subprocess.run(["ldd", opt], capture_output=True,
                           text=True).stdout.splitlines():
    if "libLLVM" in line:
        print(line.strip())
print("runtime:", native.packaged_library("libamk_runtime.so"))
for tool in ("amk-tune", "amk-bench", "amk-device-info"):
    print(f"{tool}:", native.packaged_tool(tool))
k = amk.compile(amk.ops.matmul_source(1024, 512, 256, "bf16", "bf16",
                                      transpose_b=True), "h200",
                cache_dir=tempfile.mkdtemp())
print("config:", k.config)
print("verdict:", k.verdict["status"])
