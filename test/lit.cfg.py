# -*- Python -*-
# lit configuration of the AMK regression tests.

import importlib.util
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "AMK"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.amk_obj_root, "test")
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%amk_src_root", config.amk_src_root))
config.substitutions.append(("%amk_obj_root", config.amk_obj_root))
config.substitutions.append(("%mlir_cmake_dir", config.mlir_cmake_dir))
config.substitutions.append(("%cmake_generator", config.cmake_generator))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%cc", config.c_compiler))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# The compile cache of the suite lives in the build tree, never in the home
# directory; the cache tests use their own %t directories.
config.environment["AMK_CACHE_DIR"] = os.path.join(config.test_exec_root,
                                                   "amk-cache")
config.environment.pop("XDG_CACHE_HOME", None)

tool_dirs = [config.amk_tools_dir, config.llvm_tools_dir]
tools = [ToolSubst("amk-opt", unresolved="fatal"),
         ToolSubst("amk-cache", unresolved="fatal"),
         ToolSubst("amk-fuzz", unresolved="fatal"),
         ToolSubst("amk-tune", unresolved="fatal")]
if config.amk_runtime_enabled:
    tools.append(ToolSubst("amk-device-info", unresolved="ignore"))
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.amk_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)


def has_cuda_gpu():
    """A CUDA GPU is usable: nvidia-smi lists at least one device."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


if config.amk_unittests_enabled:
    config.available_features.add("unittests")
# amk-fuzz: this build's is the libFuzzer one (AMK_ENABLE_FUZZING), or
# scripts/build.sh built one into build/fuzz (AMK_FUZZ_LIBFUZZER_BINARY).
if config.amk_fuzzing_enabled:
    config.available_features.add("amk-fuzz-libfuzzer")
if os.access(config.amk_fuzz_libfuzzer, os.X_OK):
    config.available_features.add("libfuzzer")
    config.substitutions.append(("%amk_fuzz_libfuzzer",
                                 config.amk_fuzz_libfuzzer))
if config.amk_runtime_enabled:
    config.available_features.add("cuda-runtime")
    if has_cuda_gpu():
        config.available_features.add("cuda-gpu")
# pytest for the Python package's tests (python/tests), in lit's Python.
if importlib.util.find_spec("pytest") is not None:
    config.available_features.add("pytest")
# scripts/build-wheel.sh: patchelf, the wheel and venv modules, the runtime.
if (shutil.which("patchelf") and config.amk_runtime_enabled and
        importlib.util.find_spec("wheel") is not None and
        importlib.util.find_spec("ensurepip") is not None):
    config.available_features.add("wheel")
ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
if os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))


def unprivileged_prefix():
    """How to run a tool where file permissions hold: as is, or as root (CI)
    as nobody (with a temporary directory nobody can write, for ptxas), when
    nobody can run amk-opt from this build; else None."""
    if os.geteuid() != 0:
        return ""
    setpriv = shutil.which("setpriv")
    if not setpriv:
        return None
    prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
              "env", "TMPDIR=/tmp"]
    try:
        out = subprocess.run(
            prefix + [os.path.join(config.amk_tools_dir, "amk-opt"), "--version"],
            capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return " ".join(prefix) if out.returncode == 0 else None


unprivileged = unprivileged_prefix()
if unprivileged is not None:
    config.available_features.add("permissions")
    config.substitutions.append(("%unprivileged", unprivileged))
