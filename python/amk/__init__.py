"""AMK Python helpers: drive amk-opt and the runtime tools from scripts.

The compiler side (`amk.suite`) needs the amk-opt binary; the runtime side
runs with the CUDA toolkit alone.
"""
